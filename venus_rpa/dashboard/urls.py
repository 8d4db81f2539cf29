"""Dashboard pages, mounted at `/` (the API, admin, hooks and media keep their own prefixes)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from venus_rpa.dashboard.views import (
    audit, automations, bulk, credentials, deletes, devices, home, items, lifecycle, notifications, overview, reviews, runs,
    triggers, workspace,
)

app_name = "dashboard"

urlpatterns = [
    path("", home.home, name="home"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("automations/", automations.automation_index, name="automations"),
    path("automations/new/", automations.automation_new, name="automation-new"),
    path("automations/_step-row/", automations.step_row, name="automation-step-row"),
    path("automations/_param-row/", automations.param_row, name="automation-param-row"),
    path("automations/_param-schema/", automations.param_schema_mode, name="automation-param-schema"),
    path("automations/<slug:slug>/", automations.automation_edit, name="automation-edit"),
    path("automations/<slug:slug>/versions/", automations.automation_versions, name="automation-versions"),
    path("automations/<slug:slug>/overview/", overview.automation_overview, name="automation-overview"),
    path("automations/<slug:slug>/run/", automations.automation_launch, name="automation-launch"),
    path("automations/<slug:slug>/clone/", lifecycle.automation_clone_view, name="automation-clone"),
    path("automations/<slug:slug>/archive/", lifecycle.automation_archive_view, name="automation-archive"),
    path("automations/<slug:slug>/unarchive/", lifecycle.automation_unarchive_view, name="automation-unarchive"),
    path("automations/<slug:slug>/versions/<int:number>/restore/", lifecycle.version_restore_view,
         name="automation-version-restore"),
    path("runs/", runs.run_index, name="runs"),
    path("runs/<int:run_id>/", runs.run_detail, name="run-detail"),
    path("runs/<int:run_id>/summary/", runs.run_summary, name="run-summary"),
    path("runs/<int:run_id>/steps/", runs.run_steps, name="run-steps"),
    path("runs/<int:run_id>/steps/<int:index>/", runs.run_step, name="run-step"),
    path("runs/<int:run_id>/cancel/", runs.run_cancel_view, name="run-cancel"),
    path("runs/<int:run_id>/retry/", bulk.run_retry_view, name="run-retry"),
    path("runs/<int:run_id>/items/retry/", items.run_items_retry_view, name="run-items-retry"),
    path("runs/<int:run_id>/items/", runs.run_items_fragment, name="run-items"),
    path("runs/<int:run_id>/items.<str:fmt>", items.run_items_download, name="run-items-download"),
    path("runs/bulk/", bulk.runs_bulk_view, name="runs-bulk"),
    path("runs/<int:run_id>/answer/", runs.run_answer_view, name="run-answer"),
    path("runs/<int:run_id>/trace.zip", runs.run_trace, name="run-trace"),
    path("reviews/", reviews.review_index, name="reviews"),
    path("reviews/_queue/", reviews.review_queue, name="review-queue"),
    path("reviews/bulk-reject/", bulk.reviews_bulk_reject_view, name="reviews-bulk-reject"),
    path("reviews/<int:review_id>/", reviews.review_detail, name="review-detail"),
    path("reviews/runs/<int:run_id>/approve-all/", bulk.reviews_approve_run_view, name="reviews-approve-run"),
    path("reviews/<int:review_id>/respond/", reviews.review_respond_view, name="review-respond"),
    path("reviews/<int:review_id>/decide/", reviews.review_decide_view, name="review-decide"),
    path("credentials/", credentials.credential_index, name="credentials"),
    path("credentials/<slug:name>/", credentials.credential_detail, name="credential-detail"),
    path("credentials/<slug:name>/delete/", deletes.credential_delete_view, name="credential-delete"),
    path("credentials/<slug:name>/sessions/revoke/", credentials.credential_session_revoke,
         name="credential-sessions-revoke"),
    path("credentials/<slug:name>/sessions/<int:session_id>/revoke/", credentials.credential_session_revoke,
         name="credential-session-revoke"),
    path("devices/", devices.device_index, name="devices"),
    path("settings/", workspace.workspace_settings, name="workspace-settings"),
    path("settings/notifications/", notifications.notification_settings, name="notification-settings"),
    path("audit/", audit.audit_index, name="audit"),
    path("devices/_workers/", devices.device_workers, name="device-workers"),
    path("devices/android/", devices.device_android, name="device-android"),
    *triggers.urlpatterns,
    *([path("schedules/<int:schedule_id>/delete/", deletes.schedule_delete_view, name="schedule-delete")]
      if triggers.triggers_available() else []),
]
