"""A run's files in a real Chromium against the practice site: downloads captured (kept, refused,
flagged), `download` steps, `extract` from a downloaded file, `upload` of a run's input file."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.helpers import runtime
from tests.helpers.runtime import expect_error, step
from workers.executor import ExplicitExecutor
from workers.files import RunFile

browser = runtime.browser  # one Chromium for the module


class MemoryStore:
    """The platform's store as the worker sees it (`FileStore`), in memory."""

    def __init__(self, inputs: dict[str, RunFile] | None = None) -> None:
        self.kept: list[tuple[RunFile, dict[str, Any]]] = []
        self.inputs = inputs or {}

    async def keep(self, file: RunFile, facts: dict[str, Any]) -> str:
        self.kept.append((file, dict(facts)))
        return str(len(self.kept))

    async def input(self, name: str) -> RunFile | None:
        return self.inputs.get(name)


def session(browser, body, store: MemoryStore, **options):
    async def with_store(env, ex: ExplicitExecutor):
        env.files.store = store
        return await body(env, ex)

    return browser.session(with_store, **options)


def download(link: str, into: str | None = "report", **extra) -> Any:
    return step(kind="download", target={"role": "link", "name": link}, **({"into": into} if into else {}), **extra)


def test_a_download_step_keeps_the_file_and_an_extract_reads_its_total(browser):
    store = MemoryStore()

    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        done = await ex.run(download("Download report (CSV)"))
        total = await ex.run(step(kind="extract", from_file="report", into="total", pattern=r"Total,,([0-9.]+)"))
        amounts = await ex.run(step(kind="extract", from_file="report", into="amounts", all=True,
                                    pattern=r"^2026[^,]*,[^,]*,([0-9.]+)$"))
        return done, total, amounts

    done, total, amounts = session(browser, body, store)
    assert done.output == {"report": "report-2026-11.csv"}
    facts = done.grounding["download"]
    assert facts["status"] == "kept" and facts["type"] == "text" and facts["ref"] == "1"
    assert facts["from"] == browser.base_url + "/lab/report.csv"
    (kept, _), = store.kept
    assert kept.name == "report-2026-11.csv" and kept.content.startswith(b"Date,Item,Amount")
    assert total.output == {"total": "270.75"} and total.grounding["file"] == "report-2026-11.csv"
    assert amounts.output == {"amounts": ["12.50", "240.00", "18.25"]}


def test_an_xlsx_download_is_read_as_tab_separated_lines(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        await ex.run(download("Download report (Excel)", into="sheet"))
        return await ex.run(step(kind="extract", from_file="sheet", into="total", pattern=r"Total\t+([0-9.]+)"))

    outcome = session(browser, body, MemoryStore())
    assert outcome.output == {"total": "270.75"} and outcome.grounding["type"] == "xlsx"


def test_a_program_is_never_kept_whatever_its_name(browser):
    store = MemoryStore()

    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        return await expect_error(ex.run(download("Download report (tool)")))

    message = session(browser, body, store)
    assert "was not kept: programs are never kept (its bytes are a pe program)" in message
    assert store.kept == []


def test_a_file_over_the_limit_is_refused_and_nothing_is_read(browser):
    store = MemoryStore()

    async def body(env, ex):
        env.files.max_bytes = 100_000
        await ex.run(step(kind="goto", url="/lab/report"))
        return await expect_error(ex.run(download("Download report (large)")))

    message = session(browser, body, store)
    assert "at most 100,000 are kept" in message and store.kept == []


def test_a_name_that_lies_about_the_type_is_kept_with_a_flag_and_not_read_as_text(browser):
    store = MemoryStore()

    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        done = await ex.run(download("Download report (archive)"))
        error = await expect_error(ex.run(step(kind="extract", from_file="report", into="t", pattern="Total")))
        return done, error

    done, error = session(browser, body, store)
    assert done.grounding["download"]["flag"] == "the name says .csv but the bytes are zip"
    assert len(store.kept) == 1
    assert "is a zip file; an extract reads text" in error


def test_a_suggested_name_with_folders_and_markup_is_made_safe(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        return await ex.run(download("Download report (odd name)"))

    done = session(browser, body, MemoryStore())
    name = done.output["report"]
    assert "/" not in name and "<" not in name and ".." not in name and name.endswith(".csv")


def test_a_download_a_click_starts_is_shown_in_that_steps_record_even_from_a_new_window(browser):
    store = MemoryStore()

    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        await ex.run(step(kind="click", target={"role": "link", "name": "Download report (new window)"}))
        for _ in range(50):
            if store.kept:
                break
            await env.page.wait_for_timeout(100)
        return await env.files.settle()

    settled = session(browser, body, store)
    assert [f["status"] for f in settled] == ["kept"] and len(store.kept) == 1


def test_a_download_step_fails_clearly_when_nothing_downloads(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        return await expect_error(ex.run(step(kind="download", target={"role": "link", "name": "Post the total"},
                                              timeout_s=1)))

    assert "no download started within 1s of clicking link 'Post the total'" in session(browser, body, MemoryStore())


def test_a_download_from_outside_the_allowed_domains_cannot_happen(browser):
    store = MemoryStore()

    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        # A link to a host the run may not reach (the page could hold any address).
        await env.page.evaluate("""() => { const a = document.createElement('a'); a.href = 'http://198.51.100.7/r.csv';
                                   a.textContent = 'Elsewhere'; document.body.append(a); }""")
        return await expect_error(ex.run(step(kind="download", target={"role": "link", "name": "Elsewhere"},
                                              timeout_s=2)))

    message = session(browser, body, store)
    assert "no download started" in message and store.kept == []


def test_extract_from_a_name_no_download_stored_fails_clearly(browser):
    async def body(env, ex):
        return await expect_error(ex.run(step(kind="extract", from_file="report", into="t")))

    assert "no file is stored as 'report'" in session(browser, body, MemoryStore())


def test_an_upload_sets_the_runs_input_file_on_the_page(browser):
    receipt = RunFile("receipt.pdf", b"%PDF-1.4 receipt", "pdf")

    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/attach"))
        done = await ex.run(step(kind="upload", target="Receipt", from_input="receipt"))
        await ex.run(step(kind="click", target={"role": "button", "name": "Send receipt"}))
        await ex.run(step(kind="wait_for", text="Received"))
        missing = await expect_error(ex.run(step(kind="upload", target="Receipt", from_input="other")))
        return done, missing

    done, missing = session(browser, body, MemoryStore({"receipt": receipt}))
    assert done.grounding["upload"] == {"file": "receipt.pdf", "type": "pdf", "size": 16}
    received = httpx.get(browser.base_url + "/api/lab/files").json()["attachments"][-1]
    assert received["name"] == "receipt.pdf" and received["size"] == 16
    assert received["content_type"] == "application/pdf"
    assert "the run has no input file 'other'" in missing


@pytest.mark.parametrize("data", [
    {"kind": "extract", "into": "t"},
    {"kind": "extract", "into": "t", "from_file": "r", "target": "Total"},
    {"kind": "upload", "target": "Receipt"},
    {"kind": "upload", "target": "Receipt", "from_input": "r", "filename": "x.txt"},
])
def test_steps_that_name_no_source_or_two_are_refused(data):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        step(**data)


@pytest.mark.parametrize("link", ["Download report (CSV)", "Download report (Excel)"])
def test_a_download_that_holds_a_vault_value_is_refused_and_nothing_is_kept(browser, link):
    from workers.secrets import Credential, SecretBox

    store = MemoryStore()
    vault = SecretBox({"hotel": Credential("hotel", {"booking": "Hotel"}, domains=["127.0.0.1"])})

    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        return await expect_error(ex.run(download(link)))

    message = session(browser, body, store, secrets=vault)
    assert "the file holds a secret from the vault; it is not kept" in message
    assert store.kept == [] and "Hotel" not in message
    kept = MemoryStore()  # the same file with a vault that it does not hold is kept
    session(browser, lambda env, ex: _download_report(ex, link), kept, secrets=runtime.local_secrets())
    assert len(kept.kept) == 1


async def _download_report(ex, link: str):
    await ex.run(step(kind="goto", url="/lab/report"))
    return await ex.run(download(link))


def test_a_vault_value_is_found_in_utf16_text_and_inside_a_zip_member():
    import io
    import zipfile

    from workers.files import file_holds

    holds = lambda text: "S3cret-42" in text  # noqa: E731
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/sharedStrings.xml", "<sst><si><t>S3cret-42</t></si></sst>")
    assert file_holds(packed.getvalue(), "xlsx", holds)
    assert b"S3cret-42" not in packed.getvalue()  # compressed: only the member's text shows it
    assert file_holds("Name\tS3cret-42".encode("utf-16"), "text", holds)
    assert not file_holds(b"Name,Amount\nTaxi,12.50", "text", holds)


def test_a_download_whose_capture_never_finishes_fails_the_step_saying_so(browser, monkeypatch):
    """A download started but not captured in time (a store that does not answer): the step fails
    with what happened, instead of an error of the platform's own failing the item in doubt."""
    from workers import executor

    monkeypatch.setattr(executor, "DOWNLOAD_GRACE_S", 1.0)

    class SlowStore(MemoryStore):
        async def keep(self, file: RunFile, facts: dict[str, Any]) -> str:
            await asyncio.sleep(4)
            return await super().keep(file, facts)

    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/report"))
        return await expect_error(ex.run(download("Download report (CSV)", timeout_s=1)))

    message = session(browser, body, SlowStore())
    assert "the download started by clicking link 'Download report (CSV)' did not finish within 2s" in message
