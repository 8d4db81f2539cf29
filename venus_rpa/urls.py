from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from venus_rpa import media
from venus_rpa.accounts import api as accounts_api
from venus_rpa.automations import api as automations_api
from venus_rpa.core import views as core_views
from venus_rpa.datasets import api as datasets_api
from venus_rpa.devices import api as devices_api
from venus_rpa.picker import api as picker_api
from venus_rpa.reviews import api as reviews_api
from venus_rpa.runs import api as runs_api
from venus_rpa.triggers import api as triggers_api

api = [
    path("workspace/", accounts_api.WorkspaceApi.as_view(), name="workspace-detail"),
    path("automations/", automations_api.AutomationListApi.as_view(), name="automation-list"),
    path("automations/<slug:slug>/", automations_api.AutomationDetailApi.as_view(), name="automation-detail"),
    path("automations/<slug:slug>/versions/", automations_api.AutomationVersionsApi.as_view(), name="automation-versions"),
    path("automations/<slug:slug>/versions/<int:number>/restore/", automations_api.VersionRestoreApi.as_view(),
         name="automation-version-restore"),
    path("automations/<slug:slug>/clone/", automations_api.AutomationCloneApi.as_view(), name="automation-clone"),
    path("automations/<slug:slug>/archive/", automations_api.AutomationArchiveApi.as_view(), name="automation-archive"),
    path("automations/<slug:slug>/unarchive/", automations_api.AutomationUnarchiveApi.as_view(),
         name="automation-unarchive"),
    path("automations/<slug:slug>/runs/", runs_api.RunStartApi.as_view(), name="run-start"),
    path("automations/<slug:slug>/picker/", picker_api.PickerStartApi.as_view(), name="picker-start"),
    path("automations/<slug:slug>/picker/<int:snapshot_id>/", picker_api.PickerDetailApi.as_view(), name="picker-detail"),
    path("automations/<slug:slug>/picker/<int:snapshot_id>/screenshot/", picker_api.PickerScreenshotApi.as_view(),
         name="picker-screenshot"),
    path("automations/<slug:slug>/picker/<int:snapshot_id>/resolve/", picker_api.PickerResolveApi.as_view(),
         name="picker-resolve"),
    path("runs/", runs_api.RunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", runs_api.RunDetailApi.as_view(), name="run-detail"),
    path("runs/<int:run_id>/cancel/", runs_api.RunCancelApi.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/retry/", runs_api.RunRetryApi.as_view(), name="run-retry"),
    path("runs/<int:run_id>/items/", runs_api.RunItemsApi.as_view(), name="run-items"),
    path("runs/<int:run_id>/items/retry/", runs_api.RunItemsRetryApi.as_view(), name="run-items-retry"),
    path("runs/<int:run_id>/items.<str:fmt>", runs_api.RunItemsExportApi.as_view(), name="run-items-export"),
    path("runs/bulk/", runs_api.RunBulkApi.as_view(), name="run-bulk"),
    path("runs/<int:run_id>/answer/", runs_api.RunAnswerApi.as_view(), name="run-answer"),
    path("trajectories/export/", datasets_api.TrajectoryExportApi.as_view(), name="trajectory-export"),
    path("reviews/", reviews_api.ReviewListApi.as_view(), name="review-list"),
    path("reviews/bulk-reject/", reviews_api.ReviewBulkRejectApi.as_view(), name="review-bulk-reject"),
    path("reviews/<int:review_id>/", reviews_api.ReviewDetailApi.as_view(), name="review-detail"),
    path("reviews/<int:review_id>/respond/", reviews_api.ReviewRespondApi.as_view(), name="review-respond"),
    path("reviews/<int:review_id>/approve/", reviews_api.ReviewApproveApi.as_view(), name="review-approve"),
    path("reviews/<int:review_id>/reject/", reviews_api.ReviewRejectApi.as_view(), name="review-reject"),
    path("reviews/<int:review_id>/edit/", reviews_api.ReviewEditApi.as_view(), name="review-edit"),
    path("devices/", devices_api.DeviceListApi.as_view(), name="device-list"),
    path("devices/<int:device_id>/", devices_api.DeviceDetailApi.as_view(), name="device-detail"),
    path("credentials/", automations_api.CredentialListApi.as_view(), name="credential-list"),
    path("credentials/<slug:name>/", automations_api.CredentialDetailApi.as_view(), name="credential-detail"),
    path("credentials/<slug:name>/sessions/", automations_api.LoginSessionListApi.as_view(),
         name="credential-session-list"),
    path("credentials/<slug:name>/sessions/<int:session_id>/", automations_api.LoginSessionDetailApi.as_view(),
         name="credential-session-detail"),
    path("schedules/", triggers_api.ScheduleListApi.as_view(), name="schedule-list"),
    path("schedules/<int:schedule_id>/", triggers_api.ScheduleDetailApi.as_view(), name="schedule-detail"),
    path("schedules/<int:schedule_id>/pause/", triggers_api.SchedulePauseApi.as_view(), name="schedule-pause"),
    path("schedules/<int:schedule_id>/resume/", triggers_api.ScheduleResumeApi.as_view(), name="schedule-resume"),
    path("webhooks/", triggers_api.WebhookListApi.as_view(), name="webhook-list"),
    path("webhooks/<int:trigger_id>/", triggers_api.WebhookDetailApi.as_view(), name="webhook-detail"),
    path("webhooks/<int:trigger_id>/rotate-secret/", triggers_api.WebhookRotateSecretApi.as_view(),
         name="webhook-rotate-secret"),
    path("callbacks/", triggers_api.CallbackListApi.as_view(), name="callback-list"),
    path("callbacks/<int:endpoint_id>/", triggers_api.CallbackDetailApi.as_view(), name="callback-detail"),
    path("callbacks/<int:endpoint_id>/rotate-secret/", triggers_api.CallbackRotateSecretApi.as_view(),
         name="callback-rotate-secret"),
    path("callbacks/deliveries/", triggers_api.CallbackDeliveryListApi.as_view(), name="callback-delivery-list"),
    path("callbacks/deliveries/<int:delivery_id>/", triggers_api.CallbackDeliveryDetailApi.as_view(),
         name="callback-delivery-detail"),
    path("callbacks/deliveries/<int:delivery_id>/resend/", triggers_api.CallbackDeliveryResendApi.as_view(),
         name="callback-delivery-resend"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up code as a script file: no inline script (CSP).
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api/swagger_ui.html"),
         name="api-docs"),
]

urlpatterns = [
    path("healthz", core_views.healthz, name="healthz"),
    path("metrics", include("venus_rpa.pools.urls")),  # Prometheus; loopback or VENUS_METRICS_TOKEN only
    path("admin/", admin.site.urls),
    path("api/", include(api)),
    # Inbound webhooks: public, authenticated by their HMAC signature (docs/webhooks.md).
    path("hooks/<str:public_id>/", triggers_api.WebhookReceiveApi.as_view(), name="webhook-receive"),
    # Screenshots and artifacts, only for members of the run's workspace.
    path(f"{settings.MEDIA_URL.strip('/')}/<path:path>", media.MediaApi.as_view(), name="media"),
    # The dashboard owns every other path (login, automations, runs, reviews...).
    path("", include("venus_rpa.dashboard.urls")),
]

# Errors: JSON in the API's one error shape under /api/ and /hooks/, HTML pages elsewhere.
handler400 = "venus_rpa.core.views.bad_request"
handler403 = "venus_rpa.core.views.permission_denied"
handler404 = "venus_rpa.core.views.page_not_found"
handler500 = "venus_rpa.core.views.server_error"
