from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from venus_rpa.automations import api as automations_api
from venus_rpa.core import views as core_views
from venus_rpa.reviews import api as reviews_api
from venus_rpa.runs import api as runs_api

api = [
    path("automations/", automations_api.AutomationListApi.as_view(), name="automation-list"),
    path("automations/<slug:slug>/", automations_api.AutomationDetailApi.as_view(), name="automation-detail"),
    path("automations/<slug:slug>/versions/", automations_api.AutomationVersionsApi.as_view(), name="automation-versions"),
    path("automations/<slug:slug>/runs/", runs_api.RunStartApi.as_view(), name="run-start"),
    path("runs/", runs_api.RunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", runs_api.RunDetailApi.as_view(), name="run-detail"),
    path("runs/<int:run_id>/cancel/", runs_api.RunCancelApi.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/answer/", runs_api.RunAnswerApi.as_view(), name="run-answer"),
    path("reviews/", reviews_api.ReviewListApi.as_view(), name="review-list"),
    path("reviews/<int:review_id>/", reviews_api.ReviewDetailApi.as_view(), name="review-detail"),
    path("reviews/<int:review_id>/respond/", reviews_api.ReviewRespondApi.as_view(), name="review-respond"),
    path("credentials/", automations_api.CredentialListApi.as_view(), name="credential-list"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
]

urlpatterns = [
    path("", core_views.home, name="home"),
    path("healthz", core_views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/", include(api)),
    # Screenshots and artifacts, only for members of the run's workspace.
    path(f"{settings.MEDIA_URL.strip('/')}/<path:path>", runs_api.MediaApi.as_view(), name="media"),
]
