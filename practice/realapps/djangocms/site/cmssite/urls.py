from django.contrib import admin
from django.urls import include, path, re_path
from two_factor.admin import AdminSiteOTPRequired
from two_factor.urls import urlpatterns as two_factor_urls

admin.site.__class__ = AdminSiteOTPRequired  # the admin only for users who gave a one-time code

urlpatterns = [
    path("", include(two_factor_urls)),
    path("admin/", admin.site.urls),
    re_path(r"^", include("cms.urls")),
]
