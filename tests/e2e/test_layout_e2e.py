"""Layout a new user tripped over, measured in real Chromium against daphne (1366x800, the
trial's screen; screenshots in $VENUS_TEST_SCREENSHOTS when set):

- the Webhooks list's Mapping column stays inside its card (it overflowed and was cut:
  "data.order.tit"); the curl example with its Idempotency-Key really starts one run only;
- the Runs filters' labels sit on one line (From / To sat higher: date inputs are taller);
- a review's reason box and the form under it are apart (they ran into each other), and a
  decided review shows its decision, not "Edited";
- the versions diff is one line per line with step numbers, no "@@" headers;
- the nav shows "demo · Demo workspace" whole (it was cut to "Demo worksp…" with room to spare)
  and shortens only a name too long for the bar, keeping the role.
"""

from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import expect

from tests.dashboard.conftest import make_run
from tests.e2e.test_dashboard_e2e import web  # noqa: F401 (fixture)
from tests.e2e.test_webhook_page_e2e import browser, run_curl, shots, signed_in_page  # noqa: F401 (fixtures)

pytestmark = pytest.mark.e2e
WIDE = {"width": 1366, "height": 800}


def fits(page, selector: str) -> list[dict]:
    """Each element of `selector` whose content is wider than its box (none when it fits)."""
    found = page.evaluate("""sel => [...document.querySelectorAll(sel)]
        .map(e => ({cls: e.className, scroll: e.scrollWidth, client: e.clientWidth}))""", selector)
    assert found, f"nothing matches {selector}"
    return [e for e in found if e["scroll"] > e["client"] + 1]


def test_the_mapping_column_stays_in_its_card_and_the_curl_example_starts_one_run(demo, web, browser, shots):  # noqa: F811
    from venus_rpa.runs.models import Run
    from venus_rpa.triggers.services import webhook_trigger_create

    trigger, secret = webhook_trigger_create(
        workspace=demo["workspace"], user=None, automation=demo["automation"], name="Orders hook <i>x</i>",
        param_mapping={"title": "data.order.title", "amount": "data.order.totals.amount_due_including_tax",
                       "category": "data.order.classification.expense_category_name"})
    page = signed_in_page(browser, web, WIDE)
    page.goto(web + "/webhooks/")
    page.screenshot(path=str(shots / "webhooks-mapping-1366.png"), full_page=True)
    expect(page.locator("[data-mapping] li")).to_have_count(3)
    assert fits(page, "[data-mapping]") == []
    assert fits(page, "section.card:has(#webhooks-table)") == [] and fits(page, ".table-wrap") == []
    card = page.locator("section.card", has=page.locator("#webhooks-table"))
    box, cell = card.bounding_box(), page.locator("[data-mapping]").bounding_box()
    assert cell["x"] + cell["width"] <= box["x"] + box["width"] + 1  # drawn inside the card, not cut by it

    page.goto(f"{web}/webhooks/{trigger.pk}/")
    curl = page.locator("#curl-example").inner_text()
    assert '-H "Idempotency-Key: $KEY"' in curl
    curl = curl.replace("SECRET='paste-the-signing-secret-here'", f"SECRET='{secret}'")
    first = json.loads(run_curl(curl))
    time.sleep(1.1)  # a new timestamp: a new signature (a signature is accepted once)
    again = json.loads(run_curl(curl))
    assert first["run_id"] == again["run_id"]  # the retry got the first run back
    assert Run.objects.filter(automation=demo["automation"]).count() == 1
    page.context.close()


def test_the_runs_filters_line_up(demo, web, browser, shots):  # noqa: F811
    page = signed_in_page(browser, web, WIDE)
    page.goto(web + "/runs/")
    page.screenshot(path=str(shots / "runs-filters-1366.png"))
    boxes = page.evaluate("""() => [...document.querySelectorAll('#run-filters label:not(.filter-search):not(.check)')]
        .map(l => ({label: l.firstChild.textContent.trim(), top: l.getBoundingClientRect().top,
                    bottom: l.querySelector('input,select').getBoundingClientRect().bottom}))""")
    assert [b["label"] for b in boxes] == ["Status", "Automation", "Started by", "From", "To"]
    assert max(b["top"] for b in boxes) - min(b["top"] for b in boxes) <= 1, boxes
    assert max(b["bottom"] for b in boxes) - min(b["bottom"] for b in boxes) <= 1, boxes
    check = page.locator("#run-filters label.check").bounding_box()
    field = page.locator("#run-filters select[name=status]").bounding_box()
    assert abs((check["y"] + check["height"] / 2) - (field["y"] + field["height"] / 2)) <= 3  # on the fields' line
    page.context.close()


def _screen() -> bytes:
    """A plain 1280x800 page-like JPEG: the review's screenshot takes its column as a real one does."""
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", (1280, 800), "white")
    ImageDraw.Draw(image).rectangle([300, 120, 980, 700], outline=(200, 200, 210), width=3)
    out = io.BytesIO()
    image.save(out, "JPEG")
    return out.getvalue()


def _reviews(demo):
    from django.contrib.auth import get_user_model

    from venus_rpa.reviews.services import review_create_risky, review_decide

    run = make_run(demo["automation"], status="awaiting_review")
    verdict = {"category": "SEND", "level": "R3", "decision": "review",
               "reason": "Clicking 'Next' sends the expense report to your manager. Held for review."}
    action = {"kind": "fill", "target": "Amount", "value": "{{amount}}"}
    detail = {"action": action, "editable": ["value"], "verdict": verdict, "url": "http://127.0.0.1:8001/expenses/new",
              "description": "Type '{{amount}}' into the field 'Amount'",
              "form": [{"label": "Title", "value": "Team lunch"}, {"label": "Amount", "value": "12.50"}]}

    def filed():
        return review_create_risky(run_id=run.pk, title="Type '{{amount}}' into the field 'Amount'", detail=detail,
                                   screenshot=_screen(), ttl_s=3600, action=action, verdict=verdict, fingerprint="fp")

    pending, decided = filed(), filed()
    owner = get_user_model().objects.get(username="demo")
    review_decide(review=decided, user=owner, decision="edit", comment="the total, with the tip",
                  edited_action={"value": "{{amount}}0"})
    return pending, decided


def test_a_review_s_reason_and_form_are_apart_and_a_decided_one_says_what_was_decided(demo, web, browser, shots):  # noqa: F811
    pending, decided = _reviews(demo)
    page = signed_in_page(browser, web, WIDE)
    page.goto(f"{web}/reviews/{pending.pk}/")
    page.screenshot(path=str(shots / "review-pending-1366.png"))
    expect(page.locator(".review-head")).to_contain_text("expires in ")
    reason = page.locator(".review-actions > .risk").bounding_box()
    caption = page.locator(".review-form caption").bounding_box()
    assert caption["y"] - (reason["y"] + reason["height"]) >= 10  # a gap, not a seam

    page.goto(f"{web}/reviews/{decided.pk}/")
    page.screenshot(path=str(shots / "review-decided-1366.png"))
    panel = page.locator("[data-decided]")
    expect(panel).to_contain_text("Approved with changes by demo")
    expect(panel).to_contain_text("the total, with the tip")
    expect(panel.locator(".review-changes th")).to_have_text("Value to type")  # only the field the reviewer changed
    expect(panel.locator(".review-changes td")).to_have_text("'{{amount}}' → '{{amount}}0'")
    expect(page.locator(".review-head .badge")).to_have_text("Approved with changes")
    expect(page.locator(".review-head")).not_to_contain_text("expires")
    page.context.close()


def test_the_versions_diff_is_one_line_per_line_with_step_numbers(demo, web, browser, shots):  # noqa: F811
    from venus_rpa.automations.services import automation_update

    automation = demo["automation"]
    steps = [dict(s) for s in automation.current_version.steps]
    amount = next(i for i, s in enumerate(steps) if s.get("value") == "{{amount}}")
    steps[amount]["value"] = "{{total}}"
    automation_update(automation=automation, user=None, change_note="total",
                      definition={"steps": steps, "goal": automation.current_version.goal + " today",
                                  "param_schema": {**automation.current_version.param_schema, "properties": {
                                      **automation.current_version.param_schema["properties"],
                                      "total": {"type": "string", "default": "1"}}}})
    page = signed_in_page(browser, web, WIDE)
    page.goto(f"{web}/automations/{automation.slug}/versions/")
    page.screenshot(path=str(shots / "versions-diff-1366.png"), full_page=True)
    expect(page.locator(".diff-steps li").first).to_have_text(
        f"Step {amount + 1} (Fill 'Amount'): value '{{{{amount}}}}' → '{{{{total}}}}'")
    assert "@@" not in page.locator("main").inner_text()
    # each line of a field's diff directly under the one before: no blank line between them
    gaps = page.evaluate("""() => [...document.querySelectorAll('pre.diff')].flatMap(pre => {
        const spans = [...pre.querySelectorAll('span')].map(s => s.getBoundingClientRect());
        return spans.slice(1).map((r, i) => r.top - spans[i].bottom); })""")
    assert gaps and max(abs(g) for g in gaps) <= 1, gaps
    v1 = page.locator("tr", has=page.locator("strong", has_text="v1")).locator("td").last
    expect(v1).to_have_text("restore…")
    page.context.close()


def test_the_nav_shows_the_user_and_workspace_whole_and_shortens_only_a_long_name(demo, web, browser, shots):  # noqa: F811
    page = signed_in_page(browser, web, WIDE)
    page.goto(web + "/runs/")
    page.locator(".topbar").screenshot(path=str(shots / "nav-1366.png"))
    whoami = page.locator(".whoami")
    expect(whoami).to_have_text("demo · Demo workspace owner")
    assert fits(page, ".whoami, .whoami-ws") == []
    assert whoami.get_attribute("title") == "Signed in as demo in Demo workspace (owner)"

    workspace = demo["workspace"]
    workspace.name = "Northwind Traders — Accounts Payable and Receivable, EMEA region"
    workspace.save(update_fields=["name"])
    page.reload()
    page.locator(".topbar").screenshot(path=str(shots / "nav-long-name-1366.png"))
    assert fits(page, ".whoami-ws") != []  # shortened with an ellipsis...
    expect(page.locator(".whoami .role")).to_be_visible()  # ...never the role
    assert "Accounts Payable and Receivable, EMEA region" in whoami.get_attribute("title")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.context.close()
