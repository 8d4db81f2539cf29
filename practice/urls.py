"""URL routes of the practice site (paths have no trailing slash, as automations expect)."""

from __future__ import annotations

from django.urls import path

from practice.captcha import views as captcha
from practice.views import account, api, auth, docs, expenses, lab, mail, register, replay_lab, shop

urlpatterns = [
    path("", auth.home_view),
    path("login", auth.login_view),
    path("login/code", auth.login_code_view),
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
    path("api/sessions/end", api.sessions_end_api),
    path("api/orders", api.orders_api),
    path("api/account", api.account_api),
    path("api/messages", api.messages_api),
    path("api/shares", api.shares_api),
    path("api/security", api.security_api),
    path("api/actions", api.actions_api),
    path("api/lookups", api.lookups_api),
    # Flows with real consequences, and their benign look-alikes (all behind sign-in).
    path("shop", shop.shop_view),
    path("shop/cart", shop.cart_view),
    path("shop/cart/add", shop.add_to_cart_view),
    path("shop/saved", shop.save_for_later_view),
    path("shop/checkout", shop.checkout_view),
    path("shop/orders", shop.order_history_view),
    path("shop/orders/<str:reference>", shop.order_view),
    path("account", account.settings_view),
    path("account/delete", account.delete_view),
    path("account/deleted", account.deleted_view),
    path("account/payment-methods", account.payment_methods_view),
    path("account/help/delete-account", account.delete_help_view),
    path("security", account.security_view),
    path("security/two-factor", account.two_factor_view),
    path("security/send-code", account.send_code_view),
    path("security/password", account.change_password_view),
    path("messages", mail.list_view),
    path("messages/new", mail.compose_view),
    path("messages/hide", mail.hide_view),
    path("docs", docs.list_view),
    path("docs/<int:doc_id>", docs.detail_view),
    path("docs/<int:doc_id>/share", docs.share_view),
    path("docs/<int:doc_id>/download", docs.download_view),
    # CAPTCHAs: challenge ids are random tokens, types are fixed names; no clash by depth.
    path("captcha/<str:challenge_id>/<slug:name>.png", captcha.image_view),
    path("captcha/<str:challenge_id>/check", captcha.check_view),
    path("captcha/<str:challenge_id>/refresh", captcha.refresh_view),
    path("captcha/<str:kind>", captcha.page_view),
    path("api/captcha/<str:challenge_id>", captcha.test_hook_view),  # PRACTICE_TEST_HOOKS=1 only
    path("lab", lab.index_view),
    path("lab/ambiguous", lab.ambiguous_view),
    path("lab/delayed", lab.delayed_view),
    path("lab/effects", lab.effects_view),
    path("lab/extract", lab.extract_view),
    path("lab/injection", lab.injection_view),
    path("lab/lookup", lab.lookup_view),
    path("lab/records", lab.records_view),
    path("lab/ticking", lab.ticking_view),
    path("lab/replay", replay_lab.form_view),
    path("lab/replay/confirm", replay_lab.confirm_view),
    path("lab/replay/done", replay_lab.done_view),
    path("api/lab/replay", replay_lab.state_api),
]
