"""Explicit-step targets found in a uiautomator hierarchy (no device needed)."""

from __future__ import annotations

import pytest

from workers.envs.android.hierarchy import Hierarchy, locate
from workers.errors import StepError
from workers.steps import Target

XML = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.bank" content-desc="" clickable="false" bounds="[0,0][1080,2400]">
 <node index="1" text="Amount" resource-id="" class="android.widget.TextView" package="com.bank" content-desc="" clickable="false" bounds="[40,200][400,260]" />
 <node index="2" text="" resource-id="com.bank:id/amount" class="android.widget.EditText" package="com.bank" content-desc="" clickable="true" focused="true" hint="0.00" bounds="[40,270][1040,380]" />
 <node index="3" text="" resource-id="com.bank:id/pin" class="android.widget.EditText" package="com.bank" content-desc="" clickable="true" password="true" bounds="[40,400][1040,500]" />
 <node index="4" text="" resource-id="com.bank:id/row" class="android.view.ViewGroup" package="com.bank" content-desc="" clickable="true" bounds="[0,600][1080,700]">
  <node index="5" text="Alice Smith" resource-id="" class="android.widget.TextView" package="com.bank" content-desc="" clickable="false" bounds="[40,620][600,680]" />
 </node>
 <node index="6" text="Send" resource-id="com.bank:id/send" class="android.widget.Button" package="com.bank" content-desc="" clickable="true" bounds="[40,2200][1040,2320]" />
 <node index="7" text="" resource-id="" class="android.widget.ImageButton" package="com.bank" content-desc="Send" clickable="true" bounds="[900,40][1040,160]" />
</node></hierarchy>
"""


@pytest.fixture
def screen() -> Hierarchy:
    return Hierarchy.parse("UI hierchary dumped to: /dev/tty\n" + XML)


def test_a_label_finds_the_field_after_it_and_a_hint_finds_the_field(screen):
    node, strategy = locate(screen, Target(label="Amount"), purpose="input")
    assert (node.resource_id, strategy) == ("com.bank:id/amount", "label")
    assert locate(screen, Target(placeholder="0.00"), purpose="input")[0].resource_id == "com.bank:id/amount"


def test_text_inside_a_clickable_row_acts_through_the_row(screen):
    node, _ = locate(screen, Target(text="Alice Smith"), purpose="click")
    assert node.resource_id == "com.bank:id/row" and node.center == (540, 650)


def test_resource_ids_match_with_or_without_the_package(screen):
    assert locate(screen, Target(resource_id="send"), purpose="click")[0].text == "Send"
    assert locate(screen, Target(resource_id="com.bank:id/send"), purpose="click")[0].text == "Send"


def test_a_text_on_two_controls_is_ambiguous_and_a_role_narrows_it(screen):
    with pytest.raises(StepError, match="ambiguous: 2 matches"):
        locate(screen, Target(text="Send"), purpose="click")
    assert locate(screen, Target(role="button", name="Send", nth=1), purpose="click")[0].content_desc == "Send"


def test_what_the_screen_shows_leaves_password_fields_out(screen):
    assert screen.visible_text() == ["Amount", "Alice Smith", "Send"]
    assert screen.shows("alice smith") and not screen.shows("Bob")
    assert screen.focused().resource_id == "com.bank:id/amount"
    assert screen.at(100, 650).resource_id == "com.bank:id/row"


def test_a_missing_target_says_which_app_was_on_screen(screen):
    with pytest.raises(StepError, match=r"target 'Pay' not found on the screen \(com.bank\)"):
        locate(screen, Target(text="Pay"), purpose="click")


def test_text_near_a_field_is_its_label_and_what_is_above_never_what_is_below(screen):
    amount = locate(screen, Target(label="Amount"), purpose="input")[0]
    assert screen.near(amount) == ["Amount"]
    assert "Alice Smith" in screen.near(locate(screen, Target(resource_id="send"), purpose="click")[0])
