"""Per-step cost of the platform against bare Playwright, on the demo automation.

Platform: the real Runner as workers build it (DOM grounding, the CAPTCHA and safety gates on
every step, JPEG screenshot per step, Step rows + screenshot files through DjangoRecorder, live
events over the Redis channel layer). Bare: the same actions with
hard-coded selectors plus one `page.screenshot(jpeg, q80)` per step, on a Chromium of its own
(bare Playwright, no pool). Both in this process, alternating, against the practice site. Prints JSON.

    .venv/bin/python benchmarks/step_overhead.py [--runs 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from _stack import practice_site, setup_django


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class TimingRecorder:
    """Wraps the platform recorder and notes when each step started (wall clock)."""

    def __init__(self, inner) -> None:
        self.inner, self.starts = inner, []

    async def record_step(self, record) -> None:
        self.starts.append((record.index, record.started_at, record.act_ms + record.observe_ms))
        await self.inner.record_step(record)

    async def heartbeat(self) -> bool:
        return await self.inner.heartbeat()


async def platform_run(host, spec, params, secrets, run_id: int, end_marks: list[float]) -> list[float]:
    from venus_rpa.runs.execution import DjangoRecorder, build_runner

    recorder = TimingRecorder(DjangoRecorder(run_id))
    runner = build_runner()  # what workers run: the CAPTCHA and safety gates on every step
    runner.hosts = {"web": host}
    result = await runner.run(spec, params=params, secrets=secrets, recorder=recorder)
    end = time.time()
    await recorder.inner.close()
    assert result.status == "succeeded", result.reason
    starts = sorted(recorder.starts)
    # Wall time from one step's start to the next: includes grounding, acting, the screenshot and
    # whatever recording costs the loop. The last step ends when the run returns (verdict included).
    durations = [(b[1] - a[1]) * 1000 for a, b in zip(starts, starts[1:])]
    durations.append((end - starts[-1][1]) * 1000)
    end_marks.append(end)
    return durations


async def bare_run(browser, base: str, params: dict) -> list[float]:
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    durations: list[float] = []

    async def step(coro):
        t0 = time.perf_counter()
        await coro
        await page.wait_for_load_state("domcontentloaded")
        await page.screenshot(type="jpeg", quality=80)
        durations.append((time.perf_counter() - t0) * 1000)

    await step(page.goto(base + "/login", wait_until="domcontentloaded"))
    await step(page.fill("#username", "demo"))
    await step(page.fill("#password", "demo-password"))
    await step(page.click("button[type=submit]"))
    await step(page.get_by_text("Step 1 of 2").wait_for())
    await step(page.fill("#title", params["title"]))
    await step(page.fill("#amount", params["amount"]))
    await step(page.fill("#date", params["date"]))
    await step(page.select_option("#category", label=params["category"]))
    await step(page.click("button[type=submit]"))
    await step(page.set_input_files("#receipt", {"name": "receipt.txt", "mimeType": "text/plain", "buffer": b"r"}))
    await step(page.fill("#notes", params["notes"]))
    await step(page.check("#confirm"))
    await step(page.click("button:text-is('Submit expense')"))
    await step(page.get_by_text("Expense submitted").wait_for())

    async def extract():
        assert "EXP-" in await page.inner_text("#reference")

    await step(extract())
    await context.close()
    return durations


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    setup_django()
    from django.conf import settings
    from django.core.management import call_command

    from venus_rpa.automations.models import Automation
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.services import params_validate, secrets_for, spec_for
    from playwright.async_api import async_playwright

    from workers.envs.browser import CHROMIUM_ARGS, BrowserConfig
    from workers.envs.pool import BrowserPool

    with practice_site(quiet=True) as base:
        call_command("seed_demo", practice_url=base, stdout=open("/dev/null", "w"))
        automation = Automation.objects.select_related("workspace", "current_version").get(slug="demo-expense")
        version = automation.current_version
        params = params_validate(schema=version.param_schema, params={})

        async def go():
            host = BrowserPool(BrowserConfig(  # the worker's egress settings (process.browser_host)
                executable_path=settings.VENUS_CHROMIUM_PATH, egress_allow_private=tuple(settings.VENUS_EGRESS_ALLOW_PRIVATE)))
            playwright = await async_playwright().start()  # bare Playwright: its own Chromium, no pool
            bare_browser = await playwright.chromium.launch(executable_path=settings.VENUS_CHROMIUM_PATH,
                                                            args=CHROMIUM_ARGS)
            platform, bare, marks = [], [], []
            from asgiref.sync import sync_to_async

            for i in range(args.runs + 1):  # the first round warms up both paths and is dropped
                run = await sync_to_async(Run.objects.create)(
                    workspace=automation.workspace, automation=automation, version=version, params=params,
                    status="running")
                spec = await sync_to_async(spec_for)(run=run)
                secrets = await sync_to_async(secrets_for)(run=run)
                p = await platform_run(host, spec, params, secrets, run.pk, marks)
                b = await bare_run(bare_browser, base, params)
                if i:
                    platform += p
                    bare += b
            await host.close()
            await playwright.stop()
            return platform, bare

        platform, bare = asyncio.run(go())
    p50, b50 = statistics.median(platform), statistics.median(bare)
    print(json.dumps({
        "benchmark": "step_overhead",
        "runs": args.runs,
        "steps_per_run": len(platform) // args.runs,
        "platform_ms_p50": round(p50, 1),
        "platform_ms_p95": round(percentile(platform, 0.95), 1),
        "bare_ms_p50": round(b50, 1),
        "bare_ms_p95": round(percentile(bare, 0.95), 1),
        "platform_run_ms_mean": round(sum(platform) / args.runs, 1),
        "bare_run_ms_mean": round(sum(bare) / args.runs, 1),
        "overhead_ratio": round(p50 / b50, 3),
        "overhead_ratio_total": round(sum(platform) / sum(bare), 3),
        "target_overhead_ratio": 1.3,
    }, indent=2))


if __name__ == "__main__":
    main()
