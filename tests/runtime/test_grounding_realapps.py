"""The DOM grounder on small pages that reproduce what steps written from the screen met on real
applications (practice/realapps: Trac, Roundup): a text area under a heading, unlabelled sign-in
fields, a form laid out as a table, sidebar boxes titled by a bold line, a button at the far end
of a table row. Real Chromium throughout."""

from __future__ import annotations

import pytest

from tests.runtime.test_grounding import Pages, step
from workers.errors import StepError


@pytest.fixture(scope="module")
def pages():
    pages = Pages()
    yield pages
    pages.close()


def test_a_field_without_a_label_is_found_by_the_heading_it_sits_under(pages):
    # Trac's ticket page: a foldable "Add Comment" heading over an unlabelled text area, beside
    # another section whose fields have labels.
    html = """<h3>Modify Ticket</h3><div><label>Summary <input id="s"></label></div>
              <h3>Add Comment</h3><div><fieldset><textarea id="c"></textarea></fieldset></div>
              <h3>Attachments</h3><div><p>None</p></div>"""

    async def body(page, ex):
        await ex.run(step(kind="fill", target="Add Comment", value="Part ordered.", timeout_s=2))
        return await page.locator("#c").input_value()

    assert pages.run(html, body) == "Part ordered."


def test_a_field_in_a_table_form_is_found_by_the_header_cell_before_it(pages):
    # Roundup's issue form: <th> labels and fields side by side, two pairs in one row.
    html = """<h1>Issue1 Editing</h1><table>
              <tr><th>Priority</th><td><select name="p"><option>bug</option></select></td>
                  <th>Status</th><td><select name="s"><option>new</option></select></td></tr>
              <tr><th>Change Note</th><td colspan="3"><textarea id="note"></textarea></td></tr></table>"""

    async def body(page, ex):
        await ex.run(step(kind="fill", target="Change Note", value="Fuser fitted.", timeout_s=2))
        return await page.locator("#note").input_value()

    assert pages.run(html, body) == "Fuser fitted."


def test_unlabelled_sign_in_fields_are_found_by_what_they_are_for(pages):
    # Roundup's sidebar: a box titled "Login" with two inputs and no labels or placeholders.
    html = """<form><b>Login</b><br><input size="10" name="__login_name"><br>
              <input type="password" name="__login_password"><br>
              <input type="checkbox" id="r"><label for="r">Remember me?</label>
              <input type="submit" value="Login"></form>
              <form><label>Show issue: <input name="@number"></label></form>"""

    async def body(page, ex):
        await ex.run(step(kind="fill", target="Username", value="admin", timeout_s=2))
        await ex.run(step(kind="fill", target="Password", value="s3cret", timeout_s=2))
        return await page.locator("[name=__login_name]").input_value(), \
            await page.locator("[name=__login_password]").input_value()

    assert pages.run(html, body) == ("admin", "s3cret")


def test_within_names_a_box_by_its_bold_title_line(pages):
    # Roundup's sidebar: boxes titled "Issues" and "Keywords", each with a "Create New" link.
    html = """<p><b>Issues</b><br><a href="#i" onclick="document.title='issue'">Create New</a><br>
              <a href="#s">Search</a></p>
              <p><b>Keywords</b><br><span><a href="#k" onclick="document.title='keyword'">Create New</a></span></p>
              <p><b>Note:</b> bold words inside a sentence <a href="#n">Create New</a> name no box.</p>"""

    async def body(page, ex):
        await ex.run(step(kind="click", target={"text": "Create New", "within": "Keywords"}, timeout_s=2))
        first = await page.title()
        await ex.run(step(kind="click", target={"text": "Create New", "within": "Issues"}, timeout_s=2))
        with pytest.raises(StepError, match="not found"):
            await ex.run(step(kind="click", target={"text": "Create New", "within": "Note"}, timeout_s=1))
        return first, await page.title()

    assert pages.run(html, body) == ("keyword", "issue")


def test_near_a_name_in_a_wide_table_picks_the_button_in_that_row(pages):
    # Roundup's user list: a "retire" button per row at the far right, the rows close together.
    cells = "<td>{0}</td><td>{0} Example</td><td>{0} at example ...</td><td style='width:500px'></td>"
    rows = "".join(f"<tr>{cells.format(n)}<td><button onclick=\"document.title='{n}'\">retire</button></td></tr>"
                   for n in ("admin", "alice", "bob"))
    html = f"<table cellspacing='0' style='width:1200px'>{rows}</table>"

    async def body(page, ex):
        await ex.run(step(kind="click", target={"text": "retire", "near": "alice"}, timeout_s=2))
        return await page.title()

    assert pages.run(html, body) == "alice"


def test_within_a_box_named_exactly_wins_over_a_heading_that_holds_the_word(pages):
    html = """<h1>List of issues</h1><div><p><b>Issues</b><br><a href="#i" onclick="document.title='issue'">Create
              New</a></p><p><b>Keywords</b><br><a href="#k">Create New</a></p></div>"""

    async def body(page, ex):
        await ex.run(step(kind="click", target={"text": "Create New", "within": "Issues"}, timeout_s=2))
        return await page.title()

    assert pages.run(html, body) == "issue"


def test_two_unlabelled_sign_in_forms_are_ambiguous_not_guessed(pages):
    html = """<form><input name="username"><input type="password" name="pw"></form>
              <form><input name="login"><input type="password" name="pw2"></form>"""

    async def body(page, ex):
        with pytest.raises(StepError, match="ambiguous"):
            await ex.run(step(kind="fill", target="Password", value="x", timeout_s=1))

    pages.run(html, body)


def test_wait_for_text_sees_what_the_visible_fields_hold_but_never_a_password(pages):
    # Roundup after "Submit New Entry": the new issue's title is shown in its "Title" box.
    html = """<h1>Issue3 Editing</h1><label>Title <input id="t"></label><input type="password" id="p">
              <input type="hidden" value="Hidden words">"""

    async def body(page, ex):
        await page.evaluate("""() => { setTimeout(() => { document.querySelector('#t').value = 'Badge reader offline';
                                                           document.querySelector('#p').value = 'Secret words'; }, 300); }""")
        await ex.run(step(kind="wait_for", text="badge reader  OFFLINE", timeout_s=3))
        errors = []
        for words in ("Secret words", "Hidden words"):
            with pytest.raises(StepError, match="not found") as caught:
                await ex.run(step(kind="wait_for", text=words, timeout_s=0.5))
            errors.append(str(caught.value))
        return errors

    assert len(pages.run(html, body)) == 2
