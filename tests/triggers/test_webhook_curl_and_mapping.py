"""The webhook page's curl example sends the `Idempotency-Key` its own text recommends, and the
Webhooks list shows a mapping as "parameter → path" lines that wrap inside their card (the
layout itself is measured in Chromium: tests/e2e/test_layout_e2e.py).

Before: the curl example had no Idempotency-Key, and the Mapping column held the mapping's pretty
JSON, which ran out of its card and was cut ("data.order.tit")."""

from __future__ import annotations

from tests.dashboard.conftest import signed_in
from tests.triggers.test_webhook_page import MAPPING, page, trigger, trigger_and_secret  # noqa: F401 (fixtures)


def test_the_curl_example_sends_an_idempotency_key(personas, trigger):  # noqa: F811
    html = page(signed_in(personas.viewer), trigger).content.decode()
    curl = html.split('id="curl-example"')[1].split("</pre>")[0]
    assert "KEY=&#x27;replace-with-your-event-id&#x27;" in curl
    assert '-H &quot;Idempotency-Key: $KEY&quot; \\\n  --data-raw' in curl
    assert "send an <code>Idempotency-Key</code> header" in html  # the text it now follows


def test_the_webhooks_list_shows_the_mapping_as_lines_not_json(personas, trigger):  # noqa: F811
    html = signed_in(personas.viewer).get("/webhooks/").content.decode()
    cell = html.split("data-mapping>")[1].split("</td>")[0]
    assert '<ul class="mapping-list"><li><code>order_id</code> → <code>data.order.id</code></li>' in cell
    assert "<li><code>priority</code> → <code>data.order.flags.0</code></li>" in cell
    assert "{" not in cell and "&quot;" not in cell

