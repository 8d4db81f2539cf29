"""URL routes of the practice site (paths have no trailing slash, as automations expect)."""

from __future__ import annotations

from django.urls import path

from practice.captcha import views as captcha
from practice.views import api, auth, expenses, lab, register

urlpatterns = [
    path("", auth.home_view),
    path("login", auth.login_view),
    path("logout", auth.logout_view),
    path("register", register.register_view),
    path("register/done", register.register_done_view),
    path("expenses", expenses.list_view),
    # "new" must precede the <reference> route so it is not read as a reference.
    path("expenses/new", expenses.details_view),
    path("expenses/new/confirm", expenses.confirm_view),
    path("expenses/<str:reference>", expenses.detail_view),
    path("api/expenses", api.expense_list_api),
    path("api/reset", api.reset_api),
    # CAPTCHAs: challenge ids are random tokens, types are fixed names; no clash by depth.
    path("captcha/<str:challenge_id>/<slug:name>.png", captcha.image_view),
    path("captcha/<str:challenge_id>/check", captcha.check_view),
    path("captcha/<str:challenge_id>/refresh", captcha.refresh_view),
    path("captcha/<str:kind>", captcha.page_view),
    path("api/captcha/<str:challenge_id>", captcha.test_hook_view),  # PRACTICE_TEST_HOOKS=1 only
    path("lab", lab.index_view),
    path("lab/ambiguous", lab.ambiguous_view),
    path("lab/delayed", lab.delayed_view),
    path("lab/extract", lab.extract_view),
]
