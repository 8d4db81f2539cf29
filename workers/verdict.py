"""A run's verdict: the automation's success criteria checked on the final screen (see
`workers.automation_settings.SuccessCriteria`), with the evidence kept."""

from __future__ import annotations

from typing import Any

from workers import patterns, steps as S
from workers.errors import EnvironmentLost, StepError
from workers.run_state import RunResult
from workers.templating import values_context


async def verdict(spec: S.AutomationSpec, env, output: dict[str, Any], params: dict[str, Any]) -> RunResult:
    """Check the success criteria (`{{param}}` and `{{steps.NAME.value}}` filled as in steps) on the final
    screen; keep the evidence."""
    try:
        criteria = S.render_step(spec.success_criteria, values_context(params, output))
    except (KeyError, ValueError) as exc:
        return RunResult("failed", f"success criteria could not be filled in: {exc}", output,
                         {"passed": False, "evidence": {}})
    location = env.location()
    evidence: dict[str, Any] = {"url": location}
    failures: list[str] = []
    if criteria.url_contains:
        ok = criteria.url_contains in location
        evidence["url_contains"] = {"expected": criteria.url_contains, "ok": ok}
        if not ok:
            failures.append(f"URL {location!r} does not contain {criteria.url_contains!r}")
    if criteria.text_visible:
        try:
            visible = await env.text_visible(criteria.text_visible)
        except (StepError, EnvironmentLost) as exc:
            return RunResult("failed", f"success criteria could not be checked: {exc}", output,
                             {"passed": False, "evidence": evidence})
        evidence["text_visible"] = {"expected": criteria.text_visible, "ok": visible}
        if not visible:
            failures.append(f"text {criteria.text_visible!r} is not visible on the final page")
    if criteria.output_valid and spec.output_schema:
        errors = patterns.schema_errors(spec.output_schema, output)  # user regexes run bounded
        evidence["output_valid"] = {"ok": not errors, "errors": [e.message for e in errors[:10]]}
        if errors:
            failures.append(f"output does not match the output schema: {errors[0].message}")
    verdict = {"passed": not failures, "evidence": evidence}
    if failures:
        return RunResult("failed", "success criteria not met: " + "; ".join(failures), output, verdict)
    return RunResult("succeeded", "all steps done and success criteria met", output, verdict)
