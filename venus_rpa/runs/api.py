"""REST API for runs: start, list, detail with steps, cancel."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from venus_rpa.accounts.permissions import request_workspace, require_write
from venus_rpa.automations.selectors import automation_get
from venus_rpa.core.bulk import BulkInSerializer, BulkOutSerializer
from venus_rpa.core.pagination import Pagination, SearchSerializer
from venus_rpa.core.schema import ERROR_409
from venus_rpa.core.serializers import StrictSerializer
from venus_rpa.runs import reruns, selectors, services
from venus_rpa.runs.models import Artifact, Run, RunStatus, Step, Trigger


class StepOutSerializer(serializers.ModelSerializer):
    screenshot = serializers.SerializerMethodField()
    replayed = serializers.BooleanField(read_only=True, allow_null=True, help_text=(
        "Agent turns: true when replayed from the replay cache without calling the model, false when the model "
        "reasoned it (model.replay says why: the drift, or why replay does not apply); null for other steps."))

    class Meta:
        model = Step
        fields = ["index", "kind", "name", "status", "error", "thought", "action", "grounding", "output", "url",
                  "screenshot", "started_at", "act_ms", "observe_ms", "model_ms", "model", "replayed"]

    def get_screenshot(self, step: Step) -> str | None:
        if not step.screenshot:
            return None
        request = self.context.get("request")
        return request.build_absolute_uri(step.screenshot.url) if request else step.screenshot.url


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
    url = serializers.SerializerMethodField()
    size = serializers.SerializerMethodField()

    class Meta:
        model = Artifact
        fields = ["name", "kind", "url", "size", "data", "created_at"]

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
    steps = StepOutSerializer(many=True, read_only=True)
    artifacts = ArtifactOutSerializer(many=True, read_only=True,
                                      help_text="Files the run produced (e.g. the spreadsheet a desktop run saved).")

    class Meta(RunOutSerializer.Meta):
        fields = RunOutSerializer.Meta.fields + ["retries", "steps", "artifacts"]


class RunStartSerializer(StrictSerializer):
    params = serializers.DictField(required=False, default=dict)


class RunStartApi(APIView):
    @extend_schema(request=RunStartSerializer, responses={202: RunOutSerializer, 409: ERROR_409})
    def post(self, request, slug: str):
        workspace = request_workspace(request)
        automation = automation_get(workspace=workspace, slug=slug)
        require_write(request, workspace)
        data = RunStartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = services.run_start(automation=automation, params=data.validated_data["params"], user=request.user,
                                 trigger=Trigger.API)
        return Response(RunOutSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class RunFilterSerializer(SearchSerializer):
    status = serializers.ChoiceField(choices=RunStatus.choices, required=False)
    automation = serializers.SlugField(max_length=80, required=False, help_text="The automation's slug.")
    trigger = serializers.ChoiceField(choices=Trigger.choices, required=False)


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
        return Response(RunOutSerializer(services.run_cancel(run=run)).data)


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
