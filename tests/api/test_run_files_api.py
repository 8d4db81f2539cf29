"""A run's files through the API: input files given at launch (base64 JSON or multipart parts)
checked before the run exists and stored with it; downloads a worker kept listed with the run
(name, size, type, flag) and served to members only, as attachments; definitions that read a
file no download stores refused at save.

What a hostile caller can do, tested here: an editor can give at most VENUS_INPUT_FILE_MAX_BYTES
per file, never a program (by its bytes or its name), only the files the automation uploads; a
name with folders or markup is stored made safe; a viewer cannot start a run (so cannot upload);
an outsider gets 404 and an anonymous caller 401 for the run and its files; a stored HTML file
is never rendered on the app's origin."""

from __future__ import annotations

import base64

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import PRACTICE_URL, assert_error
from venus_rpa.runs.models import Artifact, Run

PDF = b"%PDF-1.4\n% a receipt\n"
STEPS = [{"kind": "goto", "url": "/lab/attach"},
         {"kind": "upload", "name": "Attach the receipt", "target": "Receipt", "from_input": "receipt"},
         {"kind": "click", "target": {"role": "button", "name": "Send receipt"}}]


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


@pytest.fixture
def upload_automation(personas):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.workspace, user=personas.owner, slug="receipt", name="Send a receipt",
                             definition={"start_url": PRACTICE_URL + "/lab/attach", "allowed_domains": ["127.0.0.1"],
                                         "steps": STEPS})


URL = "/api/automations/receipt/runs/"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def refused(client, body, field: str, *, multipart: bool = False) -> str:
    before = Run.objects.count()
    error = assert_error(client.post(URL, body, format="multipart" if multipart else "json"), 400, "invalid")
    assert list(error["fields"]) == [field], error
    assert Run.objects.count() == before and not Artifact.objects.exists()  # never a half-run
    return error["fields"][field][0]


@pytest.mark.django_db
def test_an_input_file_in_base64_is_stored_with_the_run_and_listed(owner, upload_automation):
    response = owner.post(URL, {"files": {"receipt": {"name": "receipt.pdf", "content": b64(PDF)}}}, format="json")
    assert response.status_code == 202, response.json()
    run = Run.objects.get(pk=response.json()["id"])
    (artifact,) = run.artifacts.all()
    assert (artifact.kind, artifact.name, artifact.data) == ("input", "receipt.pdf",
                                                            {"param": "receipt", "type": "pdf", "size": len(PDF)})
    listed = owner.get(f"/api/runs/{run.pk}/").json()["artifacts"]
    assert [(a["name"], a["kind"], a["type"], a["size"], a["flag"]) for a in listed] == [
        ("receipt.pdf", "input", "pdf", len(PDF), None)]


@pytest.mark.django_db
def test_an_input_file_as_a_multipart_part_is_stored_under_a_safe_name(owner, upload_automation):
    from django.core.files.uploadedfile import SimpleUploadedFile

    part = SimpleUploadedFile("../../<b>receipt</b>.pdf", PDF, content_type="application/pdf")
    response = owner.post(URL, {"files.receipt": part, "params": "{}"}, format="multipart")
    assert response.status_code == 202, response.json()
    (artifact,) = Run.objects.get(pk=response.json()["id"]).artifacts.all()
    assert artifact.name == "b_.pdf" and "/" not in artifact.file.name.split("artifacts/")[-1].split("/", 3)[-1]


@pytest.mark.django_db
def test_a_missing_file_is_a_field_error_and_no_run_is_created(owner, upload_automation):
    assert "This file is required" in refused(owner, {}, "files.receipt")


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "content", "says"), [
    ("receipt.pdf", b"MZ\x90\x00program", "programs are never kept (its bytes are a pe program)"),
    ("receipt.exe", b"hello", "a .exe file is a program"),
    ("receipt.pdf", b"", "the file is empty"),
])
def test_a_program_or_an_empty_file_is_refused(owner, upload_automation, name, content, says):
    message = refused(owner, {"files": {"receipt": {"name": name, "content": b64(content)}}}, "files.receipt")
    assert says in message


@pytest.mark.django_db
def test_a_file_over_the_limit_is_refused(owner, upload_automation, settings):
    settings.VENUS_INPUT_FILE_MAX_BYTES = 10
    message = refused(owner, {"files": {"receipt": {"name": "r.pdf", "content": b64(PDF)}}}, "files.receipt")
    assert "at most 10 are kept" in message


@pytest.mark.django_db
def test_bad_base64_and_files_the_automation_does_not_take_are_refused(owner, upload_automation):
    assert refused(owner, {"files": {"receipt": {"name": "r.pdf", "content": "%%%"}}}, "files.receipt") == \
        "Not valid base64."
    body = {"files": {"receipt": {"name": "r.pdf", "content": b64(PDF)}, "other": {"name": "x.txt", "content": b64(b"x")}}}
    assert "Not an input file of this automation (its files: receipt)" in refused(owner, body, "files.other")


@pytest.mark.django_db
def test_a_viewer_cannot_upload_by_launching_and_outsiders_see_nothing(viewer, outsider, upload_automation):
    body = {"files": {"receipt": {"name": "r.pdf", "content": b64(PDF)}}}
    assert_error(viewer.post(URL, body, format="json"), 403)
    assert_error(outsider.post(URL, body, format="json"), 404)
    assert_error(APIClient().post(URL, body, format="json"), 401)
    assert not Run.objects.exists() and not Artifact.objects.exists()


@pytest.mark.django_db
def test_a_kept_download_is_served_to_members_only_and_never_rendered(owner, viewer, outsider, upload_automation):
    from venus_rpa.runs.artifacts import run_artifact_add

    run = Run.objects.get(pk=owner.post(URL, {"files": {"receipt": {"name": "r.pdf", "content": b64(PDF)}}},
                                        format="json").json()["id"])
    page = b"<!doctype html><script>alert(document.cookie)</script>"
    artifact = run_artifact_add(run_id=run.pk, name="report.csv", content=page,
                                data={"type": "html", "flag": "the name says .csv but the bytes are html",
                                      "size": len(page), "source": "download"})
    listed = viewer.get(f"/api/runs/{run.pk}/").json()["artifacts"]
    assert listed[-1]["flag"] == "the name says .csv but the bytes are html" and listed[-1]["type"] == "html"
    url = artifact.file.url
    response = viewer.get(url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == page
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"].startswith('attachment; filename="report.csv"')
    assert response["X-Content-Type-Options"] == "nosniff" and "sandbox" in response["Content-Security-Policy"]
    assert_error(outsider.get(url), 404)
    assert_error(APIClient().get(url), 401)
    assert_error(outsider.get(f"/api/runs/{run.pk}/"), 404)


@pytest.mark.django_db
def test_a_retry_takes_the_input_files_of_the_run_it_retries(owner, upload_automation, personas):
    from venus_rpa.runs.models import RunStatus
    from venus_rpa.runs.reruns import run_rerun

    run = Run.objects.get(pk=owner.post(URL, {"files": {"receipt": {"name": "r.pdf", "content": b64(PDF)}}},
                                        format="json").json()["id"])
    Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    run.refresh_from_db()
    again = run_rerun(run=run, user=personas.owner)
    (artifact,) = again.artifacts.all()
    assert (artifact.kind, artifact.name, artifact.data["param"]) == ("input", "r.pdf", "receipt")
    assert artifact.file.read() == PDF


@pytest.mark.django_db
@pytest.mark.parametrize(("steps", "field", "says"), [
    ([{"kind": "download", "target": "Export", "into": "report"},
      {"kind": "extract", "from_file": "reprot", "into": "total"}],
     "steps.1.from_file", "no download step stores a file by that name (downloaded files: report)"),
    ([{"kind": "extract", "from_file": "report", "into": "total"},
      {"kind": "download", "target": "Export", "into": "report"}],
     "steps.0.from_file", "before it is stored on every path"),
    ([{"kind": "upload", "target": "Receipt"}], "steps.0.upload", "upload needs from_input"),
])
def test_definitions_that_read_files_wrongly_are_refused_at_save(owner, steps, field, says):
    response = owner.post("/api/automations/", {"slug": "files", "name": "Files", "start_url": PRACTICE_URL + "/lab/report",
                                                "allowed_domains": ["127.0.0.1"], "steps": steps}, format="json")
    error = assert_error(response, 400, "invalid")
    assert any(says in message for message in error["fields"].get(field, [])), error


@pytest.mark.django_db
def test_the_command_line_takes_input_files(upload_automation, tmp_path):
    import io

    from django.core.management import CommandError, call_command

    receipt = tmp_path / "receipt.pdf"
    receipt.write_bytes(PDF)
    with pytest.raises(CommandError, match="files.receipt: This file is required"):
        call_command("run_automation", "receipt", stdout=io.StringIO())
    call_command("run_automation", "receipt", "--file", f"receipt={receipt}", stdout=io.StringIO())
    assert list(Run.objects.get().artifacts.values_list("name", "kind")) == [("receipt.pdf", "input")]


@pytest.mark.django_db
def test_a_webhook_gives_input_files_in_its_signed_body(owner, upload_automation):
    from tests.triggers.test_webhooks import body_of, post_hook

    hook = owner.post("/api/webhooks/", {"automation": "receipt", "name": "Receipts"}, format="json").json()
    missing = post_hook(hook, body_of({}))
    assert missing.status_code == 400 and "files.receipt" in missing.json()["error"]["fields"]
    bad = post_hook(hook, body_of({"files": {"receipt": {"name": "x.pdf", "content": b64(b"\x7fELF\x02")}}}))
    assert bad.status_code == 400 and "programs are never kept" in bad.json()["error"]["fields"]["files.receipt"][0]
    assert not Run.objects.exists()
    response = post_hook(hook, body_of({"files": {"receipt": {"name": "r.pdf", "content": b64(PDF)}}}))
    assert response.status_code == 202, response.json()
    (artifact,) = Run.objects.get(pk=response.json()["run_id"]).artifacts.all()
    assert (artifact.kind, artifact.name) == ("input", "r.pdf")
