"""`manage.py check_model`: does the configured UI-Venus server answer, in the format we parse?

Three checks, one line each, "ok" or "FAIL" (or "WARN") with the reason:

(a) models: `GET /models` lists the configured model name (otherwise the line names what the
    server does serve);
(b) navigation: one small browser request built exactly as agent steps build theirs (our prompt
    pack, `build_messages`, a generated 1280×800 screenshot of a dialog with an "OK" button),
    parsed with the runtime's parser; reports thought, action, latency and tokens;
(c) grounding: one grounding request for the OK button; reports whether the point falls inside
    it. A miss is a warning: it says something about the model's quality, not the setup.

Exit status 0 when (a) and (b) pass, 1 when either fails, 2 when no server URL is configured.
Each request is tried once with `--timeout` (default VENUS_MODEL_TIMEOUT), so the command
ends within about three timeouts even against a server that accepts connections and never
answers.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from PIL import Image, ImageDraw, ImageFont

from workers.actions import Click, map_point_for
from workers.agent import AgentConfig
from workers.errors import ConfigurationError
from workers.policies.client import ModelClient, ModelRequestError, ModelSettings, ModelUnavailable, Sampling
from workers.policies.messages import build_grounding_messages, build_messages
from workers.policies.parser import ParseError, parse_answer, parse_grounding
from workers.policies.prompts import load_prompt

WIDTH, HEIGHT = 1280, 800
BUTTON = (560, 370, 720, 430)  # left, top, right, bottom of the OK button, in pixels
TASK = "Click the OK button"
GROUNDING_INSTRUCTION = "the OK button"
PAGE_URL = "https://example.com/settings"


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without a scalable default font
        return ImageFont.load_default()


def _centred_text(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str, font, fill) -> None:
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    x = (box[0] + box[2] - (right - left)) / 2 - left
    y = (box[1] + box[3] - (bottom - top)) / 2 - top
    draw.text((x, y), text, font=font, fill=fill)


def dialog_screenshot() -> bytes:
    """A 1280×800 JPEG: a page with a dialog whose only button, "OK", is at `BUTTON`."""
    image = Image.new("RGB", (WIDTH, HEIGHT), (243, 244, 246))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 64), fill=(31, 41, 55))
    draw.text((24, 20), "Settings", font=_font(24), fill="white")
    draw.rectangle((420, 260, 860, 480), fill="white", outline=(209, 213, 219), width=2)
    _centred_text(draw, (420, 290, 860, 330), "Your changes were saved.", _font(26), (17, 24, 39))
    draw.rectangle(BUTTON, fill=(37, 99, 235), outline=(29, 78, 216), width=2)
    _centred_text(draw, BUTTON, "OK", _font(30), "white")
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def on_button(x: int, y: int) -> bool:
    return BUTTON[0] <= x <= BUTTON[2] and BUTTON[1] <= y <= BUTTON[3]


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    models_ok: bool = False
    navigation_ok: bool = False
    grounding_ok: bool = False

    def add(self, status: str, check: str, text: str) -> None:
        self.lines.append(f"{status:<5} {check}: {text}")

    def note(self, text: str) -> None:
        self.lines.append(f"{'':<5} {text}")


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


async def run_checks(client: ModelClient, *, model: str, prompt_dir: str | None, sampling: Sampling) -> Report:
    report = Report()
    screen = dialog_screenshot()

    # (a) the model list
    try:
        served = await client.list_models()
    except ModelUnavailable as exc:
        report.add("FAIL", "models", _error(exc))
        report.note("navigation and grounding not tried: the server is not reachable")
        return report
    except Exception as exc:  # noqa: BLE001 - a refusal, or an answer that is not a model list
        report.add("FAIL", "models", f"GET /models did not give a model list: {_error(exc)}")
    else:
        if model in served:
            others = [name for name in served if name != model]
            report.add("ok", "models", f"{model!r} is served" + (f" (also: {', '.join(others)})" if others else ""))
            report.models_ok = True
        else:
            names = ", ".join(repr(name) for name in served) or "nothing"
            report.add("FAIL", "models", f"{model!r} is not served here; the server serves {names} "
                                         "(set VENUS_MODEL to one of them)")

    # (b) one navigation turn, built and parsed as agent steps do
    try:
        prompt = load_prompt("browser", task=TASK, current_date=date.today().isoformat(), prompt_dir=prompt_dir)
        messages = build_messages(system=prompt.text, history=[], current_image=screen,
                                  feedback=f"Current URL: {PAGE_URL}")
        completion = await client.complete(messages, sampling)
    except (ModelUnavailable, ModelRequestError, ConfigurationError) as exc:
        report.add("FAIL", "navigation", _error(exc))
    else:
        try:
            parsed = parse_answer(completion.content, completion.reasoning, surface="browser",
                                  finish_reason=completion.finish_reason)
        except ParseError as exc:
            report.add("FAIL", "navigation", f"the answer is not in the UI-Venus format: {exc.message}")
            report.note(f"raw answer: {_one_line(completion.content)!r}")
        else:
            report.navigation_ok = True
            report.add("ok", "navigation", f"{parsed.action_text} in {completion.latency_ms:.0f} ms, "
                                           f"{completion.prompt_tokens} prompt + {completion.completion_tokens} "
                                           "completion tokens")
            report.note(f"thought: {_one_line(parsed.thought) or '(none: is thinking switched off on the server?)'}")
            clicks = [a for a in parsed.actions if isinstance(a, Click)]
            if clicks:
                x, y = map_point_for("browser", clicks[0].point, width=WIDTH, height=HEIGHT)
                where = "on the OK button" if on_button(x, y) else f"outside the OK button {BUTTON}"
                report.note(f"the click maps to pixel ({x}, {y}), {where}")
            else:
                report.note("the model did not click; a capable model clicks the OK button here")

    # (c) one grounding request
    try:
        prompt = load_prompt("grounding", prompt_dir=prompt_dir)
        messages = build_grounding_messages(image=screen, instruction=GROUNDING_INSTRUCTION, prompt=prompt)
        completion = await client.complete(messages, AgentConfig().grounding_sampling)
        point = parse_grounding(completion.content)
    except ParseError as exc:
        report.add("WARN", "grounding", f"the answer is not [x,y]: {exc.message}")
    except (ModelUnavailable, ModelRequestError, ConfigurationError) as exc:
        report.add("WARN", "grounding", _error(exc))
    else:
        if point is None:
            report.add("WARN", "grounding", f"the model answered [-1,-1]: it did not find {GROUNDING_INSTRUCTION}")
        else:
            x, y = map_point_for("grounding", point, width=WIDTH, height=HEIGHT)
            answer = f"[{point[0]},{point[1]}] maps to pixel ({x}, {y}) in {completion.latency_ms:.0f} ms"
            if on_button(x, y):
                report.grounding_ok = True
                report.add("ok", "grounding", f"{answer}, inside the OK button")
            else:
                report.add("WARN", "grounding", f"{answer}, outside the OK button {BUTTON}")
    return report


class Command(BaseCommand):
    help = ("Check that the UI-Venus model server (VENUS_MODEL_URL) answers and speaks the expected format: "
            "model list, one navigation request, one grounding request.")
    requires_system_checks: list = []

    def add_arguments(self, parser):
        parser.add_argument("--url", help="OpenAI-compatible base URL, e.g. http://gpu:8000/v1 "
                                          "(default: VENUS_MODEL_URL)")
        parser.add_argument("--model", help="served model name (default: VENUS_MODEL)")
        parser.add_argument("--timeout", type=float, help="seconds per request (default: VENUS_MODEL_TIMEOUT)")

    def handle(self, *args, url: str | None = None, model: str | None = None, timeout: float | None = None,
               **options):
        url = url or settings.VENUS_MODEL_URL
        if not url:
            raise CommandError("VENUS_MODEL_URL is not set: point it (or --url) at the vLLM OpenAI-compatible "
                               "endpoint serving UI-Venus, e.g. http://gpu-host:8000/v1", returncode=2)
        model = model or settings.VENUS_MODEL
        timeout = settings.VENUS_MODEL_TIMEOUT if timeout is None else timeout
        if timeout <= 0:
            raise CommandError(f"--timeout must be positive, got {timeout:g}", returncode=2)
        self.stdout.write(f"Checking the model server at {url} (model {model!r}, timeout {timeout:g}s per request)")
        client_settings = ModelSettings(url=url, model=model, api_key=settings.VENUS_API_KEY, timeout_s=timeout,
                                        connect_timeout_s=min(5.0, timeout), tries=1)
        sampling = Sampling(temperature=settings.VENUS_NAV_TEMPERATURE, max_tokens=settings.VENUS_NAV_MAX_TOKENS)
        report = asyncio.run(self._check(client_settings, sampling))
        for line in report.lines:
            self.stdout.write(line)
        failed = [name for name, ok in (("models", report.models_ok), ("navigation", report.navigation_ok)) if not ok]
        if failed:
            raise CommandError(f"model check failed ({', '.join(failed)})", returncode=1)
        self.stdout.write("Model check passed." + ("" if report.grounding_ok else " Grounding missed the OK button; "
                                                                                  "see the WARN line."))

    async def _check(self, client_settings: ModelSettings, sampling: Sampling) -> Report:
        client = ModelClient(client_settings)
        try:
            return await run_checks(client, model=client_settings.model, prompt_dir=settings.VENUS_PROMPT_DIR or None,
                                    sampling=sampling)
        finally:
            await client.aclose()
