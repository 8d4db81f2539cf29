"""Safety rules on what real applications showed (practice/realapps/djangocms/FIRST_TRY.md): the
Django admin's deletion confirm lives at /admin/auth/user/<id>/delete/, where `auth` names the
admin's section, not a sign-in."""

from __future__ import annotations

from workers.gates.safety import ActionContext, PreApproval, SafetyPolicy, TargetInfo, classify
from workers.gates.safety.cues import url_cue

DELETE_USER = "http://127.0.0.1:8000/admin/auth/user/2/delete/"


def confirm(url: str) -> ActionContext:
    return ActionContext(action_type="click", target=TargetInfo(role="button", name="Yes, I’m sure"), url=url,
                         nearby_text=["No, take me back"])


def test_the_last_segment_of_an_address_says_what_its_page_does():
    assert url_cue(DELETE_USER).category == "DEL"
    assert url_cue("https://a.example/accounts/login/").category == "AUTH"
    assert url_cue("https://a.example/shop/checkout").category == "PAY"


def test_confirming_a_deletion_in_the_auth_section_is_reviewed_even_with_sign_in_pre_approved():
    signed_in = SafetyPolicy(pre_approved=[PreApproval(category="AUTH")])
    verdict = classify(confirm(DELETE_USER), signed_in)
    assert (verdict.category, verdict.level, verdict.decision) == ("DEL", "R3", "review")
    login = classify(confirm("http://127.0.0.1:8000/account/login/"), signed_in)
    assert (login.category, login.decision) == ("AUTH", "allow")
