"""Who may lower an automation's safety review, and how a lowering is recorded.

Raising review (more categories reviewed or blocked, fewer pre-approvals) is an ordinary edit.
Lowering it (fewer categories reviewed or blocked, a new or broader pre-approval, rejected steps
skipped instead of failing the run, navigation out of the allowed domains no longer blocked,
credential sign-ins pre-approved) needs the owner or reviewer role: the people who may approve
consequential actions decide which ones need no approval. Every lowering is recorded in the
workspace audit log and called out in the version diff.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from venus_rpa.accounts.models import Role, Workspace
from venus_rpa.accounts.selectors import membership_get
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.core.errors import PermissionDenied
from workers.automation_settings import SafetySettings
from workers.gates.safety import PreApproval

# Roles that may lower review: those that may approve consequential actions.
POLICY_ROLES = {Role.OWNER, Role.REVIEWER}


def _settings(safety: dict[str, Any] | None) -> SafetySettings | None:
    try:
        return SafetySettings.model_validate(safety or {})
    except ValidationError:
        return None  # an invalid stored/posted policy: the definition validator reports it


def _covers(wide: PreApproval, narrow: PreApproval) -> bool:
    """Whether `wide` already pre-approves everything `narrow` does."""
    if wide.category != narrow.category:
        return False
    if wide.phrase and not (narrow.phrase and wide.phrase.lower() in narrow.phrase.lower()):
        return False
    return wide.max_amount is None or (narrow.max_amount is not None and narrow.max_amount <= wide.max_amount)


def _describe(approval: PreApproval) -> str:
    text = approval.category
    if approval.phrase:
        text += f" where {approval.phrase!r} appears"
    if approval.max_amount is not None:
        text += f" up to {approval.max_amount:g}"
    return text


def safety_lowerings(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[str]:
    """What `after` lets through that `before` did not, in words (empty: nothing is lowered).
    A new automation is compared with the default policy (everything reviewed)."""
    old, new = _settings(before), _settings(after)
    if old is None or new is None:
        return []
    out: list[str] = []
    if dropped := [c for c in old.review if c not in new.review]:
        out.append(f"no longer reviews {', '.join(dropped)}")
    old_approvals = [PreApproval.model_validate(a) for a in old.pre_approved]
    added = [a for a in (PreApproval.model_validate(x) for x in new.pre_approved)
             if not any(_covers(o, a) for o in old_approvals)]
    if added:
        out.append(f"pre-approves {'; '.join(_describe(a) for a in added)}")
    if unblocked := [c for c in old.blocked if c not in new.blocked]:
        out.append(f"no longer blocks {', '.join(unblocked)}")
    if old.on_reject == "fail" and new.on_reject == "skip":
        out.append("a rejected step is skipped instead of failing the run")
    if old.block_nav_out and not new.block_nav_out:
        out.append("leaving the allowed domains is reviewed instead of blocked")
    if not old.credential_sign_in and new.credential_sign_in:
        out.append("signing in with the automation's credentials is pre-approved")
    return out


def safety_change_authorize(*, workspace: Workspace, user, automation, before: dict[str, Any] | None,
                            after: dict[str, Any] | None) -> list[str]:
    """Refuse (PermissionDenied, 403, field `safety`) a lowering by anyone but an owner or reviewer;
    return the lowerings (empty when review is kept or raised). `user` None is the system (seed
    and management commands), which may. `automation` None: a new automation, compared with the
    default policy."""
    lowered = safety_lowerings(before, after)
    if not lowered or user is None:
        return lowered
    membership = membership_get(user=user, workspace=workspace)
    if membership is None or membership.role not in POLICY_ROLES:
        message = ("Only an owner or a reviewer may lower safety review; this change "
                   f"{'; '.join(lowered)}. Ask one of them to make it, or keep the current policy.")
        raise PermissionDenied(message, fields={"safety": [message]})
    return lowered


def safety_change_record(*, user, automation, version, before: dict[str, Any] | None, lowered: list[str]) -> None:
    """Write the audit event of a lowering saved as `version`."""
    if not lowered:
        return
    audit_record(workspace=automation.workspace, actor=user, action=AuditAction.SAFETY_LOWERED,
                 automation=automation, version_number=version.number, changes=lowered,
                 before={"safety": before or {}}, after={"safety": version.safety})
