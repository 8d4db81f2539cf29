"""REST API of the Android device registry: list and register (owners), read, change, remove."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from venus_rpa.accounts.models import Role
from venus_rpa.accounts.permissions import request_workspace, require_role
from venus_rpa.core.pagination import Pagination, paginated_response
from venus_rpa.core.serializers import StrictSerializer
from venus_rpa.devices import selectors, services
from venus_rpa.devices.models import AndroidDevice

OWNER_ONLY = "Devices are managed by the workspace's owners."


class DeviceOutSerializer(serializers.ModelSerializer):
    serial = serializers.CharField(source="resource.key")
    status = serializers.CharField(source="resource.status", help_text="available, offline or disabled.")
    tags = serializers.JSONField(source="resource.tags")
    last_seen = serializers.DateTimeField(source="resource.last_seen", allow_null=True)
    shared = serializers.SerializerMethodField(help_text="Registered by the operator for every workspace.")
    leased = serializers.BooleanField(read_only=True, help_text="A run holds the device now.")

    class Meta:
        model = AndroidDevice
        fields = ["id", "serial", "adb_host", "adb_port", "status", "status_reason", "tags", "apps", "model",
                  "last_seen", "shared", "leased"]

    def get_shared(self, device: AndroidDevice) -> bool:
        return device.resource.workspace_id is None


class DeviceInSerializer(StrictSerializer):
    serial = serializers.CharField(max_length=200)
    adb_host = serializers.CharField(max_length=255, default="127.0.0.1")
    adb_port = serializers.IntegerField(min_value=1, max_value=65535, default=5037)
    tags = serializers.DictField(required=False, default=dict)
    apps = serializers.DictField(child=serializers.CharField(max_length=300), required=False, default=dict)


class DeviceUpdateSerializer(StrictSerializer):
    adb_host = serializers.CharField(max_length=255, required=False)
    adb_port = serializers.IntegerField(min_value=1, max_value=65535, required=False)
    tags = serializers.DictField(required=False)
    apps = serializers.DictField(child=serializers.CharField(max_length=300), required=False)
    status = serializers.ChoiceField(choices=["available", "disabled"], required=False)


class DeviceListApi(APIView):
    pagination_class = Pagination

    @extend_schema(responses=DeviceOutSerializer(many=True))
    def get(self, request):
        devices = selectors.device_list(workspace=request_workspace(request))
        return paginated_response(request=request, view=self, queryset=devices,
                                  serialize=lambda page: DeviceOutSerializer(page, many=True).data)

    @extend_schema(request=DeviceInSerializer, responses={201: DeviceOutSerializer})
    def post(self, request):
        workspace = request_workspace(request)
        require_role(request, workspace, [Role.OWNER], OWNER_ONLY)
        data = DeviceInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        device = services.device_register(workspace=workspace, **data.validated_data)
        device = selectors.device_get(workspace=workspace, device_id=device.pk)
        return Response(DeviceOutSerializer(device).data, status=status.HTTP_201_CREATED)


class DeviceDetailApi(APIView):
    @extend_schema(responses=DeviceOutSerializer)
    def get(self, request, device_id: int):
        return Response(DeviceOutSerializer(selectors.device_get(workspace=request_workspace(request),
                                                                 device_id=device_id)).data)

    @extend_schema(request=DeviceUpdateSerializer, responses=DeviceOutSerializer)
    def patch(self, request, device_id: int):
        workspace = request_workspace(request)
        require_role(request, workspace, [Role.OWNER], OWNER_ONLY)
        device = selectors.device_get(workspace=workspace, device_id=device_id, own=True)
        data = DeviceUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        services.device_update(device=device, **data.validated_data)
        return Response(DeviceOutSerializer(selectors.device_get(workspace=workspace, device_id=device_id)).data)

    @extend_schema(responses={204: None})
    def delete(self, request, device_id: int):
        workspace = request_workspace(request)
        require_role(request, workspace, [Role.OWNER], OWNER_ONLY)
        services.device_remove(device=selectors.device_get(workspace=workspace, device_id=device_id, own=True))
        return Response(status=status.HTTP_204_NO_CONTENT)
