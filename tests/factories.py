"""factory_boy factories for the persona fixtures and tests."""

from __future__ import annotations

import functools

import factory
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password

from venus_rpa.accounts.models import Membership, Role, Workspace


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    @factory.post_generation
    def password(obj, create, extracted, **kwargs):
        obj.password = password_hash(extracted or "password", settings.PASSWORD_HASHERS[0])

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


@functools.cache
def password_hash(raw: str, hasher: str) -> str:
    """The hash production makes (PBKDF2 with Django's iterations, verified by test servers and workers
    as it would be in production), made once per password and hasher: each set_password costs about
    0.4 s of CPU, and the persona fixture alone makes four users for hundreds of tests."""
    return make_password(raw)


class WorkspaceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Workspace

    name = factory.Sequence(lambda n: f"Workspace {n}")
    slug = factory.Sequence(lambda n: f"ws-{n}")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    workspace = factory.SubFactory(WorkspaceFactory)
    user = factory.SubFactory(UserFactory)
    role = Role.EDITOR
