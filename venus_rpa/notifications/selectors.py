"""Reads for notifications."""

from __future__ import annotations

from django.db.models import QuerySet

from venus_rpa.accounts.models import Workspace
from venus_rpa.notifications.models import Notice, NotificationSettings


def notification_settings_get(*, workspace: Workspace, user) -> NotificationSettings:
    """The member's saved channels, or the defaults (all off), unsaved."""
    return (NotificationSettings.objects.filter(workspace=workspace, user=user).first()
            or NotificationSettings(workspace=workspace, user=user))


def notice_list(*, workspace: Workspace, user) -> QuerySet[Notice]:
    """The member's own notices in the workspace, newest first."""
    return Notice.objects.filter(workspace=workspace, user=user).select_related("review", "review__run__automation")
