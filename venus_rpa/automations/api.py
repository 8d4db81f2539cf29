"""REST API for automations and credentials. Views parse input, call one service, shape output."""

from __future__ import annotations

from django.views.decorators.debug import sensitive_variables
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from venus_rpa.accounts.permissions import request_workspace, require_write
from venus_rpa.automations import checks, lifecycle, selectors, services
from venus_rpa.automations.models import Automation, AutomationVersion, Surface
from venus_rpa.core.pagination import Pagination, SearchSerializer, paginated_response, search_words
from venus_rpa.core.schema import ERROR_409
from venus_rpa.core.serializers import StrictSerializer
from workers.steps import TEXT_MAX, URL_MAX

DEFINITION_FIELDS = AutomationVersion.DEFINITION_FIELDS


class DefinitionSerializer(StrictSerializer):
    surface = serializers.ChoiceField(choices=Surface.choices, required=False)
    start_url = serializers.CharField(required=False, allow_blank=True, max_length=URL_MAX)
    allowed_domains = serializers.ListField(child=serializers.CharField(max_length=255), required=False)
    goal = serializers.CharField(required=False, allow_blank=True, max_length=TEXT_MAX)
    steps = serializers.ListField(child=serializers.DictField(), required=False)
    param_schema = serializers.DictField(required=False)
    credentials = serializers.ListField(child=serializers.SlugField(), required=False)
    success_criteria = serializers.DictField(required=False)
    output_schema = serializers.DictField(required=False)
    limits = serializers.DictField(required=False)
    captcha = serializers.DictField(required=False)
    safety = serializers.DictField(required=False)
    model_grounding = serializers.BooleanField(required=False)
    sign_in = serializers.DictField(required=False, help_text=(
        'Persistent login for the steps marked "sign_in": {"check": {"text_visible" | "url_contains" | '
        '"url_excludes"}, "credential", "domain"}; {} for none.'))
    change_note = serializers.CharField(required=False, allow_blank=True, max_length=300)


NAME_HELP = (f"At most {checks.NAME_MAX} characters (a name saved before that bound may be sent back unchanged)."
             " Shown in lists and every Automation menu.")
REPLAY_HELP = ("Replay verified agent paths without calling the model while the screens match (default true). "
               "Not part of the definition: no new version; false also forgets the cached paths.")


class AutomationInSerializer(DefinitionSerializer):
    slug = serializers.SlugField(max_length=80, required=False, allow_blank=True,
                                 help_text="Letters, digits, hyphens and underscores; made from the name when not given.")
    name = serializers.CharField(max_length=200, help_text=NAME_HELP)  # the column; the service: NAME_MAX
    description = serializers.CharField(required=False, allow_blank=True, max_length=checks.DESCRIPTION_MAX)
    replay_cache = serializers.BooleanField(required=False, default=True, help_text=REPLAY_HELP)


class AutomationUpdateSerializer(DefinitionSerializer):
    name = serializers.CharField(max_length=200, required=False, help_text=NAME_HELP)
    description = serializers.CharField(required=False, allow_blank=True, max_length=checks.DESCRIPTION_MAX)
    replay_cache = serializers.BooleanField(required=False, help_text=REPLAY_HELP)
    base_version = serializers.IntegerField(
        required=False, min_value=1, max_value=2**31 - 1,
        help_text=("The version number this edit started from (`version.number` as last read). When the "
                   "automation has a newer version, nothing is changed and the answer is 409 (`conflict`, "
                   "fields: `base_version`), naming it. Left out: no check, the update applies to whatever "
                   "version is current. A change of the name, description or replay cache alone makes no "
                   "version: `base_revision` refuses an update over those too."))
    base_revision = serializers.IntegerField(
        required=False, min_value=1, max_value=2**31 - 1,
        help_text=("The automation's `revision` as last read; it goes up with every change (name, description, "
                   "replay cache or a new version). When the automation has changed since, nothing is changed "
                   "and the answer is 409 (`conflict`, fields: `base_revision`), whatever either update "
                   "changed. Left out: no check."))


class VersionOutSerializer(serializers.ModelSerializer):
    class Meta:
        model = AutomationVersion
        fields = ["number", *DEFINITION_FIELDS, "change_note", "created_at"]


class AutomationOutSerializer(serializers.ModelSerializer):
    version = VersionOutSerializer(source="current_version")
    archived = serializers.BooleanField(source="is_archived", read_only=True,
                                        help_text="Archived automations are not started by any path until restored.")

    class Meta:
        model = Automation
        fields = ["id", "slug", "name", "description", "version", "archived", "archived_at", "replay_cache",
                  "revision", "created_at", "updated_at"]


class AutomationFilterSerializer(SearchSerializer):
    archived = serializers.BooleanField(required=False, default=False,
                                        help_text="true: the archived automations instead of the active ones.")


def _definition(data: dict) -> dict:
    return {k: data[k] for k in DEFINITION_FIELDS if k in data}


class AutomationListApi(APIView):
    pagination_class = Pagination

    @extend_schema(parameters=[AutomationFilterSerializer], responses=AutomationOutSerializer(many=True))
    def get(self, request):
        filters = AutomationFilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        automations = selectors.automation_list(workspace=request_workspace(request),
                                                archived=filters.validated_data["archived"],
                                                search=filters.validated_data.get("q", ""))
        return paginated_response(request=request, view=self, queryset=automations,
                                  serialize=lambda page: AutomationOutSerializer(page, many=True).data)

    @extend_schema(request=AutomationInSerializer, responses={201: AutomationOutSerializer, 409: ERROR_409})
    def post(self, request):
        workspace = request_workspace(request)
        require_write(request, workspace)
        data = AutomationInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        automation = services.automation_create(
            workspace=workspace, user=request.user, slug=data.validated_data.get("slug", ""), name=data.validated_data["name"],
            description=data.validated_data.get("description", ""), definition=_definition(data.validated_data),
            change_note=data.validated_data.get("change_note", ""), replay_cache=data.validated_data["replay_cache"],
        )
        return Response(AutomationOutSerializer(automation).data, status=status.HTTP_201_CREATED)


class AutomationDetailApi(APIView):
    @extend_schema(responses=AutomationOutSerializer)
    def get(self, request, slug: str):
        automation = selectors.automation_get(workspace=request_workspace(request), slug=slug)
        return Response(AutomationOutSerializer(automation).data)

    @extend_schema(request=AutomationUpdateSerializer, responses={200: AutomationOutSerializer, 409: ERROR_409})
    def patch(self, request, slug: str):
        """Change the name, description, replay cache or definition (a changed definition becomes a
        new version). 409 when the automation is archived, has a version newer than `base_version`, or
        has changed in any way since `base_revision`."""
        workspace = request_workspace(request)
        automation = selectors.automation_get(workspace=workspace, slug=slug)
        require_write(request, workspace)
        data = AutomationUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        definition = _definition(data.validated_data)
        automation = services.automation_update(
            automation=automation, user=request.user, name=data.validated_data.get("name"),
            description=data.validated_data.get("description"), definition=definition or None,
            change_note=data.validated_data.get("change_note", ""), replay_cache=data.validated_data.get("replay_cache"),
            base_version=data.validated_data.get("base_version"), base_revision=data.validated_data.get("base_revision"),
        )
        automation = selectors.automation_get(workspace=workspace, slug=slug)
        return Response(AutomationOutSerializer(automation).data)


class AutomationVersionsApi(APIView):
    @extend_schema(responses=VersionOutSerializer(many=True))
    def get(self, request, slug: str):
        automation = selectors.automation_get(workspace=request_workspace(request), slug=slug)
        return Response(VersionOutSerializer(automation.versions.all(), many=True).data)


class CredentialInSerializer(StrictSerializer):
    name = serializers.SlugField(max_length=80)
    domains = serializers.ListField(child=serializers.CharField(max_length=255), required=False, default=list)
    fields = serializers.DictField(child=serializers.CharField(max_length=4000, trim_whitespace=False), allow_empty=False)


class CredentialOutSerializer(serializers.Serializer):
    """Never includes secret values: names of the fields only."""

    name = serializers.CharField()
    domains = serializers.ListField(child=serializers.CharField())
    field_names = serializers.ListField(child=serializers.CharField())
    updated_at = serializers.DateTimeField()


class CredentialListApi(APIView):
    pagination_class = Pagination

    @extend_schema(parameters=[SearchSerializer], responses=CredentialOutSerializer(many=True))
    def get(self, request):
        credentials = selectors.credential_list(workspace=request_workspace(request), search=search_words(request))
        return paginated_response(request=request, view=self, queryset=credentials,
                                  serialize=lambda page: CredentialOutSerializer(page, many=True).data)

    @extend_schema(request=CredentialInSerializer, responses={201: CredentialOutSerializer})
    @sensitive_variables()  # the body holds secret values: no frame below may show them
    def post(self, request):
        workspace = request_workspace(request)
        require_write(request, workspace)
        data = CredentialInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        credential = services.credential_set(workspace=workspace, user=request.user, **data.validated_data)
        return Response(CredentialOutSerializer(credential).data, status=status.HTTP_201_CREATED)


class LoginSessionOutSerializer(serializers.Serializer):
    """A saved sign-in session's metadata. Its content (cookies, storage) is never returned."""

    id = serializers.IntegerField()
    domain = serializers.CharField()
    saved_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField()
    saved_by_run = serializers.IntegerField(source="saved_by_run_id", allow_null=True)


class LoginSessionListApi(APIView):
    @extend_schema(responses=LoginSessionOutSerializer(many=True))
    def get(self, request, name: str):
        credential = selectors.credential_get(workspace=request_workspace(request), name=name)
        return Response(LoginSessionOutSerializer(selectors.login_session_list(credential=credential), many=True).data)

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, name: str):
        """Revoke every saved session of the credential (owner or editor)."""
        workspace = request_workspace(request)
        credential = selectors.credential_get(workspace=workspace, name=name)
        require_write(request, workspace)
        services.login_session_revoke(credential=credential)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LoginSessionDetailApi(APIView):
    @extend_schema(request=None, responses={204: None})
    def delete(self, request, name: str, session_id: int):
        """Revoke one saved session (owner or editor); the next run signs in again."""
        workspace = request_workspace(request)
        credential = selectors.credential_get(workspace=workspace, name=name)
        session = selectors.login_session_get(credential=credential, session_id=session_id)
        require_write(request, workspace)
        services.login_session_revoke(credential=credential, session=session)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CredentialDetailApi(APIView):
    @extend_schema(request=None, responses={204: None, 409: ERROR_409})
    def delete(self, request, name: str):
        """Delete a credential and its saved sessions (owner or editor); refused (409, naming them)
        while an automation that is not archived uses it."""
        workspace = request_workspace(request)
        credential = selectors.credential_get(workspace=workspace, name=name)
        require_write(request, workspace)
        lifecycle.credential_delete(credential=credential, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AutomationCloneApi(APIView):
    @extend_schema(request=None, responses={201: AutomationOutSerializer, 409: ERROR_409})
    def post(self, request, slug: str):
        """Copy the automation as “Copy of NAME” (definition and credential references; not its runs,
        schedules or webhooks). Owner or editor."""
        workspace = request_workspace(request)
        automation = selectors.automation_get(workspace=workspace, slug=slug)
        require_write(request, workspace)
        clone = lifecycle.automation_clone(automation=automation, user=request.user)
        return Response(AutomationOutSerializer(clone).data, status=status.HTTP_201_CREATED)


class _ArchiveApi(APIView):
    archive = True

    def post(self, request, slug: str):
        workspace = request_workspace(request)
        automation = selectors.automation_get(workspace=workspace, slug=slug)
        require_write(request, workspace)
        change = lifecycle.automation_archive if self.archive else lifecycle.automation_unarchive
        change(automation=automation, user=request.user)
        return Response(AutomationOutSerializer(selectors.automation_get(workspace=workspace, slug=slug)).data)


class AutomationArchiveApi(_ArchiveApi):
    """Archive (soft delete): no path starts it, its schedules stop; runs keep their history."""

    @extend_schema(request=None, responses={200: AutomationOutSerializer, 409: ERROR_409})
    def post(self, request, slug: str):
        return super().post(request, slug)


class AutomationUnarchiveApi(_ArchiveApi):
    """Restore from the archive: it can run again and its enabled schedules fire again."""

    archive = False

    @extend_schema(request=None, responses={200: AutomationOutSerializer, 409: ERROR_409})
    def post(self, request, slug: str):
        return super().post(request, slug)


class VersionRestoreApi(APIView):
    @extend_schema(request=None, responses={201: VersionOutSerializer, 409: ERROR_409})
    def post(self, request, slug: str, number: int):
        """Make a new version equal to version `number` (history is never rewritten). Owner or editor."""
        workspace = request_workspace(request)
        automation = selectors.automation_get(workspace=workspace, slug=slug)
        selectors.version_get(automation=automation, number=number)
        require_write(request, workspace)
        version = lifecycle.automation_version_restore(automation=automation, number=number, user=request.user)
        return Response(VersionOutSerializer(version).data, status=status.HTTP_201_CREATED)
