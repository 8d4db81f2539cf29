"""REST API for the caller's workspace and its settings (today: the run concurrency limit)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from venus_rpa.accounts.models import Role, Workspace
from venus_rpa.accounts.permissions import request_workspace, require_role
from venus_rpa.core.serializers import StrictSerializer
from venus_rpa.runs import admission, selectors as run_selectors, services as run_services

OWNER_ONLY = "Only an owner of the workspace changes its settings."


class WorkspaceOutSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.SlugField()
    max_concurrent_runs = serializers.IntegerField(
        allow_null=True, min_value=1,
        help_text="The owner's limit on how many of the workspace's runs hold a worker slot at once; null: the "
                  "platform default.")
    effective_max_concurrent_runs = serializers.IntegerField(min_value=1, help_text="The limit in force.")
    default_max_concurrent_runs = serializers.IntegerField(min_value=1, help_text="The platform default.")
    runs_active = serializers.IntegerField(min_value=0, help_text="Runs holding a slot now (admitted, running, "
                                                                  "or waiting for a person while held).")
    runs_waiting = serializers.IntegerField(min_value=0, help_text="Queued runs waiting for a slot.")


class WorkspaceUpdateSerializer(StrictSerializer):
    max_concurrent_runs = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=settings.VENUS_RUNS_PER_WORKSPACE_MAX,
        help_text="How many of the workspace's runs may hold a worker slot at once; further runs wait their "
                  "turn in the queue. null: the platform default.")


def _out(workspace: Workspace) -> dict:
    load = run_selectors.workspace_run_load(workspace=workspace)
    return {"name": workspace.name, "slug": workspace.slug, "max_concurrent_runs": workspace.max_concurrent_runs,
            "effective_max_concurrent_runs": admission.workspace_run_limit(workspace=workspace),
            "default_max_concurrent_runs": settings.VENUS_RUNS_PER_WORKSPACE,
            "runs_active": load["active"], "runs_waiting": load["waiting"]}


class WorkspaceApi(APIView):
    """The caller's workspace: any member reads it; only owners change its settings."""

    @extend_schema(responses=WorkspaceOutSerializer)
    def get(self, request):
        return Response(WorkspaceOutSerializer(_out(request_workspace(request))).data)

    @extend_schema(request=WorkspaceUpdateSerializer, responses=WorkspaceOutSerializer)
    def patch(self, request):
        workspace = request_workspace(request)
        require_role(request, workspace, {Role.OWNER}, OWNER_ONLY)
        data = WorkspaceUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if "max_concurrent_runs" in data.validated_data:
            workspace = run_services.workspace_run_limit_set(
                workspace=workspace, max_concurrent_runs=data.validated_data["max_concurrent_runs"])
        return Response(WorkspaceOutSerializer(_out(workspace)).data)
