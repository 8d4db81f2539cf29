"""REST API for trajectory export: GET streams a zip of the workspace's finished runs."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.views import APIView

from venus_rpa.accounts.permissions import request_workspace, require_role
from venus_rpa.core.streaming import streamed
from venus_rpa.datasets import services
from venus_rpa.datasets.spec import ExportFilter


class ExportFilterSerializer(serializers.Serializer):
    automation = serializers.SlugField(max_length=80, required=False, help_text="The automation's slug.")
    verdict = serializers.ChoiceField(choices=["passed", "failed"], required=False,
                                      help_text="passed: success criteria met; failed: not met or the run did not succeed.")
    surface = serializers.ChoiceField(choices=["web", "android", "desktop"], required=False)
    date_from = serializers.DateField(required=False, help_text="Runs created on or after this date.")
    date_to = serializers.DateField(required=False, help_text="Runs created on or before this date.")

    def validate(self, attrs):
        if attrs.get("date_from") and attrs.get("date_to") and attrs["date_from"] > attrs["date_to"]:
            raise serializers.ValidationError({"date_to": ["date_to is before date_from."]})
        return attrs


class TrajectoryExportApi(APIView):
    """The workspace's finished runs as a UI-Venus trajectory dataset (zip, streamed; docs/datasets.md).
    Owners only."""

    @extend_schema(parameters=[ExportFilterSerializer],
                   responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="The dataset zip.")})
    def get(self, request):
        workspace = request_workspace(request)
        require_role(request, workspace, services.EXPORT_ROLES, "Exporting trajectories needs the owner role.")
        filters = ExportFilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        spec = ExportFilter(**filters.validated_data)
        chunks = services.export_zip_stream(workspace=workspace, spec=spec)
        response = StreamingHttpResponse(streamed(request, chunks), content_type="application/zip")
        name = f"trajectories-{workspace.slug}-{timezone.now():%Y%m%d-%H%M%S}.zip"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        response["Cache-Control"] = "no-store"
        return response
