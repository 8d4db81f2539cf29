"""The versions page's diff: steps one line each in the editor's numbers ("Step 3 (Fill 'Amount'):
value '{{amount}}' → '{{total}}'"), other fields as changed lines without "@@ -114,7" headers,
one line per line (not double-spaced), and no stray "·" before v1's "restore…".

Before: every change was a hunk of the steps' pretty JSON under "@@ -114,7 +114,7 @@", each line
followed by a blank one, and v1's row read "· restore…"."""

from __future__ import annotations

from tests.dashboard.conftest import definition
from venus_rpa.dashboard.diff import steps_diff

FILL = {"kind": "fill", "target": {"label": "Amount"}, "value": "{{amount}}"}


def lines(before: list, after: list) -> list[str]:
    out = []
    for s in steps_diff(before, after, old_number=1):
        changed = "; ".join(f"{c.key} {c.old} → {c.new}" for c in s.changes)
        out.append(f"{s.head}: {s.what or changed}")
    return out


def test_a_changed_step_is_one_line_in_the_editor_s_numbers():
    before = [{"kind": "goto", "url": "http://x.test/"}, {"kind": "click", "target": "New"}, FILL]
    after = [*before[:2], {**FILL, "value": "{{total}}"}]
    assert lines(before, after) == ["Step 3 (Fill 'Amount'): value '{{amount}}' → '{{total}}'"]


def test_a_step_s_name_names_it_and_its_target_s_parts_are_compared_one_by_one():
    before = [{"kind": "click", "name": "Submit", "target": {"role": "button", "name": "Submit expence"}}]
    after = [{"kind": "click", "name": "Submit", "target": {"role": "button", "name": "Submit expense"}}]
    assert lines(before, after) == ["Step 1 (Submit): target.name 'Submit expence' → 'Submit expense'"]


def test_added_and_removed_steps_say_which_and_blocks_count_their_rows():
    repeat = {"kind": "repeat", "until": {"text_visible": "Done"}, "max_iterations": 5,
              "steps": [{"kind": "click", "target": "Next"}]}
    before = [repeat, FILL, {"kind": "press", "key": "Enter"}]
    after = [{**repeat, "steps": [{"kind": "click", "target": "Next"}, {"kind": "click", "target": "More"}]}, FILL]
    # rows: 1 repeat, 2 click Next, 3 click More (new), 4 end, 5 fill
    assert lines(before, after) == ["Step 3 added: Click 'More'", "v1's step 5 removed: Press 'Enter'"]


def test_anything_but_steps_falls_back_to_lines_of_text():
    import pytest

    with pytest.raises(ValueError):
        steps_diff(["not a step"], [], old_number=1)


def test_the_versions_page_shows_steps_in_words_and_other_fields_without_hunk_headers(editor_client, automation):
    from venus_rpa.automations.services import automation_update

    steps = definition()["steps"]
    changed = [{**steps[0], "value": "{{title}} (edited)"}, steps[1]]
    automation_update(automation=automation, user=None, definition={"steps": changed, "goal": "File {{title}} now"},
                      change_note="edited value")
    html = editor_client.get(f"/automations/{automation.slug}/versions/").content.decode()
    assert ("<li class=\"diff-change\"><strong>Step 1 (Title)</strong>: <span class=\"diff-change\">"
            "<span class=\"mono\">value</span> <del>&#x27;{{title}}&#x27;</del> → "
            "<ins>&#x27;{{title}} (edited)&#x27;</ins></span></li>") in html
    assert '<h3 class="diff-field" data-field="goal">Goal</h3>' in html
    goal = html.split('data-field="goal"')[1].split("</pre>")[0]
    assert '<span class="diff-del">-File {{title}}</span><span class="diff-add">+File {{title}} now</span>' in goal
    assert "@@" not in html and "&quot;value&quot;" not in html
    # v1's row: "restore…" alone, with no separator before it (there is no "diff" link for v1)
    v1 = html.split("<strong>v1</strong>")[1].split("</tr>")[0]
    assert '<td class="nowrap"><a href="/automations/file-expense/versions/1/restore/" data-restore="1">restore…</a></td>' in v1
    v2 = html.split("<strong>v2</strong>")[1].split("</tr>")[0]
    assert ">diff</a>" in v2 and "restore…" not in v2  # the current version is not restored onto itself


def test_the_restore_page_shows_the_same_words(owner_client, automation):
    from venus_rpa.automations.services import automation_update

    steps = definition()["steps"]
    automation_update(automation=automation, user=None, definition={"steps": [steps[0]]}, change_note="drop save")
    html = owner_client.get(f"/automations/{automation.slug}/versions/1/restore/").content.decode()
    assert "<strong>Step 2 added</strong>: Click &#x27;Save&#x27;" in html  # v2 (current) → v1 puts it back
