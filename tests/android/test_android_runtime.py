"""The Android surface in process: the runner, the Android host (devices leased from the real
registry in PostgreSQL), adbutils, a real adb server and the emulated phone."""

from __future__ import annotations

import asyncio
import io

import pytest
from PIL import Image

from tests.android.conftest import PRACTICE_APPS
from tests.runtime.test_safety_gate import ReviewRecorder
from workers import actions_mobile as M
from workers import steps as S
from workers.envs.android.device import AdbDevice
from workers.envs.android.hierarchy import Hierarchy
from workers.gates.guard import SafetyGate
from workers.gates.review import MARK, ReviewDecision
from workers.runner import Runner
from workers.secrets import Credential, SecretBox

pytestmark = pytest.mark.django_db(transaction=True)
SIGN_IN = [
    {"kind": "goto", "url": "app:Venus Pay", "name": "Open Venus Pay"},
    {"kind": "fill", "target": "Username", "value": "{{credentials.pay.username}}"},
    {"kind": "fill", "target": {"label": "Password"}, "value": "{{credentials.pay.password}}"},
    {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
    {"kind": "wait_for", "text": "Signed in as demo", "url_contains": ".MainActivity"},
]


@pytest.fixture
def device(adb, phone, adb_allowed, reset_phone):
    from venus_rpa.devices.services import device_register

    return device_register(workspace=None, serial=phone.serial, adb_port=adb.port, apps=PRACTICE_APPS)


def app_secrets() -> SecretBox:
    """The app's sign-in, typed only into the app whose package its domains list."""
    return SecretBox({"pay": Credential("pay", {"username": "demo", "password": "demo-password"},
                                        domains=["com.venus.practice"])})


def run(spec: dict, *, recorder=None, safety=None):
    from venus_rpa.devices.hosts import android_host

    async def go():
        host = android_host()
        try:
            return await Runner({"android": host}, heartbeat_s=5, safety=safety).run(
                S.AutomationSpec.model_validate({"surface": "android", **spec}), params={}, secrets=app_secrets(),
                recorder=recorder or ReviewRecorder())
        finally:
            await host.close()
    return asyncio.run(go())


def test_explicit_steps_sign_in_and_type_a_name_in_any_script(device):
    recorder = ReviewRecorder()
    result = run({"steps": [
        *SIGN_IN,
        {"kind": "click", "target": "Edit profile"},
        {"kind": "fill", "target": {"label": "Full name"}, "value": "张伟 Zoë"},
        {"kind": "fill", "target": {"placeholder": "City"}, "value": "Zürich"},
        {"kind": "click", "target": {"resource_id": "save_profile"}},
        {"kind": "extract", "target": {"resource_id": "com.venus.practice:id/profile_saved"}, "into": "saved"},
    ], "success_criteria": {"text_visible": "Saved: 张伟 Zoë · Zürich"}}, recorder=recorder)
    assert result.status == "succeeded", result.reason
    assert result.output["saved"] == "Saved: 张伟 Zoë · Zürich"
    assert result.verdict["evidence"]["url"] == "android-app://com.venus.practice/.ProfileActivity"
    clicked = next(r for r in recorder.records if r.action.get("target", {}).get("resource_id") == "save_profile")
    assert clicked.grounding["strategy"] == "resource-id" and clicked.grounding["class"] == "android.widget.Button"
    assert clicked.grounding["viewport"] == {"width": 1080, "height": 2400}  # the box's units, for the marks shown
    assert all(r.screenshot and r.screenshot[:2] == b"\xff\xd8" for r in recorder.records)  # JPEG of every step


def test_a_step_target_missing_from_the_screen_fails_with_what_the_screen_is(device):
    result = run({"steps": [*SIGN_IN, {"kind": "click", "target": "Delete everything", "timeout_s": 0.5}]})
    assert result.status == "failed"
    assert "'Delete everything' not found on the screen (com.venus.practice)" in result.reason


def test_the_pay_button_goes_to_review_with_the_target_marked_and_runs_once_approved(device):
    recorder = ReviewRecorder(decide=lambda q: ReviewDecision("approve", decided_by="rita"))
    result = run({"steps": [
        *SIGN_IN,
        {"kind": "click", "target": "Invoices"},
        {"kind": "click", "target": {"resource_id": "invoice_3"}},
        {"kind": "click", "target": {"role": "button", "name": "Pay"}},
        {"kind": "wait_for", "text": "Payment sent"},
    ]}, recorder=recorder, safety=SafetyGate(hold_s=30))
    assert result.status == "succeeded", result.reason
    (question,) = recorder.questions
    assert question.verdict["decision"] == "review" and question.verdict["category"] == "PAY"
    assert question.target["name"] == "Pay" and question.target["rect"][2] > 100  # the button's box, device pixels
    assert question.screenshot and question.screenshot[:2] == b"\xff\xd8"
    x, y, _, height = question.target["rect"]
    with Image.open(io.BytesIO(question.screenshot)) as shot:  # the Pay button is framed in the mark colour
        assert shot.size == (1080, 2400)
        assert _near(shot.convert("RGB").getpixel((int(x) - 6, int(y + height / 2))), MARK)
    assert question.url == "android-app://com.venus.practice/.InvoiceActivity"


def test_mobile_actions_tap_type_swipe_launch_and_keys_drive_the_device(adb, phone, device):
    from venus_rpa.devices.hosts import android_host

    async def go():
        host = android_host()
        env = await host.new_environment(allowed_domains=[], secrets=SecretBox())
        try:
            await env.execute(M.LaunchApp(app="venus pay"))
            shot = await env.observe()
            assert (shot.width, shot.height) == (1080, 2400)
            assert env.location() == "android-app://com.venus.practice/.SignInActivity"
            field = (await env.hierarchy()).find(S.Target(label="Username"), purpose="input")[0][0]
            x, y = field.center
            await env.execute(M.Click(point=(x * 1000 // 1080 + 1, y * 1000 // 2400 + 1)))
            await env.execute(M.Type(content="démo ✓"))
            assert (await env.hierarchy()).focused().text == "démo ✓"
            await env.execute(M.PressHome())
            await env.observe()
            assert env.location() == "android-app://com.android.launcher3/.Launcher"
            unknown = await asyncio.gather(env.execute(M.LaunchApp(app="Mail")), return_exceptions=True)
            assert "no app called 'Mail' on this device (its app table has: Settings, Venus Pay)" in str(unknown[0])
        finally:
            await env.close()

    asyncio.run(go())


def test_a_swipe_up_scrolls_the_list_to_reveal_items_below(adb, phone, device):
    from venus_rpa.devices.hosts import android_host

    async def go():
        host = android_host()
        env = await host.new_environment(allowed_domains=[], secrets=app_secrets())
        try:
            for step in SIGN_IN:
                await host.explicit_executor(env).run(_step(step))
            await host.explicit_executor(env).run(_step({"kind": "click", "target": "Invoices"}))
            def shown(hierarchy, number: int) -> bool:
                return bool(hierarchy.find(S.Target(resource_id=f"invoice_{number}"), purpose="any"))

            before = await env.hierarchy()
            assert shown(before, 1) and not shown(before, 30)
            await env.execute(M.Swipe(start=(500, 800), end=(500, 200)))  # the finger moves up: content below
            after = await env.hierarchy()
            assert shown(after, 20) and not shown(after, 1)
        finally:
            await env.close()

    asyncio.run(go())


def test_the_device_hierarchy_comes_from_uiautomator_through_adb(adb, phone):
    device = AdbDevice(phone.serial, adb_port=adb.port)
    hierarchy = Hierarchy.parse(asyncio.run(device.ui_dump()))
    assert hierarchy.nodes[0].class_name == "android.widget.FrameLayout"
    assert hierarchy.nodes[0].bounds == (0, 0, 1080, 2400)


def _step(data: dict):
    from pydantic import TypeAdapter

    return TypeAdapter(S.Step).validate_python(data)


def _near(pixel, colour, tolerance: int = 60) -> bool:
    rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5)) if isinstance(colour, str) else colour
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, rgb))
