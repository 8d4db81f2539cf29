"""Writes for workspaces, memberships and tokens.

`membership_add` and `api_token_create` are the raw writes (seeds, tests); what people do in the
dashboard goes through `member_*` and `api_token_issue/revoke`, which check who asks and are audited.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.text import slugify

from venus_rpa.accounts.models import ROLE_RANK, ApiToken, Membership, Role, Workspace, hash_token
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.core.errors import Conflict, InvalidInput, PermissionDenied

TOKEN_PREFIX = "vrpa_"  # noqa: S105 -- a public prefix, not a secret


@transaction.atomic
def workspace_create(*, name: str, owner, slug: str | None = None) -> Workspace:
    workspace = Workspace.objects.create(name=name, slug=slug or slugify(name)[:80])
    Membership.objects.create(workspace=workspace, user=owner, role=Role.OWNER)
    return workspace


def membership_add(*, workspace: Workspace, user, role: str) -> Membership:
    membership, _ = Membership.objects.update_or_create(workspace=workspace, user=user, defaults={"role": role})
    return membership


def api_token_create(*, workspace: Workspace, user, name: str) -> tuple[ApiToken, str]:
    """Create a token and return it with its raw value, which is shown once and never stored."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        workspace=workspace, user=user, name=name, prefix=raw[: len(TOKEN_PREFIX) + 6], token_hash=hash_token(raw)
    )
    return token, raw


def user_create(*, username: str, password: str, email: str = ""):
    return get_user_model().objects.create_user(username=username, password=password, email=email)


# -- members and tokens managed in the dashboard (audited) ----------------------------------------

MEMBER_MANAGERS = {Role.OWNER}
TOKEN_NAME_MAX = 100
TOKEN_LIFETIME_MAX = timedelta(days=366)
NO_ACCOUNT = "No account has this username or e-mail address."


def _manager_check(*, workspace: Workspace, actor) -> Membership:
    """The actor's membership, or PermissionDenied unless they may manage the workspace's members."""
    membership = Membership.objects.filter(workspace=workspace, user=actor).first()
    if membership is None or membership.role not in MEMBER_MANAGERS:
        raise PermissionDenied("Only an owner of the workspace adds, changes or removes members.")
    return membership


def _role_check(role: str) -> str:
    if role not in Role.values:
        raise InvalidInput("Choose a role: owner, editor, reviewer or viewer.",
                           fields={"role": ["Choose owner, editor, reviewer or viewer."]})
    return role


def _user_find(who: str):
    """The active user with this username (exact) or e-mail address (any case); InvalidInput otherwise."""
    who = who.strip()
    if not who:
        raise InvalidInput("Give a username or e-mail address.", fields={"who": ["Give a username or e-mail address."]})
    users = get_user_model().objects.filter(is_active=True)
    user = users.filter(username=who).first()
    if user is None and "@" in who:
        found = list(users.filter(email__iexact=who)[:2])
        if len(found) > 1:
            raise InvalidInput("Several people have that e-mail address: give the username instead.",
                               fields={"who": ["Several people have that e-mail address: give the username."]})
        user = found[0] if found else None
    if user is None:
        raise InvalidInput(f"Nobody with the username or e-mail address “{who[:150]}” has an account here.",
                           fields={"who": [NO_ACCOUNT]})
    return user


def _members_lock(workspace: Workspace) -> None:
    """Serialise changes to the workspace's members (its row is locked until the transaction
    ends): two owners demoting or removing each other at once cannot leave it with none, and
    every check below reads what the previous change committed."""
    Workspace.objects.select_for_update().filter(pk=workspace.pk).values_list("pk", flat=True).first()


def _membership_current(workspace: Workspace, membership: Membership) -> Membership:
    """The membership as committed now (under the lock); Conflict if it went meanwhile."""
    current = Membership.objects.select_related("user").filter(pk=membership.pk, workspace=workspace).first()
    if current is None:
        raise Conflict("That person is no longer a member of the workspace.")
    return current


def _owner_ids(workspace: Workspace) -> list[int]:
    return list(Membership.objects.filter(workspace=workspace, role=Role.OWNER).values_list("pk", flat=True))


@transaction.atomic
def member_add(*, workspace: Workspace, actor, who: str, role: str) -> Membership:
    """Add an existing user (by username or e-mail) to the workspace with `role`. Owners only;
    a user already in the workspace is a Conflict (change their role instead)."""
    _members_lock(workspace)
    _manager_check(workspace=workspace, actor=actor)
    role = _role_check(role)
    user = _user_find(who)
    existing = Membership.objects.filter(workspace=workspace, user=user).first()
    if existing is not None:
        raise Conflict(f"{user.username} is already a member ({existing.role}): change their role instead.",
                       fields={"who": [f"{user.username} is already a member."]})
    membership = Membership.objects.create(workspace=workspace, user=user, role=role)
    audit_record(workspace=workspace, actor=actor, action=AuditAction.MEMBER_ADDED,
                 changes=[f"Added {user.username} as {role}"], before={}, after={"user": user.username, "role": role})
    return membership


def signup_path(user) -> str:
    """The path of `user`'s sign-up page (`dashboard:welcome`), with Django's password-reset token.
    It works until settings.PASSWORD_RESET_TIMEOUT passes or a password is set (the token depends on
    the password hash and last_login). A secret: shown once to whoever invites, never stored or logged."""
    uidb64 = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("dashboard:welcome", kwargs={"uidb64": uidb64, "token": default_token_generator.make_token(user)})


def _invitee_check(username: str, email: str) -> tuple[str, str]:
    """The username and e-mail of a new account, validated as the user model does; InvalidInput otherwise."""
    user_model = get_user_model()
    field = user_model._meta.get_field(user_model.USERNAME_FIELD)
    username, email = username.strip(), email.strip()
    try:
        field.run_validators(username)
        if not username or len(username) > field.max_length:
            raise ValidationError(f"Give a username of 1 to {field.max_length} characters.")
    except ValidationError as exc:
        raise InvalidInput(f"Username: {' '.join(exc.messages)}", fields={"username": exc.messages}) from None
    try:
        if email:
            validate_email(email)
    except ValidationError:
        message = "Enter a valid e-mail address, or leave it empty."
        raise InvalidInput(f"E-mail: {message}", fields={"email": [message]}) from None
    return username, email


@transaction.atomic
def member_invite(*, workspace: Workspace, actor, username: str, role: str, email: str = "") -> tuple[Membership, str]:
    """Create an account for someone who has none (no usable password), add it to the workspace with
    `role`, audited, and return the membership with the path of its sign-up page (`signup_path`),
    which the caller shows once. Owners only; `actor` None is an administrator (manage.py).
    A member invited earlier who never signed in gets a new link (their role stays); any other
    existing username is a Conflict (add them instead). No e-mail is sent."""
    _members_lock(workspace)
    if actor is not None:
        _manager_check(workspace=workspace, actor=actor)
    role = _role_check(role)
    username, email = _invitee_check(username, email)
    users = get_user_model().objects
    user = users.filter(username=username).first()
    if user is not None:
        membership = Membership.objects.filter(workspace=workspace, user=user).first()
        if membership is None or user.has_usable_password() or user.last_login is not None:
            raise Conflict(f"{username} already has an account: add them with “Add member” instead.",
                           fields={"username": [f"{username} already has an account."]})
        if actor is not None and Membership.objects.filter(user=user).exclude(workspace=workspace).exists():
            # Whoever sets the password owns the account, in every workspace it belongs to: an owner of
            # one workspace must not get the key to another's member.
            message = (f"{username} also belongs to another workspace, so only an administrator can make them a "
                       "new link (manage.py invite_member).")
            raise Conflict(message, fields={"username": [message]})
        audit_record(workspace=workspace, actor=actor, action=AuditAction.MEMBER_ADDED,
                     changes=[f"New sign-up link for {username} ({membership.role})"], before={},
                     after={"user": username, "role": membership.role, "invited": True})
        return membership, signup_path(user)
    if email and users.filter(email__iexact=email, is_active=True).exists():
        message = "Someone already has an account with this e-mail address: add them with “Add member”."
        raise Conflict(message, fields={"email": [message]})
    user = users.create_user(username=username, email=email, password=None)  # None: an unusable password
    membership = Membership.objects.create(workspace=workspace, user=user, role=role)
    audit_record(workspace=workspace, actor=actor, action=AuditAction.MEMBER_ADDED,
                 changes=[f"Invited {username} as {role}"], before={},
                 after={"user": username, "role": role, "invited": True})
    return membership, signup_path(user)


@transaction.atomic
def member_role_set(*, workspace: Workspace, actor, membership: Membership, role: str) -> Membership:
    """Change a member's role. Owners only; nobody raises their own role; the last owner is never
    demoted (Conflict). Takes effect at once, for the member's API tokens too."""
    role = _role_check(role)
    _members_lock(workspace)
    membership = _membership_current(workspace, membership)
    before = membership.role
    if membership.user_id == actor.pk and ROLE_RANK[Role(role)] > ROLE_RANK[Role(before)]:
        raise PermissionDenied("You cannot raise your own role: ask an owner.")
    _manager_check(workspace=workspace, actor=actor)
    if role == before:
        return membership
    if before == Role.OWNER and _owner_ids(workspace) == [membership.pk]:
        raise Conflict(f"{membership.user.username} is the workspace's last owner: make someone else an owner "
                       "first.", fields={"role": ["The last owner cannot be demoted."]})
    membership.role = role
    membership.save(update_fields=["role"])
    audit_record(workspace=workspace, actor=actor, action=AuditAction.MEMBER_ROLE_CHANGED,
                 changes=[f"{membership.user.username}: {before} → {role}"],
                 before={"user": membership.user.username, "role": before},
                 after={"user": membership.user.username, "role": role})
    return membership


@transaction.atomic
def member_remove(*, workspace: Workspace, actor, membership: Membership) -> None:
    """Remove a member and revoke their API tokens of this workspace (so adding them back does not
    bring old tokens back to life). Owners only; the last owner is never removed (Conflict)."""
    _members_lock(workspace)
    _manager_check(workspace=workspace, actor=actor)
    membership = _membership_current(workspace, membership)
    if membership.role == Role.OWNER and _owner_ids(workspace) == [membership.pk]:
        raise Conflict(f"{membership.user.username} is the workspace's last owner and cannot be removed: make "
                       "someone else an owner first.")
    revoked = ApiToken.objects.filter(workspace=workspace, user=membership.user, revoked_at__isnull=True).update(
        revoked_at=timezone.now())
    username, role = membership.user.username, membership.role
    membership.delete()
    changes = [f"Removed {username} ({role})"] + ([f"{revoked} API token(s) of theirs revoked"] if revoked else [])
    audit_record(workspace=workspace, actor=actor, action=AuditAction.MEMBER_REMOVED, changes=changes,
                 before={"user": username, "role": role}, after={})


@transaction.atomic
def api_token_issue(*, workspace: Workspace, actor, name: str, expires_at: datetime | None = None
                    ) -> tuple[ApiToken, str]:
    """A member's new token for this workspace, audited; returns it with its raw value, which the
    caller shows once. The token acts with the member's role at each request, never more."""
    _members_lock(workspace)  # a removal at the same moment cannot miss the new token
    if not Membership.objects.filter(workspace=workspace, user=actor).exists():
        raise PermissionDenied("Only a member of the workspace creates tokens for it.")
    name = " ".join(name.split())
    if not name or len(name) > TOKEN_NAME_MAX:
        message = f"Give the token a name of 1 to {TOKEN_NAME_MAX} characters, e.g. what will use it."
        raise InvalidInput(message, fields={"name": [message]})
    now = timezone.now()
    if expires_at is not None and not now < expires_at <= now + TOKEN_LIFETIME_MAX:
        message = "The expiry must be in the future and within a year."
        raise InvalidInput(message, fields={"expires": [message]})
    # One working token per name and member: a form sent twice (a reload re-sends it) does not leave a
    # second live credential nobody saw. Revoked and expired tokens free their name.
    same = (ApiToken.objects.filter(workspace=workspace, user=actor, name=name, revoked_at__isnull=True)
            .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now)).first())
    if same is not None:
        message = (f"You already have a working token named “{name}” ({same.prefix}…), created "
                   f"{same.created_at:%Y-%m-%d %H:%M} UTC. Its value was shown once, when it was made; no second "
                   "token was created. Choose another name, or revoke that one first.")
        raise InvalidInput(message, fields={"name": [message]})
    token, raw = api_token_create(workspace=workspace, user=actor, name=name)
    if expires_at is not None:
        token.expires_at = expires_at
        token.save(update_fields=["expires_at"])
    expiry = f", expires {expires_at:%Y-%m-%d %H:%M} UTC" if expires_at else ", no expiry"
    audit_record(workspace=workspace, actor=actor, action=AuditAction.TOKEN_CREATED,
                 changes=[f"Token “{name}” ({token.prefix}…) for {actor.username}{expiry}"], before={},
                 after={"token": token.prefix, "name": name, "user": actor.username,
                        "expires_at": expires_at.isoformat() if expires_at else None})
    return token, raw


@transaction.atomic
def api_token_revoke(*, workspace: Workspace, actor, token: ApiToken) -> ApiToken:
    """Revoke a token at once: its user, or an owner of the workspace, may. Revoking a revoked
    token changes nothing."""
    actor_role = Membership.objects.filter(workspace=workspace, user=actor).values_list("role", flat=True).first()
    if token.workspace_id != workspace.pk:
        raise PermissionDenied("That token belongs to another workspace.")
    if token.user_id != actor.pk and actor_role != Role.OWNER:
        raise PermissionDenied("You can revoke only your own tokens; an owner can revoke anyone's.")
    token = ApiToken.objects.select_for_update().select_related("user").get(pk=token.pk)
    if token.revoked_at is not None:
        return token
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    audit_record(workspace=workspace, actor=actor, action=AuditAction.TOKEN_REVOKED,
                 changes=[f"Token “{token.name}” ({token.prefix}…) of {token.user.username} revoked"],
                 before={"token": token.prefix, "name": token.name, "user": token.user.username}, after={})
    return token
