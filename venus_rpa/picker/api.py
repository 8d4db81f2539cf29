"""REST API of the step picker. Owners and editors of the automation's workspace only: a
snapshot shows a signed-in page. Views parse input, call one service, shape output."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from venus_rpa.accounts.permissions import request_workspace, require_write
from venus_rpa.automations.selectors import automation_get
from venus_rpa.core.errors import Conflict
from venus_rpa.core.schema import ERROR_409
from venus_rpa.core.serializers import StrictSerializer
from venus_rpa.picker import selectors, services
from venus_rpa.picker.models import PickerSnapshot, PickerStatus

TARGET_HELP = ('A step target in the same syntax explicit steps use: {"text"} | {"label"} | {"role", "name"} | '
               '{"placeholder"}, optionally scoped with "within" (a heading, legend, landmark or dialog) or "near" '
               '(a visible text), or "nth" as a last resort. Null when nothing there can be targeted.')


class PickerStartSerializer(StrictSerializer):
    step = serializers.IntegerField(min_value=0, max_value=1000,
                                    help_text="0-based index of the step; the number of steps for a new last step.")
    kind = serializers.ChoiceField(choices=services.KINDS, required=False,
                                   help_text="The step's kind (default: the stored step's): what its target must do.")
    params = serializers.DictField(required=False, help_text="Values of parameters the steps before it use.")


class PickedSerializer(serializers.Serializer):
    target = serializers.JSONField(allow_null=True, help_text=TARGET_HELP)
    count = serializers.IntegerField(min_value=0, help_text="Elements the target matches now (1 is good).")
    why = serializers.CharField(help_text="Why this target, and what more than one match means.")
    describe = serializers.CharField(help_text="The element as a person sees it.")
    box = serializers.ListField(child=serializers.FloatField(), help_text="x, y, width, height in screenshot pixels.")


class ResolvedSerializer(PickedSerializer):
    alternatives = PickedSerializer(many=True, help_text="Elements around the point (enclosing ones first).")


class ElementSerializer(PickedSerializer):
    id = serializers.IntegerField()
    fits = serializers.BooleanField(help_text="Whether the step's kind can act on it (a fill needs a field).")
    also = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()),
                                 help_text="Boxes of its labels (a click there means the field).")


class SnapshotOutSerializer(serializers.ModelSerializer):
    status = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()
    screenshot = serializers.SerializerMethodField()
    elements = ElementSerializer(many=True)

    class Meta:
        model = PickerSnapshot
        fields = ["id", "step", "kind", "status", "error", "url", "width", "height", "screenshot", "elements",
                  "created_at", "finished_at", "expires_at"]

    def _lost(self, snapshot: PickerSnapshot) -> bool:
        limit = timedelta(seconds=settings.VENUS_PICKER_TIMEOUT_SECONDS + 120)
        return snapshot.status in (PickerStatus.QUEUED, PickerStatus.RUNNING) and timezone.now() - snapshot.created_at > limit

    def get_status(self, snapshot: PickerSnapshot) -> str:
        return PickerStatus.FAILED if self._lost(snapshot) else snapshot.status

    def get_error(self, snapshot: PickerSnapshot) -> str:
        if self._lost(snapshot):
            return "no worker finished the picker job in time: is a worker on the agent queue running?"
        return snapshot.error

    def get_screenshot(self, snapshot: PickerSnapshot) -> str | None:
        if snapshot.status != PickerStatus.READY:
            return None
        return reverse("picker-screenshot", args=[snapshot.automation.slug, snapshot.pk])


class PickerStartApi(APIView):
    @extend_schema(request=PickerStartSerializer, responses={202: SnapshotOutSerializer, 409: ERROR_409})
    def post(self, request, slug: str):
        """Start a picker snapshot: a worker opens the page the step acts on (after the steps before it)."""
        workspace = request_workspace(request)
        automation = automation_get(workspace=workspace, slug=slug)
        require_write(request, workspace)
        data = PickerStartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        snapshot = services.picker_start(automation=automation, user=request.user, step=data.validated_data["step"],
                                         kind=data.validated_data.get("kind", ""), params=data.validated_data.get("params"))
        return Response(SnapshotOutSerializer(snapshot).data, status=status.HTTP_202_ACCEPTED)


def _snapshot(request, slug: str, snapshot_id: int) -> PickerSnapshot:
    workspace = request_workspace(request)
    automation = automation_get(workspace=workspace, slug=slug)
    require_write(request, workspace)
    return selectors.picker_get(automation=automation, snapshot_id=snapshot_id)


class PickerDetailApi(APIView):
    @extend_schema(responses={200: SnapshotOutSerializer, 409: ERROR_409})
    def get(self, request, slug: str, snapshot_id: int):
        """The snapshot's status; once ready, its screenshot URL and element map."""
        return Response(SnapshotOutSerializer(_snapshot(request, slug, snapshot_id)).data)


class PickerScreenshotApi(APIView):
    @extend_schema(responses={(200, "image/jpeg"): OpenApiResponse(OpenApiTypes.BINARY), 409: ERROR_409})
    def get(self, request, slug: str, snapshot_id: int):
        """The snapshot's screenshot (JPEG, secrets masked as in runs)."""
        snapshot = _snapshot(request, slug, snapshot_id)
        data = selectors.picker_screenshot(snapshot=snapshot) if snapshot.status == PickerStatus.READY else b""
        if not data:
            raise Conflict(f"The snapshot is {snapshot.status}; it has no screenshot yet.")
        response = HttpResponse(data, content_type="image/jpeg")
        response["Cache-Control"] = "private, no-store"
        return response


class PickerResolveSerializer(StrictSerializer):
    x = serializers.FloatField(min_value=0, max_value=100000, help_text="Screenshot pixels from the left.")
    y = serializers.FloatField(min_value=0, max_value=100000, help_text="Screenshot pixels from the top.")


class PickerResolveApi(APIView):
    @extend_schema(request=PickerResolveSerializer, responses={200: ResolvedSerializer, 409: ERROR_409})
    def post(self, request, slug: str, snapshot_id: int):
        """The target for a click at (x, y): the smallest element there, its match count, alternatives."""
        snapshot = _snapshot(request, slug, snapshot_id)
        data = PickerResolveSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(services.picker_resolve(snapshot=snapshot, **data.validated_data))
