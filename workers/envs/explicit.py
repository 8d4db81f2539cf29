"""What every surface's explicit-step executor shares (`workers.envs.base.StepExecutor`).

A step kind `k` is run by the subclass's `_k(step)` method; a kind with no method (or listed in
`UNAVAILABLE_KINDS`) fails with the surface's own `unavailable` message. Around each step: the
gate's risk verdict is reset, a step the gate skipped becomes a skipped outcome, the environment
settles, and the verdict lands in `grounding["risk"]`. Surfaces translate their driver's errors
in `_perform` (the web turns Playwright errors into StepErrors there).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from workers import patterns
from workers.envs.base import StepOutcome
from workers.errors import StepError
from workers.files import FileError, file_text
from workers.gates.guard import ActionGuard, ActionSkipped


class ExplicitExecutorBase:
    UNAVAILABLE_KINDS: tuple[str, ...] = ()

    def __init__(self, env, *, start_url: str = "", grounder=None, guard: ActionGuard | None = None) -> None:
        """`grounder(instruction=..., observation=...)` -> (x, y) | None: the model fallback for
        targets the surface's own grounding cannot find (only when the automation enables it).
        `guard`: the run's safety gate (None: steps are not classified)."""
        self.env = env
        self.start_url = start_url
        self.grounder = grounder
        self.guard = guard
        self._risk: dict[str, Any] | None = None
        # Awaited with (step, risk) once a click or press is cleared, right before it acts: the
        # runner journals its intent there (workers.journal).
        self.before_act: Callable[[Any, dict[str, Any]], Awaitable[None]] | None = None

    def unavailable(self, kind: str) -> str:
        return f"step kind {kind!r} cannot run without a model"

    async def run(self, step) -> StepOutcome:
        handler = None if step.kind in self.UNAVAILABLE_KINDS else getattr(self, f"_{step.kind}", None)
        if handler is None:
            raise StepError(self.unavailable(step.kind))
        self._risk = None
        if getattr(step, "from_file", None):  # extract from a downloaded file: no page involved
            return self._extract_file(step)
        try:
            outcome = await self._perform(handler, step)
        except ActionSkipped as skipped:
            return StepOutcome(grounding={"risk": skipped.risk, "skipped": True})
        await self.env.settle()
        if self._risk is not None:
            outcome.grounding["risk"] = self._risk
        return outcome

    async def _perform(self, handler: Callable[[Any], Awaitable[StepOutcome]], step) -> StepOutcome:
        return await handler(step)

    def _extract_file(self, step) -> StepOutcome:
        """An `extract` with `from_file`: the pattern run on the text of the file a download step
        stored (each line with `all`); refused when the text holds a vault secret."""
        files = getattr(self.env, "files", None)
        if files is None:
            raise StepError(f"extract from a file works on the web, where downloads are kept; this run is on "
                            f"{getattr(self.env, 'surface', 'another surface')}")
        file = files.stored(step.from_file)
        try:
            text = file_text(file)
        except FileError as exc:
            raise StepError(f"extract cannot read the file {step.from_file!r}: {exc}") from None
        if self.env.secrets.holds_secret(text):
            raise StepError(f"extract cannot read the file {step.from_file!r}: it contains a secret from the vault")
        facts = {"file": file.name, "type": file.type, "size": file.size, **({"ref": file.ref} if file.ref else {})}
        if not step.all:
            return StepOutcome(grounding=facts, output={step.into: patterns.extract(text, step.pattern)})
        values = []
        for line in filter(str.strip, text.splitlines()):
            if not step.pattern:
                values.append(line.strip())
            elif patterns.search(step.pattern, line) is not None:
                values.append(patterns.extract(line, step.pattern))
        return StepOutcome(grounding={**facts, "count": len(values)}, output={step.into: values})
