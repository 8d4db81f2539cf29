"""The desktop section of `benchmarks/surfaces.py` (`--only desktop`).

On one Xvfb display with openbox, in this process:
- `observe_ms_p50`: the platform's `DesktopEnvironment.observe()` (mss grab, JPEG q85, the active
  window's title); `direct_observe_ms_p50`: the same grab and JPEG through mss and Pillow directly.
- `act_ms_p50`: the platform's `execute(Click(box=...))` on an inert spot of the text editor
  (mapped /999, one xdotool call); `direct_act_ms_p50`: `xdotool mousemove X Y click 1` directly.
- `overhead_ratio`: (observe + act) / (direct observe + direct act), p50s.
- `explicit_success` / `agent_success`: runs of the practice task (write a note in mousepad and
  save it as note.txt) that succeeded out of `runs`, each on a fresh session of the leased display,
  through the production `Runner` with the safety gate. The agent's model is the UI-Venus test
  double, answering with a point measured (OCR) on the screenshot it is sent.
"""

from __future__ import annotations

import asyncio
import base64
import io
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.helpers.fake_model import FakeModel, venus  # noqa: E402

SEED = ROOT / "practice" / "desktop" / "seed"
INERT = (500, 700)  # the editor's empty text area: a click there changes nothing


def p50(values: list[float]) -> float:
    return round(statistics.median(values), 1)


async def timed(fn, samples: int) -> list[float]:
    out = []
    for _ in range(samples):
        t0 = time.perf_counter()
        await fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


class OneDisplay:
    """The lease port over a single display, in memory (this benchmark runs one run at a time)."""

    def __init__(self, display: str) -> None:
        self.display, self.held = display, False

    async def acquire(self):
        if self.held:
            return None
        self.held = True
        return 1, self.display

    async def heartbeat(self, lease_id: int) -> bool:
        return self.held

    async def release(self, lease_id: int) -> None:
        self.held = False


class Recorder:
    """An in-memory RunRecorder; a review (none is expected) is approved at once."""

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


NOTE_STEPS = [
    {"kind": "fill", "target": {"role": "textbox"}, "value": "Grüße {{name}}"},
    {"kind": "press", "key": "ctrl+s"},
    {"kind": "wait_for", "url_contains": "Save As"},
    {"kind": "fill", "target": {"role": "textbox"}, "value": "note.txt\n"},
    {"kind": "wait_for", "url_contains": "note.txt", "timeout_s": 20},
]


def _measured_click(body: dict):
    """Click 200 px below the editor's File menu, as OCR finds it on the screenshot sent."""
    from PIL import Image

    from workers import ocr

    last = [m for m in body["messages"] if m["role"] == "user"][-1]
    url = [p["image_url"]["url"] for p in last["content"] if p["type"] == "image_url"][-1]
    image = base64.b64decode(url.split(",", 1)[1])
    width, height = Image.open(io.BytesIO(image)).size
    [box, *_] = ocr.find_text(image, "File")
    x, y = box.center
    return venus("Click into the text area.", f"Click(box=({x * 999 // width}, {(y + 200) * 999 // height}))")


def _agent_script(model: FakeModel) -> None:
    model.script(_measured_click, venus("Type the note.", "Type(content='Grüße Ada')"),
                 venus("Save it.", "Hotkey(keys=['ctrl', 's'])"),
                 venus("Name the file.", "Type(content='note.txt\\n')"),
                 venus("Saved.", "Finished(content='saved')"))


async def _direct(display: str, samples: int) -> tuple[list[float], list[float]]:
    import mss
    from PIL import Image

    env = {"DISPLAY": display, "PATH": "/usr/bin:/bin"}
    grabber = mss.MSS(display=display)
    x, y = INERT[0] * 1280 // 999, INERT[1] * 800 // 999

    async def observe():
        shot = grabber.grab(grabber.monitors[1])
        Image.frombytes("RGB", shot.size, shot.rgb).save(io.BytesIO(), "JPEG", quality=85)

    async def act():
        subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], env=env, check=True)

    try:
        return await timed(observe, samples), await timed(act, samples)
    finally:
        grabber.close()


async def _runs(host, runs: int, steps: list[dict], *, model: FakeModel | None) -> int:
    from workers.agent import AgentConfig, AgentLoop
    from workers.gates.guard import SafetyGate
    from workers.policies.client import ModelClient, ModelSettings
    from workers.runner import Runner
    from workers.secrets import SecretBox
    from workers.steps import AutomationSpec

    agent = AgentLoop(ModelClient(ModelSettings(url=model.url, model=model.model, tries=1)), AgentConfig()) if model else None
    runner = Runner({"desktop": host}, agent=agent, safety=SafetyGate(hold_s=5))
    spec = AutomationSpec.model_validate({"surface": "desktop", "start_url": "app:mousepad", "steps": steps,
                                          "success_criteria": {"text_visible": "note.txt"}})
    ok = 0
    for _ in range(runs):
        if model is not None:
            model.clear()
            _agent_script(model)
        result = await runner.run(spec, params={"name": "Ada"}, secrets=SecretBox(), recorder=Recorder())
        ok += result.status == "succeeded"
        if result.status != "succeeded":
            print(f"desktop run failed: {result.reason}", file=sys.stderr)
    return ok


def desktop(runs: int = 20, samples: int = 30) -> dict:
    from workers import actions_desktop as D
    from workers.envs.desktop_host import DesktopConfig, DesktopHost
    from workers.envs.xdisplay import XServer, free_display
    from workers.secrets import SecretBox

    server = XServer(free_display(400)).start()
    try:
        leases = OneDisplay(server.display)
        host = DesktopHost(DesktopConfig(seed_dir=SEED), lambda run_id: leases)

        async def go() -> dict:
            env = await host.new_environment(allowed_domains=[], secrets=SecretBox())
            await env.start_app("app:mousepad")
            observe = await timed(env.observe, samples)
            act = await timed(lambda: env.execute(D.Click(box=INERT)), samples)
            await env.close()
            d_observe, d_act = await _direct(server.display, samples)
            explicit = await _runs(host, runs, NOTE_STEPS, model=None)
            with FakeModel() as model:
                agent = await _runs(host, runs, [{"kind": "agent", "goal": "Write a note and save it as note.txt",
                                                  "max_actions": 8}], model=model)
            return {"observe_ms_p50": p50(observe), "act_ms_p50": p50(act), "direct_observe_ms_p50": p50(d_observe),
                    "direct_act_ms_p50": p50(d_act),
                    "overhead_ratio": round((p50(observe) + p50(act)) / (p50(d_observe) + p50(d_act)), 3),
                    "explicit_success": f"{explicit}/{runs}", "agent_success": f"{agent}/{runs}",
                    "screen": "1280x800", "task": "mousepad: write a note, save it as note.txt"}

        return asyncio.run(go())
    finally:
        server.stop()

