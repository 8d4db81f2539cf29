"""Android runs end to end: a real Celery worker consuming the `android` queue leases devices from
the registry (PostgreSQL), drives them through adbutils and a real adb server, and the devices
are emulated phones speaking the adb protocol (`practice.android`)."""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import wait_for_run
from tests.helpers.android import adb_server, emulated_phone
from tests.helpers.fake_model import venus
from tests.helpers.worker import celery_worker

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
APPS = {"Venus Pay": "com.venus.practice"}
LOGIN = "{{credentials.android-login.%s}}"
SIGN_IN = [
    {"kind": "fill", "target": "Username", "value": LOGIN % "username"},
    {"kind": "fill", "target": {"label": "Password"}, "value": LOGIN % "password"},
    {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
    {"kind": "wait_for", "text": "Signed in as demo"},
]


@pytest.fixture(scope="module")
def adb(tmp_path_factory):
    with adb_server() as server:
        yield server


@pytest.fixture(scope="module")
def phones(adb, tmp_path_factory):
    logs = tmp_path_factory.mktemp("phones")
    with emulated_phone(adb, log_path=logs / "a.log") as first, emulated_phone(adb, log_path=logs / "b.log") as second:
        yield [first, second]


@pytest.fixture(scope="module")
def android_worker(django_db_setup, django_db_blocker, adb, model_server, tmp_path_factory):
    log = tmp_path_factory.mktemp("android-worker") / "worker.log"
    env = {"VENUS_ADB_SERVERS": f"127.0.0.1:{adb.port}", "VENUS_MODEL_URL": model_server.url,
           "VENUS_MODEL": model_server.model, "VENUS_MODEL_TRIES": "2", "VENUS_MODEL_TIMEOUT": "10",
           "VENUS_ANDROID_ACQUIRE_TIMEOUT_SECONDS": "60", "VENUS_REVIEW_HOLD_SECONDS": "2"}
    with celery_worker(queues="android", name="android", log_path=log, extra_env=env, concurrency=3) as proc:
        yield proc
    print(f"android worker log: {log}")


@pytest.fixture
def devices(demo, adb, phones, settings):
    """Both phones registered (shared, as the operator does), reset to their home screens; the
    app's sign-in in the vault, typed only into the app (its package is the credential's domain)."""
    from venus_rpa.automations.services import credential_set
    from venus_rpa.devices.services import device_register

    credential_set(workspace=demo["workspace"], name="android-login", domains=["com.venus.practice"],
                   fields={"username": "demo", "password": "demo-password"})
    settings.VENUS_ADB_SERVERS = [f"127.0.0.1:{adb.port}"]
    for phone in phones:
        adb.adb("-s", phone.serial, "shell", "am force-stop com.venus.practice")
    return [device_register(workspace=None, serial=p.serial, adb_port=adb.port, apps=APPS) for p in phones]


def android_automation(demo, slug: str, steps: list[dict], **definition):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=demo["workspace"], user=None, slug=slug, name=slug, definition={
        "surface": "android", "start_url": "app:Venus Pay", "steps": steps, "credentials": ["android-login"],
        **definition})


def start(automation, **params):
    from venus_rpa.runs.services import run_start

    return run_start(automation=automation, params=params)


def test_an_explicit_step_automation_signs_in_and_saves_a_name_in_any_script(android_worker, demo, devices):
    automation = android_automation(demo, "android-profile", [
        *SIGN_IN,
        {"kind": "click", "target": "Edit profile"},
        {"kind": "fill", "target": {"label": "Full name"}, "value": "{{name}}"},
        {"kind": "click", "target": {"resource_id": "save_profile"}},
    ], param_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        success_criteria={"text_visible": "Saved: 王小明 Zoë"})
    run = wait_for_run(start(automation, name="王小明 Zoë").pk, statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", run.status_reason
    steps = list(run.steps.order_by("index"))
    assert [s.kind for s in steps][:2] == ["goto", "fill"] and all(s.screenshot for s in steps)
    assert steps[-1].url == "android-app://com.venus.practice/.ProfileActivity"
    assert run.verdict["evidence"]["text_visible"]["ok"] is True


def test_an_agent_step_completes_with_points_measured_on_the_real_screen(android_worker, demo, devices, fake_model, adb,
                                                                         phones):
    from workers.envs.android.hierarchy import Hierarchy
    from workers.steps import Target

    def tap(**target):
        """A Click on the target's centre as the screen shows it now, in the model's 0-1000 space."""
        def answer(_request):
            serial = next(p.serial for p in phones if _foreground(adb, p.serial).startswith("com.venus.practice"))
            xml = adb.adb("-s", serial, "shell", "uiautomator dump /sdcard/t.xml >/dev/null && cat /sdcard/t.xml")
            node = Hierarchy.parse(xml).find(Target(**target), purpose="any")[0][0]
            x, y = node.center
            return venus(f"Tap {target}.", f"Click(point=({x * 1000 // 1080 + 1}, {y * 1000 // 2400 + 1}))")
        return answer

    fake_model.script(
        tap(label="Username"), venus("Type the user.", "Type(content='{{credentials.android-login.username}}')"),
        tap(label="Password"), venus("Type the password.", "Type(content='{{credentials.android-login.password}}')"),
        tap(text="Sign in"), tap(text="Edit profile"), tap(label="Full name"),
        venus("Type the name.", "Type(content='李雷')"), tap(text="Save profile"),
        venus("The profile is saved.", "Finished(content='saved')"),
    )
    automation = android_automation(demo, "android-agent", [{"kind": "agent", "goal": "Sign in and save the name 李雷"}],
                                    success_criteria={"text_visible": "Saved: 李雷"})
    run = wait_for_run(start(automation).pk, statuses=TERMINAL, timeout=180)
    assert run.status == "succeeded", run.status_reason
    agent_steps = list(run.steps.filter(kind="agent").order_by("index"))
    assert len(agent_steps) == 10
    first = agent_steps[0]
    assert first.grounding["viewport"] == {"width": 1080, "height": 2400}
    assert "Click" in first.action["text"] and first.grounding["mapped"][0]["x"] > 0
    prompt = fake_model.requests[0]["messages"][0]["content"]
    assert "Sign in and save the name 李雷" in str(prompt)


def test_the_pay_control_goes_to_review_and_waits_then_pays_once_approved(android_worker, demo, devices):
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.reviews.services import review_decide

    automation = android_automation(demo, "android-pay", [
        *SIGN_IN,
        {"kind": "click", "target": "Invoices"},
        {"kind": "click", "target": {"resource_id": "invoice_2"}},
        {"kind": "click", "target": {"role": "button", "name": "Pay"}},
        {"kind": "wait_for", "text": "Payment sent"},
    ])
    run = wait_for_run(start(automation).pk, statuses={"awaiting_review", *TERMINAL}, timeout=120)
    assert run.status == "awaiting_review", run.status_reason
    review = ReviewRequest.objects.get(run=run)
    assert review.kind == "risky_action" and review.screenshot
    assert review.detail["target"]["name"] == "Pay"
    from venus_rpa.pools.models import Lease
    from venus_rpa.runs.models import RunContinuation

    deadline = time.monotonic() + 30  # past the 2 s hold the run is parked: no worker, the device kept
    while not RunContinuation.objects.filter(run=run).exists():
        assert time.monotonic() < deadline, "the run was never parked"
        time.sleep(0.2)
    run.refresh_from_db()
    assert run.status == "awaiting_review" and run.worker == ""  # it waits: nothing was paid
    [kept] = Lease.objects.filter(run=run, released_at__isnull=True)
    assert kept.holder == f"parked:run-{run.pk}" and f"device {kept.resource.key} kept" in run.status_reason
    review_decide(review=review, user=demo["workspace"].memberships.first().user, decision="approve")
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=60)
    assert run.status == "succeeded", run.status_reason  # on the same device, still on the invoice
    assert [lease.pk for lease in Lease.objects.filter(run=run)] == [kept.pk]
    kept.refresh_from_db()
    assert kept.released_at and kept.release_reason == "released"


def test_a_device_that_disconnects_ends_the_run_and_the_next_run_goes_to_a_healthy_device(
        android_worker, demo, devices, adb, tmp_path):
    from venus_rpa.devices.services import device_register, device_update
    from venus_rpa.pools.models import Lease

    healthy = devices[0]
    device_update(device=healthy, status="disabled")  # the first run must get the doomed phone
    with emulated_phone(adb, log_path=tmp_path / "doomed.log") as doomed:
        device_register(workspace=None, serial=doomed.serial, adb_port=adb.port, apps=APPS)
        device_update(device=devices[1], status="disabled")
        automation = android_automation(demo, "android-waits", [
            {"kind": "wait_for", "text": "Something that never comes", "timeout_s": 120}])
        run = start(automation)
        deadline = time.monotonic() + 60
        while not Lease.objects.filter(run=run, released_at__isnull=True).exists():
            assert time.monotonic() < deadline, "the run never leased the doomed phone"
            time.sleep(0.2)
        time.sleep(1.5)
        doomed.kill()
        run = wait_for_run(run.pk, statuses=TERMINAL, timeout=60)
        assert run.status == "failed"
        assert f"device {doomed.serial} disconnected" in run.status_reason
        doomed_device = Lease.objects.filter(run=run).first().resource
        doomed_device.refresh_from_db()
        assert doomed_device.key == doomed.serial and doomed_device.status == "offline"
        device_update(device=healthy, status="available")
        nxt = wait_for_run(start(android_automation(demo, "android-next", SIGN_IN)).pk, statuses=TERMINAL, timeout=120)
        assert nxt.status == "succeeded", nxt.status_reason
        assert Lease.objects.get(run=nxt).resource.key == healthy.serial
    device_update(device=devices[1], status="available")


def test_two_runs_never_share_a_device(android_worker, demo, devices):
    from venus_rpa.pools.models import Lease

    automation = android_automation(demo, "android-three", [*SIGN_IN, {"kind": "click", "target": "Invoices"},
                                                            {"kind": "wait_for", "text": "Invoice #1 "}])
    runs = [start(automation) for _ in range(3)]
    done = [wait_for_run(r.pk, statuses=TERMINAL, timeout=240) for r in runs]
    assert [r.status for r in done] == ["succeeded"] * 3, [r.status_reason for r in done]
    leases = list(Lease.objects.filter(run__in=runs).select_related("resource"))
    assert len(leases) == 3 and all(lease.released_at for lease in leases)
    for a in leases:
        for b in leases:
            if a.pk < b.pk and a.resource_id == b.resource_id:
                assert a.released_at <= b.acquired_at or b.released_at <= a.acquired_at, "a device was shared"
    overlapping = [(a, b) for a in leases for b in leases
                   if a.pk < b.pk and a.acquired_at < b.released_at and b.acquired_at < a.released_at]
    assert overlapping and all(a.resource_id != b.resource_id for a, b in overlapping)


def _foreground(adb, serial: str) -> str:
    out = adb.adb("-s", serial, "shell", "dumpsys window windows")
    return out.split(" u0 ", 1)[1].split("/", 1)[0] if " u0 " in out else ""
