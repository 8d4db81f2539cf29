"""Sub-automations: which version a `call` step runs, and its steps put in place (`workers.calls`).

- At save (`calls_problems`): the called automation exists in the workspace and is not archived,
  a pinned version exists, the call gives every parameter it must, the called automation works
  on the same surface and visits only domains this one allows, it has no `for_each` block, and
  no chain of calls comes back to an automation already in it (a cycle) or goes deeper than
  `workers.calls.MAX_CALL_DEPTH`, and all the calls together put at most `MAX_CALLED_STEPS`
  steps in a run (calls of calls multiply; each called version is looked up once). Each problem
  is a field error on the call step.
- When a run is created (`calls_resolve`): each call, nested ones included, is resolved to a
  version (the pinned one, else the current one) and the run keeps them (`Run.call_versions`),
  so a new version of a called automation never changes a run under way.
- When a worker runs or resumes it (`calls_expand` with those versions): the spec with every call
  filled in. The same versions give the same program, so positions resume exactly.
"""

from __future__ import annotations

from typing import Any

from workers import egress, steps as S
from workers.calls import MAX_CALL_DEPTH, CallError, expand
from workers.flow import walk

from venus_rpa.automations.models import Automation, AutomationVersion

MAX_CALLED_STEPS = 10_000  # steps (blocks included) all the calls of one run may put in, nested ones too


def _spec(version: AutomationVersion) -> S.AutomationSpec:
    return S.AutomationSpec.model_validate({name: getattr(version, name) for name in S.AutomationSpec.model_fields})


class _Expander:
    def __init__(self, workspace, caller: S.AutomationSpec, *, slug: str,
                 frozen: dict[str, int] | None = None) -> None:
        self.workspace, self.caller, self.frozen = workspace, caller, frozen
        self.stack = [slug]  # the caller, then each automation called on the way here
        self.resolved: dict[str, int] = {}
        self.problems: dict[str, list[str]] = {}
        self.at: list[str] = []  # the call step of the automation being checked that led here
        self.found: dict[tuple, AutomationVersion | str] = {}  # one lookup per called (slug, version)
        self.specs: dict[int, S.AutomationSpec] = {}
        self.brought = 0  # steps the calls put in so far (bounded: MAX_CALLED_STEPS)

    def steps(self, steps: list, path: str, key: str) -> list:
        """The steps with every call in them (nested blocks' included) filled in."""
        out = []
        for index, step in enumerate(steps):
            where = f"{path}.{index}"
            if isinstance(step, S.CallBlock):
                step = self.call(step, where, f"{key}{where}")
            elif isinstance(step, (S.IfBlock, S.RepeatBlock, S.ForEachBlock)):
                update = {"steps": self.steps(step.steps, f"{where}.steps", key)}
                if isinstance(step, S.IfBlock):
                    update["else_steps"] = self.steps(step.else_steps, f"{where}.else", key)
                step = step.model_copy(update=update)
            out.append(step)
        return out

    def fail(self, where: str, message: str) -> S.CallBlock | None:
        """A problem, on the call step of the automation being checked (a called automation's own
        calls are not its to fix), the chain of calls named."""
        chain = " → ".join(self.stack[1:])
        self.problems.setdefault(self.at[0] if self.at else where, []).append(
            f"via {chain}: {message}" if chain else message)
        return None

    def version(self, block: S.CallBlock, key: str) -> AutomationVersion | str:
        wanted = ("frozen", self.frozen.get(key)) if self.frozen is not None else (block.automation, block.version)
        if wanted not in self.found:
            self.found[wanted] = self._version(block, key)
        return self.found[wanted]

    def _version(self, block: S.CallBlock, key: str) -> AutomationVersion | str:
        if self.frozen is not None:
            version = AutomationVersion.objects.select_related("automation").filter(pk=self.frozen.get(key)).first()
            return version or f"the version of {block.automation} this run called is gone."
        automation = Automation.objects.select_related("current_version").filter(
            workspace=self.workspace, slug=block.automation).first()
        if automation is None:
            return f"There is no automation {block.automation!r} in this workspace."
        if automation.archived_at is not None:
            return f"{block.automation} is archived; restore it or call another automation."
        if block.version is None:
            return automation.current_version or f"{block.automation} has no version to run."
        return automation.versions.filter(number=block.version).first() or (
            f"{block.automation} has no version {block.version}.")

    def call(self, block: S.CallBlock, where: str, key: str) -> S.CallBlock:
        label = f"Call {block.automation}"
        if self.frozen is None and len(self.stack) == 1 and (block.steps or block.resolved):
            return self.fail(where, f"{label}: a call's steps are filled in when a run starts; leave them out.") or block
        if block.automation in self.stack:
            chain = " → ".join([*self.stack, block.automation])
            return self.fail(where, f"{label}: calls would go round in a cycle ({chain}).") or block
        if len(self.stack) > MAX_CALL_DEPTH:
            return self.fail(where, f"{label}: calls nest more than {MAX_CALL_DEPTH} deep.") or block
        version = self.version(block, key)
        if isinstance(version, str):
            return self.fail(where, f"{label}: {version}") or block
        if version.pk not in self.specs:
            self.specs[version.pk] = _spec(version)
        callee = self.specs[version.pk]
        self.brought += sum(1 for _ in walk(callee.steps)) + 1
        if self.brought > MAX_CALLED_STEPS:  # calls of calls multiply: a run stays a bounded program
            return self.fail(where, f"{label}: the calls would put more than {MAX_CALLED_STEPS:,} steps in "
                                    "one run.") or block
        problem = self.fits(block, callee)
        if problem:
            return self.fail(where, f"{label}: {problem}") or block
        self.stack.append(block.automation)
        self.at.append(where)
        try:
            inner = self.steps(callee.steps, "steps", f"{key}>")
        finally:
            self.stack.pop()
            self.at.pop()
        self.resolved[key] = version.pk
        try:
            return expand(block, callee.model_copy(update={"steps": inner}), version.param_schema or {},
                          label=f"{block.automation} v{version.number}")
        except (CallError, ValueError) as exc:
            return self.fail(where, f"{label}: {exc}") or block

    def fits(self, block: S.CallBlock, callee: S.AutomationSpec) -> str | None:
        if callee.surface != self.caller.surface:
            return f"it works on {callee.surface}, this automation on {self.caller.surface}."
        if any(isinstance(step, S.ForEachBlock) for step in callee.steps):
            return "it runs a block per item (for_each); only an automation started with items can."
        if any(getattr(step, "from_input", None) for _, step, _ in walk(callee.steps)):
            return "it uploads a file given at launch (from_input); a called automation cannot be given files."
        outside = [d for d in callee.allowed_domains if not egress.domain_allowed(d.removeprefix("*."),
                                                                                  self.caller.allowed_domains)]
        if outside and self.caller.surface == "web":
            return (f"it visits {', '.join(outside)}, which this automation's allowed domains do not include; "
                    "add them, or the run could not go there.")
        return None


def calls_problems(*, workspace, spec: S.AutomationSpec, slug: str) -> tuple[S.AutomationSpec, dict]:
    """At save: the spec with its calls filled in as a run would now get them (for checking the
    values they return), and the field errors of its calls. `slug`: the automation being saved."""
    expander = _Expander(workspace, spec, slug=slug)
    steps = expander.steps(spec.steps, "steps", "")
    return spec.model_copy(update={"steps": steps}), expander.problems


def calls_resolve(*, workspace, spec: S.AutomationSpec, slug: str) -> tuple[dict[str, int], dict[str, list[str]]]:
    """When a run is created: call path -> the version it runs, and problems (a called automation
    archived or changed since this one was saved) that must refuse the run."""
    expander = _Expander(workspace, spec, slug=slug)
    expander.steps(spec.steps, "steps", "")
    return expander.resolved, expander.problems


def calls_expand(*, workspace, spec: S.AutomationSpec, slug: str, frozen: dict[str, int]) -> S.AutomationSpec:
    """The run's spec with its calls filled in from the versions it was created with."""
    if not frozen:
        return spec
    expander = _Expander(workspace, spec, slug=slug, frozen=frozen)
    steps = expander.steps(spec.steps, "steps", "")
    if expander.problems:
        raise CallError("; ".join(m for messages in expander.problems.values() for m in messages))
    return spec.model_copy(update={"steps": steps})


def called_credentials(*, frozen: dict[str, int]) -> list[str]:
    """The credentials the called versions name (their steps type them in this run)."""
    names: list[str] = []
    for credentials in AutomationVersion.objects.filter(pk__in=set(frozen.values())).values_list(
            "credentials", flat=True):
        names += [name for name in credentials or [] if name not in names]
    return names


def stored_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A normalised step list as it is saved: a call without the steps a run fills in."""
    out = []
    for step in steps:
        if step.get("kind") == "call":
            step = {k: v for k, v in step.items() if k not in ("steps", "resolved")}
        elif step.get("kind") in ("if", "repeat", "for_each"):
            step = {**step, **{key: stored_steps(step[key]) for key in ("steps", "else") if key in step}}
        out.append(step)
    return out
