"""What one worker process builds once and shares between its runs: the UI-Venus loop (one
pooled model client), the CAPTCHA gate, and the web's browser pool, registered as the "web" host
(`venus_rpa.runs.hosts`) and closed when the worker or the interpreter stops. `runs.execution`
hands them to each run's `Runner`."""

from __future__ import annotations

import asyncio
import atexit
import logging
import signal

from celery.signals import worker_init, worker_process_shutdown, worker_shutdown
from django.conf import settings

from venus_rpa.runs.hosts import host_for, hosts_close, register_host
from venus_rpa.runs.judging import step_judge
from venus_rpa.runs.run_files import run_file_store
from workers.agent import AgentConfig, AgentLoop
from workers.captcha.gate import CaptchaGate
from workers.captcha.local import LocalCaptchaSolver
from workers.captcha.model import ModelCaptchaSolver
from workers.envs.browser import BrowserConfig
from workers.envs.pool import BrowserPool, PoolSettings
from workers.loop import runtime_loop
from workers.policies.client import ModelClient, ModelSettings, Sampling

log = logging.getLogger(__name__)
_host: BrowserPool | None = None


_agent: AgentLoop | None = None


def agent_loop() -> AgentLoop | None:
    """This worker process's UI-Venus loop (one pooled model client), or None without a model."""
    global _agent
    if not settings.VENUS_MODEL_URL:
        return None
    if _agent is None:
        client = ModelClient(ModelSettings(
            url=settings.VENUS_MODEL_URL, model=settings.VENUS_MODEL, api_key=settings.VENUS_API_KEY,
            timeout_s=settings.VENUS_MODEL_TIMEOUT, tries=settings.VENUS_MODEL_TRIES,
        ))
        _agent = AgentLoop(client, AgentConfig(
            history_images=settings.VENUS_HISTORY_IMAGES, max_pixels=settings.VENUS_MAX_PIXELS,
            sampling=Sampling(temperature=settings.VENUS_NAV_TEMPERATURE, max_tokens=settings.VENUS_NAV_MAX_TOKENS),
            prompt_dir=settings.VENUS_PROMPT_DIR or None, step_judge=step_judge(),
        ))
    return _agent


_captcha: CaptchaGate | None = None


def captcha_gate() -> CaptchaGate:
    """This worker process's CAPTCHA gate: local solvers always, the model's CAPTCHA mode when a
    model server is configured, a person through the review queue."""
    global _captcha
    if _captcha is None:
        agent = agent_loop()
        model = ModelCaptchaSolver(agent.client, prompt_dir=settings.VENUS_PROMPT_DIR or None) if agent else None
        _captcha = CaptchaGate(local=LocalCaptchaSolver(), model=model)
    return _captcha


_worker_slots = 0  # this worker's concurrency, once it is known (worker_init)


@worker_init.connect
def _worker_slots_seen(sender=None, **_: object) -> None:
    """The worker's concurrency: its browser pool keeps that many slots for runs, and lanes of a
    run's for_each block take only what is left (workers.envs.pool.PoolSettings.run_slots)."""
    global _worker_slots
    try:
        _worker_slots = int(getattr(sender, "concurrency", 0) or 0)
    except (TypeError, ValueError):  # "auto": resolved later; lanes then keep no slots back
        _worker_slots = 0


@worker_init.connect
def _dump_on_sigusr2(**_: object) -> None:
    """`kill -USR2 <worker pid>` writes to the worker's log where every run of the process is
    waiting (`RuntimeLoop.dump`): what an operator needs to see when a run stalls."""
    def dump(*_: object) -> None:
        log.warning("runtime loop on SIGUSR2:\n%s", runtime_loop.dump())

    signal.signal(signal.SIGUSR2, dump)


def browser_host() -> BrowserPool:
    """This worker process's browser pool (Chromium launched on first use, closed at exit)."""
    global _host
    if _host is None:
        _host = BrowserPool(
            BrowserConfig(executable_path=settings.VENUS_CHROMIUM_PATH, headless=settings.VENUS_HEADLESS,
                          egress_allow_private=tuple(settings.VENUS_EGRESS_ALLOW_PRIVATE),
                          download_max_bytes=settings.VENUS_DOWNLOAD_MAX_BYTES),
            PoolSettings(max_browsers=settings.VENUS_BROWSERS_PER_WORKER,
                         contexts_per_browser=settings.VENUS_CONTEXTS_PER_BROWSER,
                         recycle_after_runs=settings.VENUS_BROWSER_RECYCLE_RUNS,
                         memory_ceiling_mb=settings.VENUS_BROWSER_MEMORY_CEILING_MB,
                         crash_policy=settings.VENUS_BROWSER_CRASH_POLICY,
                         health_interval_s=settings.VENUS_BROWSER_HEALTH_SECONDS,
                         acquire_timeout_s=settings.VENUS_BROWSER_ACQUIRE_TIMEOUT_SECONDS,
                         idle_close_s=settings.VENUS_BROWSER_IDLE_CLOSE_SECONDS, run_slots=_worker_slots),
            files_for=run_file_store)
        atexit.register(browser_pool_close)
    return _host


register_host("web", browser_host)


@worker_shutdown.connect
@worker_process_shutdown.connect
def browser_pool_close(**_: object) -> None:
    """Close this process's hosts, the browser pool among them (worker shutdown, interpreter
    exit); idempotent."""
    global _host
    pool, _host = _host, None
    if pool is not None and host_for("web") is not pool:  # built outside the registry (benchmarks)
        try:
            runtime_loop.run(asyncio.wait_for(pool.close(), 30))
        except Exception:  # shutting down: Chromium still dies with this process (workers.envs.chromium)
            log.warning("closing the browser pool failed", exc_info=True)
    hosts_close()
