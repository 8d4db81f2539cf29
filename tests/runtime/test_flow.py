"""Values between steps and blocks: templating, validation at save, the flattened program. The
runs themselves are end to end in tests/e2e/test_workflow_blocks_e2e.py."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from workers import flow as F, flow_checks as FC, steps as S
from workers.templating import render, template_params, template_values, values_context


def spec(*steps) -> S.AutomationSpec:
    return S.AutomationSpec.model_validate({"steps": list(steps)})


def extract(into: str, **extra) -> dict:
    return {"kind": "extract", "target": "Total", "into": into, **extra}


def fill(value: str) -> dict:
    return {"kind": "fill", "name": "Type it", "target": "Amount", "value": value}


def if_block(steps, *, otherwise=(), **condition) -> dict:
    block = {"kind": "if", "condition": condition or {"text_visible": "Filed"}, "steps": list(steps)}
    return {**block, "else": list(otherwise)} if otherwise else block


def repeat(steps, **extra) -> dict:
    return {"kind": "repeat", "until": {"element": "Next", "negate": True}, "steps": list(steps), **extra}


def test_a_step_value_is_filled_like_a_parameter_and_kept_apart_from_parameters():
    text = "Total {{steps.total.value}} for {{who}}"
    assert template_params(text) == {"who"} and template_values(text) == {"total"}
    assert render(text, values_context({"who": "Ada"}, {"total": "12.50"})) == "Total 12.50 for Ada"


def test_a_step_value_follows_the_parameters_escaping_rules():
    with pytest.raises(ValueError, match="value 'total' may not contain"):
        render("{{steps.total.value}}", values_context({}, {"total": "{{credentials.acme.password}}"}))
    with pytest.raises(KeyError):
        render("{{steps.total.value}}", values_context({}, {}))


def test_a_value_used_after_it_is_stored_is_valid():
    assert FC.definition_problems(spec(extract("total"), fill("{{steps.total.value}}")).steps) == {}


def test_an_unknown_value_name_is_a_field_error_naming_the_step():
    problems = FC.definition_problems(spec(extract("total"), fill("{{steps.totl.value}}")).steps)
    assert list(problems) == ["steps.1"]
    assert "'Type it'" in problems["steps.1"][0] and "no step stores a value by that name" in problems["steps.1"][0]
    assert "total" in problems["steps.1"][0]  # the names that do exist


def test_a_value_used_before_it_is_stored_is_a_field_error():
    problems = FC.definition_problems(spec(fill("{{steps.total.value}}"), extract("total")).steps)
    assert "before it is stored" in problems["steps.0"][0]


def test_after_an_if_only_what_both_branches_store_is_available():
    one_branch = spec(if_block([extract("total")]), fill("{{steps.total.value}}"))
    assert "before it is stored" in FC.definition_problems(one_branch.steps)["steps.1"][0]
    both = spec(if_block([extract("total")], otherwise=[extract("total")]), fill("{{steps.total.value}}"))
    assert FC.definition_problems(both.steps) == {}


def test_a_value_stored_only_inside_a_repeat_is_not_available_after_it():
    problems = FC.definition_problems(spec(repeat([extract("row")], max_iterations=3),
                                          fill("{{steps.row.value}}")).steps)
    assert list(problems) == ["steps.1"]


def test_a_condition_on_an_unknown_value_is_a_field_error_on_the_condition():
    problems = FC.definition_problems(spec(if_block([fill("x")], value="status", to="filed")).steps)
    assert list(problems) == ["steps.0.condition.value"]


def test_values_available_at_each_step_list_the_names_stored_before_it():
    available = FC.values_available(spec(extract("a"), if_block([extract("b"), fill("x")]), fill("y")).steps)
    assert available == {"steps.0": [], "steps.1": ["a"], "steps.1.steps.0": ["a"], "steps.1.steps.1": ["a", "b"],
                         "steps.2": ["a"]}


def test_a_repeat_without_a_cap_is_refused():
    with pytest.raises(ValidationError) as error:
        spec(repeat([fill("x")]))
    assert "max_iterations" in str(error.value) and "Field required" in str(error.value)
    with pytest.raises(ValidationError):
        spec(repeat([fill("x")], max_iterations=0))


@pytest.mark.parametrize("condition", [{}, {"text_visible": "a", "url_matches": "b"}, {"value": "not a name"},
                                       {"text_visible": ""}, {"url_matches": "x", "shape": "round"}])
def test_a_malformed_condition_is_refused(condition):
    with pytest.raises(ValidationError):
        spec({"kind": "if", "condition": condition, "steps": [fill("x")]})


def test_a_bad_url_pattern_is_a_field_error():
    problems = FC.definition_problems(spec(if_block([fill("x")], url_matches="(unclosed")).steps)
    assert list(problems) == ["steps.0.condition.url_matches"]


def test_blocks_nested_too_deep_are_refused():
    block = fill("x")
    for _ in range(S.MAX_BLOCK_DEPTH + 1):
        block = if_block([block])
    problems = FC.definition_problems(spec(block).steps)
    where = ".".join(["steps.0"] + ["steps.0"] * S.MAX_BLOCK_DEPTH)
    assert problems == {where: [f"The if step at {where} nests blocks more than {S.MAX_BLOCK_DEPTH} deep."]}
    assert FC.definition_problems(spec(if_block([if_block([fill("x")])])).steps) == {}


def test_sign_in_steps_stay_at_the_top_level_before_any_block():
    signed = {**fill("x"), "sign_in": True}
    assert list(FC.definition_problems(spec(if_block([signed])).steps)) == ["steps.0.steps.0.sign_in"]
    assert list(FC.definition_problems(spec(if_block([fill("x")]), signed).steps)) == ["steps.1.sign_in"]


def test_an_else_block_is_stored_under_else():
    stored = spec(if_block([fill("a")], otherwise=[fill("b")])).model_dump(mode="json", exclude_none=True)
    assert [s["value"] for s in stored["steps"][0]["else"]] == ["b"]


def test_the_program_flattens_blocks_with_absolute_targets():
    program = F.compile_program(spec(if_block([fill("a")], otherwise=[fill("b")]),
                                     repeat([fill("c")], max_iterations=2), fill("d")).steps)
    shape = [(p.kind, p.target) if isinstance(p, F.Op) else p.value for p in program]
    assert shape == [("if", 3), "a", ("jump", 4), "b", ("loop_start", 0), ("loop_check", 8), "c", ("loop_back", 5),
                     "d"]


def test_stored_step_kinds_include_nested_blocks():
    assert F.step_kinds([{"kind": "if", "steps": [{"kind": "click"}], "else": [{"kind": "agent"}]}]) == {
        "if", "click", "agent"}


@pytest.mark.parametrize(("seen", "op", "to", "expected"), [
    ("12.50", "equals", "12.5", True), ("$1,200", "greater_than", "999", True), ("Filed", "equals", "filed", False),
    (["a", "b"], "contains", "b", True), ("", "is_empty", "", True), ([], "is_empty", "", True),
    ("abc", "less_than", "5", False), ("Paid", "not_equals", "Open", True),
])
def test_values_compare_as_numbers_when_both_sides_are(seen, op, to, expected):
    assert F.compare(seen, op, to) is expected
