"""OpenAI-format message lists for UI-Venus-2 calls (reference §5).

Navigation step k (`build_messages`), strict user/assistant alternation:
- system: the filled system prompt (the task is its last line);
- for each earlier step i: a user turn, then that step's assistant text in canonical form
  (`ParsedAnswer.canonical()`: thought included). The user turn is the empty string, or
  "History Screenshot:" plus the step's image when i is among the last `n_images` steps;
- feedback produced by step i (an executor error, a human's reply, the current URL, select
  options) opens the user turn of step i+1, before any label;
- the final user turn: feedback (if any), then "Current Screenshot:" and a newline, then the
  current image.

Images go as `image_url` parts holding base64 data URLs; no `<image>` marker is ever put in
text. The server's image limit must be at least `n_images + 1`.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from PIL import Image

from workers.policies.prompts import Prompt, fill_instruction

HISTORY_LABEL = "History Screenshot:"
CURRENT_LABEL = "Current Screenshot:\n"


@dataclass(frozen=True)
class HistoryTurn:
    """One accepted earlier step: its screenshot (None when not kept), the assistant's canonical
    answer, and the feedback the step produced for the next turn."""

    image: bytes | None
    assistant: str
    feedback: str = ""


def image_part(image: bytes, mime: str = "image/jpeg") -> dict:
    """An `image_url` content part carrying the image as a base64 data URL."""
    encoded = base64.b64encode(image).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{encoded}"}}


def _text_part(text: str) -> dict:
    return {"type": "text", "text": text}


def _lead(feedback: str, label: str) -> str:
    """Feedback on its own line(s) before the screenshot label."""
    return f"{feedback}\n{label}" if feedback else label


def build_messages(
    *,
    system: str,
    history: list[HistoryTurn],
    current_image: bytes,
    feedback: str = "",
    n_images: int = 2,
    image_mime: str = "image/jpeg",
) -> list[dict]:
    """The messages for the next navigation step.

    `feedback` is extra text for the current turn; it follows the last history step's own
    feedback. Only the last `n_images` earlier screenshots are attached (0 attaches none).
    """
    if n_images < 0:
        raise ValueError("n_images must be 0 or more")
    messages: list[dict] = [{"role": "system", "content": system}]
    pending = ""
    first_with_image = len(history) - n_images
    for index, turn in enumerate(history):
        if turn.image is not None and index >= first_with_image:
            user: str | list[dict] = [_text_part(_lead(pending, HISTORY_LABEL)), image_part(turn.image, image_mime)]
        else:
            user = pending
        messages.append({"role": "user", "content": user})
        messages.append({"role": "assistant", "content": turn.assistant})
        pending = turn.feedback.strip()
    pending = "\n".join(text for text in (pending, feedback.strip()) if text)
    messages.append(
        {"role": "user", "content": [_text_part(_lead(pending, CURRENT_LABEL)), image_part(current_image, image_mime)]}
    )
    return messages


def build_grounding_messages(
    *, image: bytes, instruction: str, prompt: Prompt, image_mime: str = "image/jpeg"
) -> list[dict]:
    """One user message, image first, then the grounding prompt for `instruction` (§9)."""
    content = [image_part(image, image_mime), _text_part(fill_instruction(prompt, instruction))]
    return [{"role": "user", "content": content}]


def build_captcha_messages(*, system: str, image: bytes, image_mime: str = "image/jpeg") -> list[dict]:
    """The CAPTCHA prompt as system message and the screenshot alone as user message (§5.3)."""
    return [{"role": "system", "content": system}, {"role": "user", "content": [image_part(image, image_mime)]}]


def estimate_image_tokens(width: int, height: int) -> int:
    """Approximate prompt tokens for one image: one per 32×32 pixels (patch 16, merge 2)."""
    return max(1, round(width / 32)) * max(1, round(height / 32))


def downscale(jpeg: bytes, max_pixels: int) -> tuple[bytes, int, int]:
    """The screenshot to send and its size; smaller than max_pixels, same aspect ratio."""
    with Image.open(io.BytesIO(jpeg)) as image:
        width, height = image.size
        if not max_pixels or width * height <= max_pixels:
            return jpeg, width, height
        scale = (max_pixels / (width * height)) ** 0.5
        size = (max(1, int(width * scale)), max(1, int(height * scale)))
        out = io.BytesIO()
        image.convert("RGB").resize(size, Image.Resampling.LANCZOS).save(out, "JPEG", quality=85)
        return out.getvalue(), size[0], size[1]
