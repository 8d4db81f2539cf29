"""Step numbers in failure reasons (`workers.step_numbers`): a run names a step by the number the
automation editor shows next to it, never by its trace record; blocks' rows (opening, `else`,
`end`) count as the editor counts them, a called automation's steps by its own editor's numbers,
and a step inside a `repeat` says which iteration it failed in."""

from __future__ import annotations

from venus_rpa.dashboard import blocks
from workers import calls, flow as F, steps as S
from workers.step_numbers import StepNumbers, before

OPEN = S.GotoStep(url="https://app.example.com/", name="Open the start URL")


def click(name: str) -> dict:
    return {"kind": "click", "name": name, "target": name}


DEFINITION = [
    click("Open invoices"),
    {"kind": "repeat", "name": "Every page", "until": {"text_visible": "Last page"}, "max_iterations": 10, "steps": [
        click("Select all"),
        {"kind": "if", "condition": {"text_visible": "Overdue"}, "steps": [click("Flag")],
         "else": [click("Skip"), {"kind": "repeat", "until": {"text_visible": "Done"}, "max_iterations": 3,
                                  "steps": [click("Retry")]}]},
        click("Next page"),
    ]},
    {"kind": "for_each", "steps": [click("Open the item"), {"kind": "skip_item", "name": "Skip it"}]},
    click("Export"),
]


def numbered(definition: list[dict]) -> tuple[StepNumbers, list]:
    spec = S.AutomationSpec.model_validate({"steps": definition})
    program = F.compile_program(spec.steps, before=[OPEN])
    return StepNumbers(spec.steps, program), program


def test_every_step_and_block_gets_the_number_the_editor_shows_on_its_row():
    spec = S.AutomationSpec.model_validate({"steps": DEFINITION})
    program = F.compile_program(spec.steps, before=[OPEN])
    numbers = StepNumbers(spec.steps, program)
    # The editor's rows for the same definition: numbered 1, 2, ... in order (a CSS counter on every row).
    rows = blocks.rows_from_steps(S.STEPS.dump_python(spec.steps, mode="json", exclude_none=True, by_alias=True))
    _, row_of = blocks.steps_from_rows(rows)
    path_of = {id(step): path for path, step, _ in F.walk(spec.steps)}
    seen = 0
    for position, entry in enumerate(program[1:], start=1):
        step = entry.block if isinstance(entry, F.Op) else entry
        assert numbers.places[position].number == row_of[path_of[id(step)]] + 1, (position, entry)
        seen += 1
    assert seen == len(program) - 1 and len(rows) == 18  # an `else` and four `end` rows among them


def test_a_label_names_the_step_and_the_iteration_of_each_repeat_around_it():
    numbers, program = numbered(DEFINITION)
    at = {getattr(entry, "name", ""): position for position, entry in enumerate(program) if not isinstance(entry, F.Op)}
    loops = {"steps.1": 4, "steps.1.steps.1.else.1": 2}

    assert numbers.label(0, loops) == "before step 1 (Open the start URL)"
    assert numbers.label(at["Open invoices"], loops) == "step 1 (Open invoices)"
    assert numbers.label(at["Select all"], loops) == "step 3 (Select all), iteration 4 of at most 10"
    assert numbers.label(at["Skip"], loops) == "step 7 (Skip), iteration 4 of at most 10"
    assert numbers.label(at["Retry"], loops) == ("step 9 (Retry), iteration 4 of at most 10 of step 2 (Every page), "
                                                 "iteration 2 of at most 3 of step 8 (repeat)")
    assert numbers.label(at["Next page"], loops) == "step 12 (Next page), iteration 4 of at most 10"
    assert numbers.label(at["Open the item"], loops) == "step 15 (Open the item)"  # the item is named by its record
    assert numbers.label(at["Export"], loops) == "step 18 (Export)"
    assert numbers.label(len(program), loops) == "after the last step"
    # The repeat's own check (its cap reached) is the block's row, outside its own iterations.
    check = next(p for p, e in enumerate(program) if isinstance(e, F.Op) and e.kind == "loop_check" and e.path == "steps.1")
    assert numbers.label(check, loops) == "step 2 (Every page)"


def test_a_called_automations_steps_are_numbered_as_its_own_editor_numbers_them():
    callee = S.AutomationSpec.model_validate({
        "start_url": "https://login.example.com/", "allowed_domains": ["login.example.com"],
        "steps": [click("Type the user"), {"kind": "if", "condition": {"text_visible": "Code"}, "steps": [click("Type the code")]},
                  click("Sign in")]})
    call = S.CallBlock(automation="shared-sign-in")
    expanded = calls.expand(call, callee, {}, label="shared-sign-in v3")
    spec = S.AutomationSpec.model_validate({"steps": [click("Accept cookies"), expanded.model_dump(), click("Export")]})
    program = F.compile_program(spec.steps, before=[OPEN])
    numbers = StepNumbers(spec.steps, program)
    labels = [numbers.label(p, {}) for p, e in enumerate(program) if not isinstance(e, F.Op)]

    assert labels == [
        "before step 1 (Open the start URL)", "step 1 (Accept cookies)",
        "before step 1 of shared-sign-in v3 (Open the start URL of shared-sign-in), called at step 2",
        "step 1 of shared-sign-in v3 (Type the user), called at step 2",
        "step 3 of shared-sign-in v3 (Type the code), called at step 2",
        "step 5 of shared-sign-in v3 (Sign in), called at step 2",
        "step 3 (Export)",
    ]


def test_what_happens_before_a_step_says_so_once():
    assert before("step 4 (Click Next)") == "before step 4 (Click Next)"
    assert before("before step 1 (Open the start URL)") == "before step 1 (Open the start URL)"
    assert before("after the last step") == "after the last step"
