"""REST API for runs: start, list, detail with steps, cancel."""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import UploadedFile
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from venus_rpa.accounts.permissions import request_workspace, require_write
from venus_rpa.automations.selectors import automation_get
from venus_rpa.core.bulk import BulkInSerializer, BulkOutSerializer
from venus_rpa.core.pagination import Pagination, SearchSerializer
from venus_rpa.core.schema import ERROR_409
from venus_rpa.core.serializers import StrictSerializer
from venus_rpa.core.parsers import json_error_text, json_loads_bounded
from venus_rpa.runs import items, reruns, run_files, selectors, services
from venus_rpa.runs.models import Artifact, Run, RunItem, RunStatus, Step, Trigger


class StepOutSerializer(serializers.ModelSerializer):
    screenshot = serializers.SerializerMethodField(help_text="The screen after the step (JPEG, secrets masked).")
    screenshot_before = serializers.SerializerMethodField(help_text=(
        "Clicks and key presses: the screen the step acted on, in which grounding.box (or x, y) marks its target; "
        "null for other steps."))
    replayed = serializers.BooleanField(read_only=True, allow_null=True, help_text=(
        "Agent turns: true when replayed from the replay cache without calling the model, false when the model "
        "reasoned it (model.replay says why: the drift, or why replay does not apply); null for other steps."))

    class Meta:
        model = Step
        fields = ["index", "kind", "name", "status", "error", "thought", "action", "grounding", "output", "url",
                  "screenshot", "screenshot_before", "started_at", "act_ms", "observe_ms", "model_ms", "model", "item",
                  "called_in", "replayed"]

    def get_screenshot(self, step: Step) -> str | None:
        return self._url(step.screenshot)

    def get_screenshot_before(self, step: Step) -> str | None:
        return self._url(step.screenshot_before)

    def _url(self, stored) -> str | None:
        if not stored:
            return None
        request = self.context.get("request")
        return request.build_absolute_uri(stored.url) if request else stored.url


QUEUE_POSITION_HELP = (
    "For a queued run: its place in its workspace's queue (1 = admitted next; runs are admitted oldest "
    "first, fairly across workspaces, while the workspace is under its concurrency limit); 0 once it has "
    "been admitted and waits for a worker thread. Null once the run has started or ended.")
QUEUED_FOR_HELP = (
    "Seconds the run waited before a worker started it: so far while queued, until it started, or until "
    "it ended if it never started. Null for a run with no start recorded that is past the queue.")


class RunOutSerializer(serializers.ModelSerializer):
    automation = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    version = serializers.IntegerField(source="version.number")
    queue_position = serializers.SerializerMethodField()
    queued_for_s = serializers.FloatField(read_only=True, allow_null=True, min_value=0, help_text=QUEUED_FOR_HELP)
    retry_of = serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True,
                                                  help_text="The run whose parameters this retry or re-run reused.")

    class Meta:
        model = Run
        fields = ["id", "automation", "version", "status", "status_reason", "params", "output", "verdict", "trigger",
                  "question", "answer", "question_asked_at", "queue_position", "queued_for_s", "retry_of",
                  "created_at", "started_at", "finished_at", "heartbeat_at", "cancel_requested_at"]

    @extend_schema_field(serializers.IntegerField(allow_null=True, min_value=0, help_text=QUEUE_POSITION_HELP))
    def get_queue_position(self, run: Run) -> int | None:
        if run.status != RunStatus.QUEUED:
            return None
        position = getattr(run, "queue_position", None)  # annotated by the list and detail selectors
        return position if position is not None else selectors.run_queue_position(run=run)


class ArtifactOutSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField(help_text="Download address (members of the workspace only; always "
                                                      "served as an attachment).")
    size = serializers.SerializerMethodField()
    type = serializers.SerializerMethodField(help_text="The type read from the file's bytes (text, xlsx, pdf, …).")
    flag = serializers.SerializerMethodField(help_text="Why the file deserves a look (its name claims another "
                                                       "type than its bytes), or null.")

    class Meta:
        model = Artifact
        fields = ["id", "name", "kind", "url", "size", "type", "flag", "data", "created_at"]

    def get_type(self, artifact: Artifact) -> str | None:
        return artifact.data.get("type")

    def get_flag(self, artifact: Artifact) -> str | None:
        return artifact.data.get("flag")

    def get_url(self, artifact: Artifact) -> str | None:
        if not artifact.file:
            return None
        request = self.context.get("request")
        return request.build_absolute_uri(artifact.file.url) if request else artifact.file.url

    def get_size(self, artifact: Artifact) -> int | None:
        try:
            return artifact.file.size if artifact.file else None
        except FileNotFoundError:
            return None


class RunDetailOutSerializer(RunOutSerializer):
    retries = serializers.PrimaryKeyRelatedField(many=True, read_only=True,
                                                 help_text="Runs started as retries or re-runs of this one.")
    items_summary = serializers.SerializerMethodField(
        help_text="For a run with items: how many are in each status, and retried (null otherwise). "
                  "The items themselves: GET /api/runs/{id}/items/.")
    steps = StepOutSerializer(many=True, read_only=True)
    artifacts = ArtifactOutSerializer(many=True, read_only=True,
                                      help_text="Files of the run: downloads its steps kept and files a desktop run "
                                                "saved (kind file), files given at launch (kind input).")

    class Meta(RunOutSerializer.Meta):
        fields = RunOutSerializer.Meta.fields + ["retries", "items_summary", "steps", "artifacts"]

    @extend_schema_field(serializers.DictField(child=serializers.IntegerField(), allow_null=True))
    def get_items_summary(self, run: Run) -> dict | None:
        return items.run_items_summary(run=run) if run.item_columns or run.items.exists() else None


ITEMS_HELP = ("For an automation with a for_each block: its items, a JSON array of flat objects "
              "(one per item; field names as used in {{item.FIELD}}). Or give items_file instead.")
ITEMS_FILE_HELP = ("A CSV or XLSX sheet of items, base64-encoded in a JSON body, or a file part in a multipart/form-data "
                   "body (then params, if any, is a JSON text). The first row names the fields. The kind is read from "
                   "the bytes, not the name; size and rows are capped (docs/workflows.md).")


@extend_schema_field(serializers.CharField(help_text=ITEMS_FILE_HELP))
class ItemsFileField(serializers.Field):
    """Base64 text (JSON body) or an uploaded file (multipart), read to bytes."""

    def to_internal_value(self, data):
        if isinstance(data, UploadedFile):
            limit = items.limits().file_bytes
            if data.size is not None and data.size > limit:
                raise serializers.ValidationError(f"The file is {data.size:,} bytes; at most {limit:,} are accepted.")
            return items.ItemsInput(file=data.read(limit + 1), field="items_file")
        if isinstance(data, str):
            return items.ItemsInput.from_base64(data)
        raise serializers.ValidationError("Must be a base64 text or an uploaded file.")


@extend_schema_field(serializers.DictField())
class ParamsField(serializers.Field):
    """An object; in a form body (multipart/form-data), the object as JSON text. In a JSON body a
    text is not parsed again: it is a value that is not an object."""

    def to_internal_value(self, data):
        if isinstance(data, str) and self.context.get("form_body"):
            try:
                data = json_loads_bounded(data)
            except ValueError as exc:
                raise serializers.ValidationError(f"Not valid JSON: {json_error_text(exc)}") from None
        if not isinstance(data, dict):
            raise serializers.ValidationError(services.PARAMS_NOT_OBJECT)
        return data


FILES_HELP = ("The input files the automation's upload steps take (from_input), by name: "
              '{"receipt": {"name": "receipt.pdf", "content": "<base64>"}} in a JSON body, or a file part named '
              "files.receipt in a multipart/form-data body. Each is required, at most VENUS_INPUT_FILE_MAX_BYTES, "
              "its type read from its bytes (programs are refused).")


@extend_schema_field(serializers.DictField(help_text=FILES_HELP))
class InputFilesField(serializers.Field):
    """Input files by name: base64 objects (JSON body); multipart parts are taken by `given_files`."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError('Must be an object: {"NAME": {"name": "…", "content": "<base64>"}}.')
        return {str(key): run_files.GivenFile.from_json(str(key), value) for key, value in data.items()}


FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")  # their fields are all text


class RunStartSerializer(StrictSerializer):
    params = ParamsField(required=False, default=dict)
    items = serializers.JSONField(required=False, help_text=ITEMS_HELP)
    items_file = ItemsFileField(required=False)
    files = InputFilesField(required=False)

    def validate(self, attrs):
        if "items" in attrs and "items_file" in attrs:
            raise serializers.ValidationError({"items_file": ["Give items or items_file, not both."]})
        return attrs


def split_file_parts(request) -> tuple[Any, dict[str, run_files.GivenFile]]:
    """A multipart body's `files.NAME` parts taken out of the request's data (read up to the
    limit plus one byte: a larger file is refused by its size)."""
    parts = {key: upload for key, upload in request.FILES.items() if key.startswith("files.")}
    if not parts:
        return request.data, {}
    data = {key: request.data.get(key) for key in request.data if key not in parts}
    limit = run_files.max_bytes()
    return data, {key[len("files."):]: run_files.GivenFile(upload.name or key[6:], upload.read(limit + 1))
                  for key, upload in parts.items()}


def given_items(data: dict) -> items.ItemsInput | None:
    if "items_file" in data:
        return data["items_file"]
    return items.ItemsInput(array=data["items"]) if "items" in data else None


class RunStartApi(APIView):
    @extend_schema(request={"application/json": RunStartSerializer, "multipart/form-data": RunStartSerializer},
                   responses={202: RunOutSerializer, 409: ERROR_409})
    def post(self, request, slug: str):
        workspace = request_workspace(request)
        automation = automation_get(workspace=workspace, slug=slug)
        require_write(request, workspace)
        body, parts = split_file_parts(request)
        data = RunStartSerializer(data=body, context={"form_body": request.content_type.startswith(FORM_TYPES)})
        data.is_valid(raise_exception=True)
        files = {**data.validated_data.get("files", {}), **parts}
        run = services.run_start(automation=automation, params=data.validated_data["params"], user=request.user,
                                 trigger=Trigger.API, items=given_items(data.validated_data), files=files)
        return Response(RunOutSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class RunFilterSerializer(SearchSerializer):
    status = serializers.ChoiceField(choices=RunStatus.choices, required=False)
    automation = serializers.SlugField(max_length=80, required=False, help_text="The automation's slug.")
    trigger = serializers.ChoiceField(choices=Trigger.choices, required=False)
    needs_a_look = serializers.BooleanField(required=False, allow_null=True, default=None,
                                            help_text="Only runs whose judges or criteria disagree (true), or the others (false).")


class RunListApi(APIView):
    pagination_class = Pagination

    @extend_schema(parameters=[RunFilterSerializer], responses=RunOutSerializer(many=True))
    def get(self, request):
        filters = RunFilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        runs = selectors.run_list(
            workspace=request_workspace(request), status=filters.validated_data.get("status"),
            automation_slug=filters.validated_data.get("automation"), trigger=filters.validated_data.get("trigger"),
            search=filters.validated_data.get("q", ""),
        )
        look = filters.validated_data.get("needs_a_look")
        if look is not None:
            runs = runs.filter(verdict__needs_a_look=True) if look else runs.exclude(verdict__needs_a_look=True)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(runs, request, view=self)
        return paginator.get_paginated_response(RunOutSerializer(page, many=True).data)


class RunDetailApi(APIView):
    @extend_schema(responses=RunDetailOutSerializer)
    def get(self, request, run_id: int):
        run = selectors.run_get(workspace=request_workspace(request), run_id=run_id)
        return Response(RunDetailOutSerializer(run, context={"request": request}).data)


class RunCancelApi(APIView):
    @extend_schema(request=None, responses={200: RunOutSerializer, 409: ERROR_409})
    def post(self, request, run_id: int):
        workspace = request_workspace(request)
        run = selectors.run_get(workspace=workspace, run_id=run_id)
        require_write(request, workspace)
        return Response(RunOutSerializer(services.run_cancel(run=run, user=request.user)).data)


class RunAnswerSerializer(StrictSerializer):
    answer = serializers.CharField(max_length=5000)


class RunAnswerApi(APIView):
    """Answer the agent's question (CallUser) of a run that is awaiting_user."""

    @extend_schema(request=RunAnswerSerializer, responses={200: RunOutSerializer, 409: ERROR_409})
    def post(self, request, run_id: int):
        workspace = request_workspace(request)
        run = selectors.run_get(workspace=workspace, run_id=run_id)
        require_write(request, workspace)
        data = RunAnswerSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(RunOutSerializer(services.run_answer(run=run, answer=data.validated_data["answer"])).data)


class RunRetryApi(APIView):
    """Retry (a failed, cancelled or timed-out run) or re-run (a succeeded one) with the same
    parameters: a new run of the current version, linked by `retry_of`. Owner or editor."""

    @extend_schema(request=None, responses={202: RunOutSerializer, 409: ERROR_409})
    def post(self, request, run_id: int):
        workspace = request_workspace(request)
        run = selectors.run_get(workspace=workspace, run_id=run_id)
        require_write(request, workspace)
        new = reruns.run_rerun(run=run, user=request.user, trigger=Trigger.API)
        return Response(RunOutSerializer(new).data, status=status.HTTP_202_ACCEPTED)


class RunItemOutSerializer(serializers.ModelSerializer):
    retried_in = serializers.SerializerMethodField(help_text="The run that retries this item, if it was retried.")
    retry_of = serializers.SerializerMethodField(help_text="The run whose item this one retries.")

    class Meta:
        model = RunItem
        fields = ["number", "of", "status", "error", "data", "output", "started_at", "finished_at", "retried_in",
                  "retry_of"]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_retried_in(self, item: RunItem) -> int | None:
        retry = getattr(item, "retry", None)
        return retry.run_id if retry is not None else None

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_retry_of(self, item: RunItem) -> int | None:
        return item.retry_of.run_id if item.retry_of_id else None


class RunItemsOutSerializer(serializers.Serializer):
    summary = serializers.DictField(child=serializers.IntegerField(), help_text="Items by status, and retried.")
    items = RunItemOutSerializer(many=True)


class RunItemsApi(APIView):
    """The items of a run with items: each one's status, error, fields and output."""

    @extend_schema(responses=RunItemsOutSerializer)
    def get(self, request, run_id: int):
        run = selectors.run_get(workspace=request_workspace(request), run_id=run_id)
        listed = items.run_items_list(run=run).select_related("retry_of")
        return Response(RunItemsOutSerializer({"summary": items.run_items_summary(run=run), "items": listed}).data)


class RunItemsRetrySerializer(StrictSerializer):
    changes = serializers.DictField(child=serializers.DictField(), required=False, help_text=(
        'Corrections by item number: {"7": {"amount": "12.50"}}, merged into the retried items\' data.'))
    items_file = ItemsFileField(required=False, help_text="The whole sheet again, fixed (rows matched by position).")

    def validate_changes(self, value):
        try:
            return {int(number): fields for number, fields in value.items()}
        except ValueError:
            raise serializers.ValidationError("Keys are item numbers.") from None


class RunItemsRetryApi(APIView):
    """Retry the failed items of a finished run (and those it never reached) in a new run;
    succeeded and skipped items are never run again. Owner or editor."""

    @extend_schema(request={"application/json": RunItemsRetrySerializer,
                            "multipart/form-data": RunItemsRetrySerializer},
                   responses={202: RunOutSerializer, 409: ERROR_409})
    def post(self, request, run_id: int):
        workspace = request_workspace(request)
        run = selectors.run_get(workspace=workspace, run_id=run_id)
        require_write(request, workspace)
        data = RunItemsRetrySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        new = reruns.run_items_retry(run=run, user=request.user, trigger=Trigger.API,
                                     corrected=data.validated_data.get("items_file"),
                                     changes=data.validated_data.get("changes"))
        return Response(RunOutSerializer(new).data, status=status.HTTP_202_ACCEPTED)


class RunItemsExportApi(APIView):
    """The run's per-item results as a CSV or XLSX file (cells that a spreadsheet would take for a
    formula start with an apostrophe)."""

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.BINARY,
                              (200, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"):
                                  OpenApiTypes.BINARY})
    def get(self, request, run_id: int, fmt: str):
        run = selectors.run_get(workspace=request_workspace(request), run_id=run_id)
        return items_download(run, fmt)


def items_download(run: Run, fmt: str) -> HttpResponse:
    """The items file of a run the caller may see (the dashboard's download uses it too)."""
    if fmt not in ("csv", "xlsx"):
        raise NotFound("Results download as items.csv or items.xlsx.")
    content, content_type, filename = items.run_items_export(run=run, fmt=fmt)
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


class RunBulkInSerializer(BulkInSerializer):
    action = serializers.ChoiceField(choices=["cancel", "retry"])


class RunBulkApi(APIView):
    """Cancel or retry several runs: one result per id, in order (an id of another workspace is
    reported as not found). Owner or editor."""

    @extend_schema(request=RunBulkInSerializer, responses={200: BulkOutSerializer})
    def post(self, request):
        workspace = request_workspace(request)
        require_write(request, workspace)
        data = RunBulkInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        act = reruns.runs_bulk_cancel if data.validated_data["action"] == "cancel" else reruns.runs_bulk_retry
        results = act(workspace=workspace, ids=data.validated_data["ids"], user=request.user)
        return Response(BulkOutSerializer({"results": results}).data)
