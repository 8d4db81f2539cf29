"""How a review and a verdict say things to people (no Django):
- an action's target is named by what it is to a person: a file input is a "file field", not the
  "button" its ARIA role says; the fingerprint keeps the role, so pending reviews stay valid;
- a pre-approval says in words what pre-approved the action and where to change that, never a
  bare rule code ("Pre-approved by this automation (AUTH)").

Run with `pytest tests/gates -q -p no:django --noconftest`."""

from __future__ import annotations

from workers.automation_settings import SafetySettings
from workers.gates.context import Probe
from workers.gates.review import describe_action
from workers.gates.safety import ActionContext, SafetyPolicy, TargetInfo, classify


def probe(**target) -> Probe:
    return Probe(url="http://127.0.0.1:8001/expenses/new", target={"rect": [0, 0, 10, 10], **target})


def test_a_file_input_is_a_file_field_in_the_description_but_keeps_its_role_in_the_fingerprint():
    receipt = probe(role="button", tag="input", input_type="file", name="Receipt")
    assert describe_action({"action_type": "upload", "file_name": "r.txt"}, receipt) == \
        "Upload 'r.txt' to the file field 'Receipt'"
    assert receipt.describe_target() == "button 'Receipt'"  # what pending reviews' fingerprints hold


def test_fields_and_controls_are_named_as_people_name_them():
    said = {
        "Type 'Lunch' into the field 'Title'": ({"action_type": "type", "typed_text": "Lunch"},
                                                 probe(role="textbox", tag="input", input_type="text", name="Title")),
        "Type 'x' into the password field 'PIN'": ({"action_type": "type", "typed_text": "x"},
                                                    probe(role="textbox", input_type="password", name="PIN")),
        "Choose 'Meals' in the dropdown 'Category'": ({"action_type": "select", "option": "Meals"},
                                                      probe(role="combobox", tag="select", name="Category")),
        "Click the button 'Next'": ({"action_type": "click"}, probe(role="button", tag="button", name="Next")),
        "Click the link 'Help'": ({"action_type": "click"}, probe(role="link", tag="a", name="Help")),
    }
    for words, (fields, target) in said.items():
        assert describe_action(fields, target) == words


def test_a_pre_approval_says_what_allowed_it_and_where_to_change_it():
    submit = ActionContext(action_type="click", target=TargetInfo(role="button", name="Submit"),
                           nearby_text=["Submit expense report"])
    v = classify(submit, SafetyPolicy(pre_approved=[["SEND", "submit expense"]]))
    assert v.decision == "allow" and "(SEND" not in v.reason
    assert ("Pre-approved by this automation's safety policy: an action that sends or publishes something to other "
            "people where 'submit expense' appears around it runs without review (change it under Safety policy, "
            "\"pre_approved\", in the automation's editor).") in v.reason


def test_the_automation_s_own_sign_in_says_it_is_the_credential_setting():
    sign_in = ActionContext(action_type="press_key", key="Enter", form_submit="Sign in",
                            target=TargetInfo(role="textbox", input_type="password"))
    assert classify(sign_in, SafetySettings().policy()).decision == "review"
    v = classify(sign_in, SafetySettings().policy(sign_in=True))
    assert v.decision == "allow" and "(AUTH)" not in v.reason
    assert "signing in with one of this automation's own credentials on that credential's site runs without review" \
        in v.reason and '"credential_sign_in"' in v.reason
