"""Surfaces benchmark: what the platform's environment layer costs on each surface against the same
actions done directly in the same script, and how reliably the practice task completes.

Per surface (one section each, `SECTIONS`):
- `observe_ms_p50`: the platform's `Environment.observe()` (web: a JPEG of the viewport; Android:
  screencap + uiautomator hierarchy + foreground activity, PNG converted to JPEG; desktop: an mss
  grab of the Xvfb display as JPEG, in `_surface_desktop.py`).
- `act_ms_p50`: the platform's `Environment.execute(Click)` on an inert spot.
- `direct_observe_ms_p50` / `direct_act_ms_p50`: the same through Playwright (page.screenshot,
  mouse.click) / adbutils (shell screencap -p and uiautomator dump, click) directly.
- `overhead_ratio`: (observe + act) / (direct observe + direct act), p50s.
- `explicit_success` / `agent_success`: runs of the practice task that succeeded out of `--runs`,
  on the production runner with the safety gate; the agent's model is the test double answering
  with points measured on the real screen.

    .venv/bin/python benchmarks/surfaces.py [--runs 20] [--samples 30] [--only web,android,desktop]

A section is a function (runs, samples) -> dict; a surface adds its own to SECTIONS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Awaitable, Callable

from _stack import practice_site, setup_django
from _surface_desktop import desktop

from tests.helpers.fake_model import FakeModel, venus

Section = Callable[[int, int], dict]


def p50(values: list[float]) -> float:
    return round(statistics.median(values), 1)


async def timed(fn: Callable[[], Awaitable], samples: int) -> list[float]:
    out = []
    for _ in range(samples):
        t0 = time.perf_counter()
        await fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def ratios(observe: list[float], act: list[float], d_observe: list[float], d_act: list[float]) -> dict:
    return {"observe_ms_p50": p50(observe), "act_ms_p50": p50(act), "direct_observe_ms_p50": p50(d_observe),
            "direct_act_ms_p50": p50(d_act),
            "overhead_ratio": round((p50(observe) + p50(act)) / (p50(d_observe) + p50(d_act)), 3)}


class Recorder:
    """An in-memory RunRecorder whose reviews are approved at once (the task has no risky step)."""

    async def record_step(self, record) -> None:
        pass

    async def heartbeat(self) -> bool:
        return True

    async def open_review(self, question) -> str:
        return "1"

    async def wait_review(self, review, *, timeout_s):
        from workers.gates.review import ReviewDecision

        return ReviewDecision("approve", decided_by="bench")

    async def note_review(self, review, facts) -> None:
        pass


def agent_loop(model: FakeModel):
    from workers.agent import AgentConfig, AgentLoop
    from workers.policies.client import ModelClient, ModelSettings

    return AgentLoop(ModelClient(ModelSettings(url=model.url, model=model.model, tries=1)), AgentConfig())


# -- web ------------------------------------------------------------------------------------------
def web(runs: int, samples: int) -> dict:
    from playwright.async_api import async_playwright

    from tests.helpers.layout import practice_layout
    from workers import actions as A
    from workers.envs.browser import BrowserConfig
    from workers.envs.pool import BrowserPool
    from workers.gates.guard import SafetyGate
    from workers.runner import Runner
    from workers.secrets import SecretBox
    from workers.steps import AutomationSpec

    with practice_site(quiet=True) as base, FakeModel() as model:
        points = practice_layout(base)
        inert = (500, 960)  # below the login form: nothing there

        async def go() -> dict:
            pool = BrowserPool(BrowserConfig(egress_allow_private=("127.0.0.1",)))
            env = await pool.new_environment(allowed_domains=["127.0.0.1"], secrets=SecretBox())
            await env.goto(base + "/login")
            observe = await timed(env.observe, samples)
            act = await timed(lambda: env.execute(A.Click(point=inert)), samples)
            await env.close()
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                await page.goto(base + "/login")
                x, y = A.map_point(inert, width=1280, height=800)
                d_observe = await timed(lambda: page.screenshot(type="jpeg", quality=80), samples)
                d_act = await timed(lambda: page.mouse.click(x, y), samples)
                await browser.close()
            figures = ratios(observe, act, d_observe, d_act)
            sign_in = [{"kind": "fill", "target": "Username", "value": "demo"},
                       {"kind": "fill", "target": "Password", "value": "demo-password"},
                       {"kind": "click", "target": {"role": "button", "name": "Sign in"}}]
            task = {"start_url": base + "/login", "allowed_domains": ["127.0.0.1"],
                    "success_criteria": {"text_visible": "Step 1 of 2"}}
            runner = Runner({"web": pool}, safety=SafetyGate(hold_s=30), agent=agent_loop(model))
            explicit = agent = 0
            for _ in range(runs):
                spec = AutomationSpec.model_validate({**task, "steps": sign_in})
                result = await runner.run(spec, params={}, secrets=SecretBox(), recorder=Recorder())
                explicit += result.status == "succeeded"
                model.clear()
                model.script(*web_agent_script(points))
                spec = AutomationSpec.model_validate({**task, "steps": [{"kind": "agent", "goal": "Sign in as demo"}]})
                result = await runner.run(spec, params={}, secrets=SecretBox(), recorder=Recorder())
                agent += result.status == "succeeded"
            await pool.close()
            return {**figures, "explicit_success": f"{explicit}/{runs}", "agent_success": f"{agent}/{runs}"}

        return asyncio.run(go())


def web_agent_script(points: dict) -> list:
    def click(name: str):
        x, y = points[name]
        return venus(f"Click {name}.", f"Click(point=({x}, {y}))")
    return [click("Username"), venus("Type.", "Type(content='demo')"), click("Password"),
            venus("Type.", "Type(content='demo-password')"), click("Sign in"), venus("Done.", "Finished(content='ok')")]


# -- android --------------------------------------------------------------------------------------
ANDROID_SIGN_IN = [
    {"kind": "goto", "url": "app:Venus Pay"},
    {"kind": "fill", "target": "Username", "value": "demo"},
    {"kind": "fill", "target": {"label": "Password"}, "value": "demo-password"},
    {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
    {"kind": "click", "target": "Edit profile"},
    {"kind": "fill", "target": {"label": "Full name"}, "value": "王小明"},
    {"kind": "click", "target": {"role": "button", "name": "Save profile"}},
]


def android(runs: int, samples: int) -> dict:
    import adbutils

    from tests.helpers.android import adb_server, emulated_phone

    with adb_server() as server, emulated_phone(server) as phone, FakeModel() as model:
        from django.conf import settings

        from venus_rpa.devices.hosts import android_host
        from venus_rpa.devices.services import device_register

        settings.VENUS_ADB_SERVERS = [f"127.0.0.1:{server.port}"]
        device_register(workspace=None, serial=phone.serial, adb_port=server.port, apps={"Venus Pay": "com.venus.practice"})
        direct = adbutils.AdbClient(port=server.port).device(phone.serial)
        return asyncio.run(_android(runs, samples, android_host(), direct, model, server, phone))


async def _android(runs: int, samples: int, host, direct, model: FakeModel, server, phone) -> dict:
    from workers import actions_mobile as M
    from workers.gates.guard import SafetyGate
    from workers.runner import Runner
    from workers.secrets import SecretBox
    from workers.steps import AutomationSpec

    env = await host.new_environment(allowed_domains=[], secrets=SecretBox())
    await env.execute(M.LaunchApp(app="Venus Pay"))
    inert = (500, 900)  # below the sign-in form
    observe = await timed(env.observe, samples)
    act = await timed(lambda: env.execute(M.Click(point=inert)), samples)
    await env.close()
    x, y = inert[0] * 1080 // 1000, inert[1] * 2400 // 1000

    async def direct_observe():
        await asyncio.to_thread(direct.shell, ["screencap", "-p"], encoding=None)
        await asyncio.to_thread(direct.shell, "uiautomator dump /sdcard/d.xml >/dev/null && cat /sdcard/d.xml")

    d_observe = await timed(direct_observe, samples)
    d_act = await timed(lambda: asyncio.to_thread(direct.click, x, y), samples)
    figures = ratios(observe, act, d_observe, d_act)

    runner = Runner({"android": host}, safety=SafetyGate(hold_s=30), agent=agent_loop(model))
    task = {"surface": "android", "start_url": "app:Venus Pay", "success_criteria": {"text_visible": "Saved: 王小明"}}
    explicit = agent = 0
    for _ in range(runs):
        server.adb("-s", phone.serial, "shell", "am force-stop com.venus.practice")
        spec = AutomationSpec.model_validate({**task, "steps": ANDROID_SIGN_IN[1:]})
        result = await runner.run(spec, params={}, secrets=SecretBox(), recorder=Recorder())
        explicit += result.status == "succeeded"
        server.adb("-s", phone.serial, "shell", "am force-stop com.venus.practice")
        model.clear()
        model.script(*android_agent_script(direct))
        spec = AutomationSpec.model_validate({**task, "steps": [{"kind": "agent", "goal": "Save the name 王小明"}]})
        result = await runner.run(spec, params={}, secrets=SecretBox(), recorder=Recorder())
        agent += result.status == "succeeded"
    await host.close()
    return {**figures, "explicit_success": f"{explicit}/{runs}", "agent_success": f"{agent}/{runs}"}


def android_agent_script(direct) -> list:
    """Taps computed from the phone's real hierarchy at the moment the model is asked."""
    from workers.envs.android.hierarchy import Hierarchy
    from workers.steps import Target

    def tap(**target):
        def answer(_body):
            xml = direct.shell("uiautomator dump /sdcard/m.xml >/dev/null && cat /sdcard/m.xml")
            x, y = Hierarchy.parse(xml).find(Target(**target), purpose="any")[0][0].center
            return venus(f"Tap {target}.", f"Click(point=({x * 1000 // 1080 + 1}, {y * 1000 // 2400 + 1}))")
        return answer

    return [tap(label="Username"), venus("Type.", "Type(content='demo')"), tap(label="Password"),
            venus("Type.", "Type(content='demo-password')"), tap(text="Sign in"), tap(text="Edit profile"),
            tap(label="Full name"), venus("Type.", "Type(content='王小明')"), tap(text="Save profile"),
            venus("Saved.", "Finished(content='saved')")]


# The desktop engineer adds "desktop" here.
SECTIONS: dict[str, Section] = {"web": web, "android": android, "desktop": desktop}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--only", default="", help="comma-separated surfaces (default: all)")
    args = parser.parse_args()
    setup_django()
    chosen = [s for s in args.only.split(",") if s] or list(SECTIONS)
    report = {}
    for surface in chosen:
        report[surface] = SECTIONS[surface](args.runs, args.samples)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
