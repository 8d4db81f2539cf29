"""UI-Venus CAPTCHA mode: the widget's screenshot alone goes to the model with the CAPTCHA prompt;
the answer is one comma-separated action list (Click / Drag / Type / LongPress, box= on 0-999),
executed in order on the widget's area."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from workers import actions_captcha as C
from workers.actions import map_point_for
from workers.captcha import act
from workers.captcha.detect import Widget
from workers.errors import StepError
from workers.policies.client import ModelRequestError, ModelUnavailable, Sampling
from workers.policies.messages import build_captcha_messages
from workers.policies.parser import ParseError, parse_answer
from workers.policies.prompts import load_prompt

# Reference §8: thinking on, temperature 0, top_p 0.95, top_k 20, fixed seed.
CAPTCHA_SAMPLING = Sampling(temperature=0.0, top_p=0.95, max_tokens=8192, enable_thinking=True,
                            extra={"top_k": 20, "seed": 1234})
MARGIN = 12


class ModelCaptchaSolver:
    def __init__(self, client, *, prompt_dir: str | None = None) -> None:
        self.client = client
        self.prompt_dir = prompt_dir

    async def __call__(self, env, widget: Widget) -> dict[str, Any]:
        page = env.page
        rect = widget.rect
        image, clip = await act.widget_shot(env, rect, margin=MARGIN, quality=90)
        prompt = load_prompt("captcha", prompt_dir=self.prompt_dir)
        started = time.perf_counter()
        try:
            completion = await self.client.complete(build_captcha_messages(system=prompt.text, image=image),
                                                    CAPTCHA_SAMPLING)
            parsed = parse_answer(completion.content, completion.reasoning, surface="captcha",
                                  finish_reason=completion.finish_reason)
        except (ModelUnavailable, ModelRequestError) as exc:
            raise StepError(str(exc)) from exc
        except ParseError as exc:
            raise StepError(f"the model's CAPTCHA answer could not be parsed: {exc.message}") from exc
        size = (round(clip["width"]), round(clip["height"]))

        def px(point) -> tuple[float, float]:
            x, y = map_point_for("captcha", point, width=size[0], height=size[1])
            return clip["x"] + x, clip["y"] + y

        done = []
        for action in parsed.actions:
            if isinstance(action, C.Click):
                await page.mouse.click(*px(action.box))
            elif isinstance(action, C.LongPress):
                await page.mouse.move(*px(action.box))
                await page.mouse.down()
                await asyncio.sleep(1.5)
                await page.mouse.up()
            elif isinstance(action, C.Drag):
                await act.human_drag(page, px(action.start), px(action.end))
            elif isinstance(action, C.Type):
                await page.keyboard.insert_text(action.content)
            done.append(action.model_dump(mode="json"))
            await asyncio.sleep(0.05)
        return {"model_answer": parsed.action_text, "thought": parsed.thought[:1000], "actions": done,
                "model_ms": round((time.perf_counter() - started) * 1000, 1)}
