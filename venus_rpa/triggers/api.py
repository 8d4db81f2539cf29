"""REST API for schedules, webhook triggers and callbacks, and the public webhook endpoint.
Views parse input, call one service, shape output."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.debug import sensitive_variables
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from venus_rpa.accounts.permissions import request_workspace, require_write
from venus_rpa.automations.models import Automation
from venus_rpa.automations.selectors import automation_list
from venus_rpa.core.errors import InvalidInput, PayloadTooLarge
from venus_rpa.core.pagination import IdField, Pagination, SearchSerializer, paginated_response, search_words
from venus_rpa.core.schema import ERROR_409, ERROR_DESCRIPTIONS, ErrorSerializer
from venus_rpa.core.serializers import StrictSerializer
from venus_rpa.triggers import selectors, services, signing
from venus_rpa.triggers.models import (
    CallbackAttempt, CallbackDelivery, CallbackEndpoint, DeliveryStatus, Schedule, ScheduleFire, WebhookTrigger,
)


def _automation(workspace, slug: str | None) -> Automation | None:
    """The workspace's automation for a body field; a 400 on the field if there is none."""
    if slug is None:
        return None
    automation = automation_list(workspace=workspace).filter(slug=slug).first()
    if automation is None:
        raise InvalidInput("Unknown automation.", fields={"automation": [f"No automation {slug!r} in this workspace."]})
    return automation


# --- schedules ------------------------------------------------------------------------------------


SCHEDULE_NAME_HELP = (f"At most {services.schedules.NAME_MAX} characters (a longer name saved before that bound may "
                      "be sent back unchanged); no other schedule of the workspace may have it, in any letter case "
                      "(409, fields.name).")


class ScheduleInSerializer(StrictSerializer):
    automation = serializers.SlugField(max_length=80)
    name = serializers.CharField(max_length=200, help_text=SCHEDULE_NAME_HELP)  # the column; the service: NAME_MAX
    cron = serializers.CharField(max_length=200, help_text="minute hour day-of-month month day-of-week, or @daily…")
    timezone = serializers.CharField(max_length=64, default="UTC", help_text="IANA name, e.g. Europe/Berlin.")
    params = serializers.DictField(default=dict)
    enabled = serializers.BooleanField(default=True)


class ScheduleUpdateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200, required=False, help_text=SCHEDULE_NAME_HELP)
    cron = serializers.CharField(max_length=200, required=False)
    timezone = serializers.CharField(max_length=64, required=False)
    params = serializers.DictField(required=False)


class ScheduleOutSerializer(serializers.ModelSerializer):
    automation = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    next_fire_times = serializers.SerializerMethodField(help_text="The next 5 ticks in the schedule's time zone "
                                                                  "(empty while paused).")

    class Meta:
        model = Schedule
        fields = ["id", "name", "automation", "cron", "timezone", "params", "enabled", "next_fire_times",
                  "last_fired_at", "last_error", "created_at", "updated_at"]

    def get_next_fire_times(self, schedule: Schedule) -> list[str]:
        return [t.isoformat() for t in selectors.schedule_next_fire_times(schedule=schedule)]


class ScheduleFireOutSerializer(serializers.ModelSerializer):
    class Meta:
        model = ScheduleFire
        fields = ["fire_time", "run", "error"]


class ScheduleDetailOutSerializer(ScheduleOutSerializer):
    recent_fires = serializers.SerializerMethodField()

    class Meta(ScheduleOutSerializer.Meta):
        fields = ScheduleOutSerializer.Meta.fields + ["recent_fires"]

    def get_recent_fires(self, schedule: Schedule) -> list[dict]:
        return ScheduleFireOutSerializer(selectors.schedule_fire_list(schedule=schedule), many=True).data


class ScheduleListApi(APIView):
    pagination_class = Pagination

    @extend_schema(parameters=[SearchSerializer], responses=ScheduleOutSerializer(many=True))
    def get(self, request):
        schedules = selectors.schedule_list(workspace=request_workspace(request), search=search_words(request))
        return paginated_response(request=request, view=self, queryset=schedules,
                                  serialize=lambda page: ScheduleOutSerializer(page, many=True).data)

    @extend_schema(request=ScheduleInSerializer, responses={201: ScheduleDetailOutSerializer})
    def post(self, request):
        workspace = request_workspace(request)
        require_write(request, workspace)
        data = ScheduleInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        schedule = services.schedule_create(
            workspace=workspace, user=request.user, automation=_automation(workspace, values.pop("automation")),
            timezone_name=values.pop("timezone"), **values,
        )
        return Response(ScheduleDetailOutSerializer(schedule).data, status=status.HTTP_201_CREATED)


class ScheduleDetailApi(APIView):
    @extend_schema(responses=ScheduleDetailOutSerializer)
    def get(self, request, schedule_id: int):
        schedule = selectors.schedule_get(workspace=request_workspace(request), schedule_id=schedule_id)
        return Response(ScheduleDetailOutSerializer(schedule).data)

    @extend_schema(request=ScheduleUpdateSerializer, responses=ScheduleDetailOutSerializer)
    def patch(self, request, schedule_id: int):
        workspace = request_workspace(request)
        schedule = selectors.schedule_get(workspace=workspace, schedule_id=schedule_id)
        require_write(request, workspace)
        data = ScheduleUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        schedule = services.schedule_update(schedule=schedule, timezone_name=values.pop("timezone", None), **values)
        return Response(ScheduleDetailOutSerializer(schedule).data)

    @extend_schema(responses={204: None})
    def delete(self, request, schedule_id: int):
        workspace = request_workspace(request)
        schedule = selectors.schedule_get(workspace=workspace, schedule_id=schedule_id)
        require_write(request, workspace)
        services.schedule_delete(schedule=schedule, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class _ScheduleToggleApi(APIView):
    enabled: bool

    @extend_schema(request=None, responses=ScheduleDetailOutSerializer)
    def post(self, request, schedule_id: int):
        workspace = request_workspace(request)
        schedule = selectors.schedule_get(workspace=workspace, schedule_id=schedule_id)
        require_write(request, workspace)
        schedule = services.schedule_set_enabled(schedule=schedule, enabled=self.enabled)
        return Response(ScheduleDetailOutSerializer(schedule).data)


class SchedulePauseApi(_ScheduleToggleApi):
    enabled = False


class ScheduleResumeApi(_ScheduleToggleApi):
    enabled = True


# --- webhook triggers -----------------------------------------------------------------------------


class WebhookInSerializer(StrictSerializer):
    automation = serializers.SlugField(max_length=80)
    name = serializers.CharField(max_length=200)
    param_mapping = serializers.DictField(child=serializers.CharField(max_length=500), default=dict,
                                          help_text='{"param": "dot.path.in.body"}; empty: the body is the params.')
    enabled = serializers.BooleanField(default=True)


class WebhookUpdateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200, required=False)
    param_mapping = serializers.DictField(child=serializers.CharField(max_length=500), required=False)
    enabled = serializers.BooleanField(required=False)


class WebhookOutSerializer(serializers.ModelSerializer):
    """Never includes the secret."""

    automation = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    url = serializers.SerializerMethodField(help_text="Where to POST signed requests.")

    class Meta:
        model = WebhookTrigger
        fields = ["id", "name", "automation", "public_id", "url", "param_mapping", "enabled", "created_at",
                  "updated_at"]

    def get_url(self, trigger: WebhookTrigger) -> str:
        return settings.VENUS_PUBLIC_URL.rstrip("/") + reverse("webhook-receive", args=[trigger.public_id])


class WebhookWithSecretOutSerializer(WebhookOutSerializer):
    """Only in the answers to create and rotate-secret: the secret is shown this once."""

    secret = serializers.SerializerMethodField()

    class Meta(WebhookOutSerializer.Meta):
        fields = WebhookOutSerializer.Meta.fields + ["secret"]

    def get_secret(self, trigger: WebhookTrigger) -> str:
        return self.context["secret"]


class WebhookListApi(APIView):
    pagination_class = Pagination

    @extend_schema(parameters=[SearchSerializer], responses=WebhookOutSerializer(many=True))
    def get(self, request):
        triggers = selectors.webhook_trigger_list(workspace=request_workspace(request), search=search_words(request))
        return paginated_response(request=request, view=self, queryset=triggers,
                                  serialize=lambda page: WebhookOutSerializer(page, many=True).data)

    @extend_schema(request=WebhookInSerializer, responses={201: WebhookWithSecretOutSerializer})
    def post(self, request):
        workspace = request_workspace(request)
        require_write(request, workspace)
        data = WebhookInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        trigger, secret = services.webhook_trigger_create(
            workspace=workspace, user=request.user, automation=_automation(workspace, values.pop("automation")),
            **values,
        )
        return Response(WebhookWithSecretOutSerializer(trigger, context={"secret": secret}).data,
                        status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    @extend_schema(responses=WebhookOutSerializer)
    def get(self, request, trigger_id: int):
        trigger = selectors.webhook_trigger_get(workspace=request_workspace(request), trigger_id=trigger_id)
        return Response(WebhookOutSerializer(trigger).data)

    @extend_schema(request=WebhookUpdateSerializer, responses=WebhookOutSerializer)
    def patch(self, request, trigger_id: int):
        workspace = request_workspace(request)
        trigger = selectors.webhook_trigger_get(workspace=workspace, trigger_id=trigger_id)
        require_write(request, workspace)
        data = WebhookUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        trigger = services.webhook_trigger_update(trigger=trigger, **data.validated_data)
        return Response(WebhookOutSerializer(trigger).data)

    @extend_schema(responses={204: None})
    def delete(self, request, trigger_id: int):
        workspace = request_workspace(request)
        trigger = selectors.webhook_trigger_get(workspace=workspace, trigger_id=trigger_id)
        require_write(request, workspace)
        services.webhook_trigger_delete(trigger=trigger, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateSecretApi(APIView):
    @extend_schema(request=None, responses=WebhookWithSecretOutSerializer)
    def post(self, request, trigger_id: int):
        workspace = request_workspace(request)
        trigger = selectors.webhook_trigger_get(workspace=workspace, trigger_id=trigger_id)
        require_write(request, workspace)
        trigger, secret = services.webhook_trigger_rotate_secret(trigger=trigger)
        return Response(WebhookWithSecretOutSerializer(trigger, context={"secret": secret}).data)


class WebhookReceiveOutSerializer(serializers.Serializer):
    run_id = serializers.IntegerField()
    status = serializers.CharField()
    url = serializers.CharField(help_text="The run in the REST API.")


class WebhookReceiveApi(APIView):
    """`POST /hooks/<public_id>/`: unauthenticated and CSRF-exempt; the HMAC signature is the
    authentication (docs/webhooks.md). 202 with a new run, 200 with the run an earlier request
    with the same Idempotency-Key started."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        request={"application/json": {"type": "object", "description": "Any JSON object; its values become the "
                                      "run's params through the trigger's param_mapping."}},
        parameters=[
            OpenApiParameter(signing.SIGNATURE_HEADER, location=OpenApiParameter.HEADER, required=True,
                             description="sha256=<hex HMAC-SHA256 of timestamp.body> (docs/webhooks.md)."),
            OpenApiParameter(signing.TIMESTAMP_HEADER, location=OpenApiParameter.HEADER, required=True,
                             description="Unix seconds when the request was signed."),
            OpenApiParameter("Idempotency-Key", location=OpenApiParameter.HEADER, required=False,
                             description="Repeats with the same key return the first request's run (200)."),
        ],
        responses={202: WebhookReceiveOutSerializer, 200: WebhookReceiveOutSerializer,
                   **{code: OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[code])
                      for code in (400, 401, 404, 409, 413)},
                   503: OpenApiResponse(ErrorSerializer, description="The replay check is unavailable; retry.")},
    )
    @method_decorator(sensitive_variables())  # every frame below holds the decrypted signing secret
    def post(self, request, public_id: str):
        try:
            body = request.body
        except RequestDataTooBig:
            raise PayloadTooLarge("The body is too large.") from None
        run, created = services.webhook_receive(public_id=public_id, body=body, headers=request.headers)
        return Response(services.webhook_answer(run=run),
                        status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK)


# --- callbacks ------------------------------------------------------------------------------------


# The URL's rules are the service's (`callbacks._url_validate`), so the API and the dashboard agree.
CALLBACK_URL_HELP = ("http:// or https:// with a host name or IP address; no spaces, no user name or password; "
                     "at most 2000 characters; a public address unless the operator allows a private one.")


class CallbackInSerializer(StrictSerializer):
    url = serializers.CharField(help_text=CALLBACK_URL_HELP)  # bounded by the service, in its words
    automation = serializers.SlugField(max_length=80, required=False, allow_null=True, default=None,
                                       help_text="Only runs of this automation; null or absent: every automation.")
    enabled = serializers.BooleanField(default=True)


class CallbackUpdateSerializer(StrictSerializer):
    url = serializers.CharField(required=False, help_text=CALLBACK_URL_HELP)
    automation = serializers.SlugField(max_length=80, required=False, allow_null=True)
    enabled = serializers.BooleanField(required=False)


class CallbackOutSerializer(serializers.ModelSerializer):
    """Never includes the secret."""

    automation = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True,
                                              help_text="null: the endpoint hears every automation's runs.")

    class Meta:
        model = CallbackEndpoint
        fields = ["id", "url", "automation", "enabled", "created_at", "updated_at"]


class CallbackWithSecretOutSerializer(CallbackOutSerializer):
    secret = serializers.SerializerMethodField()

    class Meta(CallbackOutSerializer.Meta):
        fields = CallbackOutSerializer.Meta.fields + ["secret"]

    def get_secret(self, endpoint: CallbackEndpoint) -> str:
        return self.context["secret"]


class CallbackAttemptOutSerializer(serializers.ModelSerializer):
    class Meta:
        model = CallbackAttempt
        fields = ["at", "status_code", "error", "duration_ms"]


class CallbackDeliveryOutSerializer(serializers.ModelSerializer):
    attempt_log = CallbackAttemptOutSerializer(many=True, read_only=True)

    class Meta:
        model = CallbackDelivery
        fields = ["id", "endpoint", "run", "status", "attempts", "next_attempt_at", "last_status_code", "last_error",
                  "payload", "created_at", "delivered_at", "attempt_log"]


class CallbackListApi(APIView):
    pagination_class = Pagination

    @extend_schema(responses=CallbackOutSerializer(many=True))
    def get(self, request):
        endpoints = selectors.callback_endpoint_list(workspace=request_workspace(request))
        return paginated_response(request=request, view=self, queryset=endpoints,
                                  serialize=lambda page: CallbackOutSerializer(page, many=True).data)

    @extend_schema(request=CallbackInSerializer, responses={201: CallbackWithSecretOutSerializer})
    def post(self, request):
        workspace = request_workspace(request)
        require_write(request, workspace)
        data = CallbackInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        endpoint, secret = services.callback_endpoint_create(
            workspace=workspace, user=request.user, automation=_automation(workspace, values.pop("automation")),
            **values,
        )
        return Response(CallbackWithSecretOutSerializer(endpoint, context={"secret": secret}).data,
                        status=status.HTTP_201_CREATED)


class CallbackDetailApi(APIView):
    @extend_schema(responses=CallbackOutSerializer)
    def get(self, request, endpoint_id: int):
        endpoint = selectors.callback_endpoint_get(workspace=request_workspace(request), endpoint_id=endpoint_id)
        return Response(CallbackOutSerializer(endpoint).data)

    @extend_schema(request=CallbackUpdateSerializer, responses=CallbackOutSerializer)
    def patch(self, request, endpoint_id: int):
        workspace = request_workspace(request)
        endpoint = selectors.callback_endpoint_get(workspace=workspace, endpoint_id=endpoint_id)
        require_write(request, workspace)
        data = CallbackUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        if "automation" in values:
            values["automation"] = _automation(workspace, values["automation"])
        endpoint = services.callback_endpoint_update(endpoint=endpoint, **values)
        return Response(CallbackOutSerializer(endpoint).data)

    @extend_schema(responses={204: None})
    def delete(self, request, endpoint_id: int):
        workspace = request_workspace(request)
        endpoint = selectors.callback_endpoint_get(workspace=workspace, endpoint_id=endpoint_id)
        require_write(request, workspace)
        services.callback_endpoint_delete(endpoint=endpoint)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CallbackRotateSecretApi(APIView):
    @extend_schema(request=None, responses=CallbackWithSecretOutSerializer)
    def post(self, request, endpoint_id: int):
        workspace = request_workspace(request)
        endpoint = selectors.callback_endpoint_get(workspace=workspace, endpoint_id=endpoint_id)
        require_write(request, workspace)
        endpoint, secret = services.callback_endpoint_rotate_secret(endpoint=endpoint)
        return Response(CallbackWithSecretOutSerializer(endpoint, context={"secret": secret}).data)


class DeliveryFilterSerializer(serializers.Serializer):
    run = IdField(required=False)
    endpoint = IdField(required=False)
    status = serializers.ChoiceField(choices=DeliveryStatus.choices, required=False)


class CallbackDeliveryListApi(APIView):
    pagination_class = Pagination

    @extend_schema(parameters=[DeliveryFilterSerializer], responses=CallbackDeliveryOutSerializer(many=True))
    def get(self, request):
        filters = DeliveryFilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        deliveries = selectors.callback_delivery_list(
            workspace=request_workspace(request), run_id=filters.validated_data.get("run"),
            endpoint_id=filters.validated_data.get("endpoint"), status=filters.validated_data.get("status"),
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(deliveries, request, view=self)
        return paginator.get_paginated_response(CallbackDeliveryOutSerializer(page, many=True).data)


class CallbackDeliveryDetailApi(APIView):
    @extend_schema(responses=CallbackDeliveryOutSerializer)
    def get(self, request, delivery_id: int):
        delivery = selectors.callback_delivery_get(workspace=request_workspace(request), delivery_id=delivery_id)
        return Response(CallbackDeliveryOutSerializer(delivery).data)


class CallbackDeliveryResendApi(APIView):
    @extend_schema(request=None, responses={202: CallbackDeliveryOutSerializer, 409: ERROR_409})
    def post(self, request, delivery_id: int):
        workspace = request_workspace(request)
        delivery = selectors.callback_delivery_get(workspace=workspace, delivery_id=delivery_id)
        require_write(request, workspace)
        delivery = services.callback_delivery_resend(delivery=delivery)
        return Response(CallbackDeliveryOutSerializer(delivery).data, status=status.HTTP_202_ACCEPTED)
