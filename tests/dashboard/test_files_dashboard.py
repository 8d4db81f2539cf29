"""Files on the dashboard: the launcher's file field for each input file an upload step takes (a
missing or refused file is an error on its field and no run starts), the run page's files table
(name, kind, type, size, flag; a link members follow), the editor's rows for the new fields. A
viewer cannot launch (so cannot upload); an outsider gets 404 for the run page."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from venus_rpa.runs.models import Artifact, Run

PDF = b"%PDF-1.4\n% receipt\n"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


@pytest.fixture
def upload_automation(personas):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.workspace, user=personas.owner, slug="receipt", name="Receipt",
                             definition={"start_url": "http://127.0.0.1:9/lab/attach", "allowed_domains": ["127.0.0.1"],
                                         "steps": [{"kind": "upload", "target": "Receipt", "from_input": "receipt"},
                                                   {"kind": "download", "target": "Export", "into": "report"},
                                                   {"kind": "extract", "from_file": "report", "into": "total",
                                                    "pattern": "Total,,([0-9.]+)"}]})


def launch(client, data: dict):
    return client.post("/automations/receipt/run/", data)


def test_the_launcher_asks_for_the_file_and_starts_a_run_holding_it(editor_client, upload_automation):
    html = editor_client.get("/automations/receipt/run/").content.decode()
    assert 'type="file" name="file_receipt"' in html and "Receipt (file)" in html
    response = launch(editor_client, {"file_receipt": SimpleUploadedFile("r.pdf", PDF, "application/pdf")})
    run = Run.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/runs/{run.pk}/"
    assert list(run.artifacts.values_list("kind", "name", "data__param")) == [("input", "r.pdf", "receipt")]


def test_a_missing_or_refused_file_is_an_error_on_its_field_and_starts_nothing(editor_client, upload_automation):
    response = launch(editor_client, {})
    assert response.status_code == 400 and "This file is required" in response.content.decode()
    program = SimpleUploadedFile("r.pdf", b"\x7fELF\x02\x01", "application/pdf")
    response = launch(editor_client, {"file_receipt": program})
    assert response.status_code == 400 and "programs are never kept" in response.content.decode()
    assert not Run.objects.exists() and not Artifact.objects.exists()


def test_a_viewer_cannot_launch_and_an_outsider_cannot_see_the_run_page(editor_client, viewer_client,
                                                                         outsider_client, upload_automation):
    response = launch(viewer_client, {"file_receipt": SimpleUploadedFile("r.pdf", PDF, "application/pdf")})
    assert response.status_code == 403 and not Run.objects.exists()
    launch(editor_client, {"file_receipt": SimpleUploadedFile("r.pdf", PDF, "application/pdf")})
    run = Run.objects.get()
    assert outsider_client.get(f"/runs/{run.pk}/").status_code == 404


def test_the_run_page_lists_files_with_type_size_and_flag_and_escapes_names(editor_client, upload_automation):
    from venus_rpa.runs.artifacts import run_artifact_add

    launch(editor_client, {"file_receipt": SimpleUploadedFile("r.pdf", PDF, "application/pdf")})
    run = Run.objects.get()
    run_artifact_add(run_id=run.pk, name="<img src=x onerror=alert(1)>.csv", content=b"PK\x03\x04",
                     data={"type": "zip", "size": 4, "flag": "the name says .csv but the bytes are zip",
                           "source": "download"})
    html = editor_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="run-files"' in html and "given at launch (receipt)" in html and "downloaded" in html
    assert "the name says .csv but the bytes are zip" in html and "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;.csv" in html


def test_the_editor_shows_the_file_fields_and_keeps_them_on_save(editor_client, upload_automation):
    html = editor_client.get("/automations/receipt/").content.decode()
    assert 'name="s-' in html and 'value="receipt"' in html and 'value="report"' in html
    assert '<option value="download"' in html or ">download<" in html


def test_the_file_fields_round_trip_through_editor_rows():
    from venus_rpa.dashboard import editor
    from workers import steps as S

    steps = [{"kind": "download", "target": {"role": "link", "name": "Export"}, "into": "report"},
             {"kind": "extract", "from_file": "report", "into": "total", "pattern": "Total,,([0-9.]+)"},
             {"kind": "upload", "target": "Receipt", "from_input": "receipt"}]
    for step in steps:
        back = editor.step_from_row(editor.step_row_from_step(step))
        assert {k: back[k] for k in step} == step and "target" not in back or step.get("target")
        S.STEPS.validate_python([back])  # what the editor posts is a valid step


def test_the_trace_says_what_each_step_did_with_files(editor_client, upload_automation):
    from django.utils import timezone

    from venus_rpa.runs.models import Step

    launch(editor_client, {"file_receipt": SimpleUploadedFile("r.pdf", PDF, "application/pdf")})
    run = Run.objects.get()
    Step.objects.create(run=run, index=0, kind="upload", name="Attach", status="succeeded", started_at=timezone.now(),
                        grounding={"upload": {"file": "r.pdf", "type": "pdf", "size": 19}})
    Step.objects.create(run=run, index=1, kind="download", name="Export", status="failed", started_at=timezone.now(),
                        error="the download 'report.csv' was not kept: programs are never kept",
                        grounding={"downloads": [{"name": "report.csv", "size": 130, "type": "pe", "status": "refused",
                                                  "reason": "programs are never kept (its bytes are a pe program)"}]})
    html = editor_client.get(f"/runs/{run.pk}/").content.decode()
    assert "Uploaded r.pdf, 19\xa0bytes, pdf" in html
    assert "Downloaded report.csv, 130\xa0bytes, pe: refused — programs are never kept (its bytes are a pe program)" in html


def test_a_file_stored_without_facts_shows_its_type_and_size(editor_client, upload_automation):
    """A desktop run's saved file comes with no facts: the store reads its size and type from its
    bytes, so the run page does not show dashes for them."""
    from venus_rpa.runs.artifacts import run_artifact_add

    launch(editor_client, {"file_receipt": SimpleUploadedFile("r.pdf", PDF, "application/pdf")})
    run = Run.objects.get()
    artifact = run_artifact_add(run_id=run.pk, name="expenses.gnumeric", content=b"\x1f\x8b\x08\x00" + b"x" * 2044)
    assert artifact.data == {"size": 2048, "type": "gzip"}
    html = editor_client.get(f"/runs/{run.pk}/").content.decode()
    row = html[html.index("expenses.gnumeric"):]
    row = row[:row.index("</tr>")]
    assert ">gzip<" in row and "2.0\xa0KB" in row
