"""Files without a browser: type sniffing, keep/refuse/flag, safe names, reading text and XLSX,
and the save-time checks of download names (`workers.flow`)."""

from __future__ import annotations

import io
import zipfile

import pytest

from workers import flow, flow_checks, steps as S
from workers.files import FileError, RunFile, file_check, file_text, safe_name, sniff


def zipped(**members: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, body in members.items():
            archive.writestr(name.replace("__", "/"), body)
    return out.getvalue()


@pytest.mark.parametrize(("data", "kind"), [
    (b"MZ\x90\x00", "pe"), (b"\x7fELF\x02", "elf"), (b"\xcf\xfa\xed\xfe", "mach-o"), (b"#!/bin/sh\nrm -rf /", "script"),
    (b"%PDF-1.7", "pdf"), (b"\x89PNG\r\n", "png"), (b"a,b\n1,2\n", "text"), (b'{"a": 1}', "json"),
    (b"<!DOCTYPE html><p>", "html"), (b"\x00\x01\x02", "binary"), (b"", "empty"),
    (zipped(xl__workbook_xml=b"<x/>"), "xlsx"), (zipped(a_txt=b"a"), "zip"),
])
def test_it_sniffs_the_kind_from_the_bytes(data, kind):
    assert sniff(data.replace(b"workbook_xml", b"workbook.xml")) == kind


def test_programs_are_refused_by_bytes_or_by_name():
    assert "pe program" in file_check("report.csv", b"MZ\x90\x00", max_bytes=100).refused
    assert "a .exe file is a program" in file_check("setup.exe", b"hello", max_bytes=100).refused
    assert "a .sh file is a program" in file_check("x.sh", b"echo hi", max_bytes=100).refused


def test_a_file_over_the_limit_or_empty_is_refused():
    assert "at most 10 are kept" in file_check("a.csv", b"x" * 11, max_bytes=10).refused
    assert file_check("a.csv", b"", max_bytes=10).refused == "the file is empty"


def test_a_name_claiming_another_type_is_kept_with_a_flag():
    check = file_check("report.csv", zipped(a=b"1"), max_bytes=10_000)
    assert not check.refused and check.flag == "the name says .csv but the bytes are zip"
    assert file_check("report.csv", b"a,b\n", max_bytes=100).flag == ""
    assert file_check("report.weird", b"\x00\x01", max_bytes=100).flag == ""  # an unknown extension promises nothing


@pytest.mark.parametrize(("given", "safe"), [
    ("../../etc/passwd", "passwd"), ("C:\\Users\\me\\report.csv", "report.csv"),
    ("<script>alert(1)</script>.csv", "script_.csv"), ("q&a \"r\" `x`.csv", "q_a _r_ _x_.csv"), ("..", "download"), ("a\x00b\nc.txt", "abc.txt"),
    (".hidden", "hidden"), ("x" * 300 + ".csv", "x" * 116 + ".csv"),
])
def test_names_are_made_safe(given, safe):
    assert safe_name(given) == safe


def test_text_and_xlsx_are_read_and_other_kinds_are_not():
    assert file_text(RunFile("a.csv", "\ufeffTotal,1".encode(), "text")) == "Total,1"
    with pytest.raises(FileError, match="is a pdf file"):
        file_text(RunFile("a.pdf", b"%PDF", "pdf"))
    with pytest.raises(FileError, match="not UTF-8"):
        file_text(RunFile("a.csv", b"\xff\xfe\x00a", "text"))
    with pytest.raises(FileError, match="11 characters; an extract reads at most 10"):
        file_text(RunFile("a.csv", b"x" * 11, "text"), max_chars=10)


def test_an_xlsx_bomb_is_refused_by_its_declared_size():
    bomb = zipped(xl__workbook_xml=b"<x/>", big=b"\x00" * (21 * 1024 * 1024))
    with pytest.raises(FileError, match="inflates to"):
        file_text(RunFile("b.xlsx", bomb, "xlsx"))


def spec(*steps: dict) -> list:
    return S.AutomationSpec.model_validate({"steps": list(steps)}).steps


DOWNLOAD = {"kind": "download", "target": "Export", "into": "report"}


def test_a_downloaded_files_name_is_a_value_and_extract_may_read_it():
    steps = spec(DOWNLOAD, {"kind": "extract", "from_file": "report", "into": "total"},
                 {"kind": "fill", "target": "Name", "value": "{{steps.report.value}}"})
    assert flow_checks.definition_problems(steps) == {}


def test_reading_a_file_no_download_stores_is_a_field_error():
    problems = flow_checks.definition_problems(spec({"kind": "extract", "from_file": "reprot", "into": "total"}, DOWNLOAD))
    assert problems == {"steps.0.from_file": [
        "The extract step at steps.0 reads the file 'reprot', but no download step stores a file by that name "
        "(downloaded files: report)."]}


def test_reading_a_file_before_it_is_downloaded_or_from_a_value_is_a_field_error():
    before = flow_checks.definition_problems(spec({"kind": "extract", "from_file": "report", "into": "t"}, DOWNLOAD))
    assert "before it is stored on every path" in before["steps.0.from_file"][0]
    value = flow_checks.definition_problems(spec({"kind": "extract", "target": "Total", "into": "total"},
                                          {"kind": "extract", "from_file": "total", "into": "t"}))
    assert "stores a value by that name, not a downloaded file" in value["steps.1.from_file"][0]


def test_input_files_are_the_names_uploads_take_from_the_run():
    steps = spec({"kind": "upload", "target": "Receipt", "from_input": "receipt"},
                 {"kind": "if", "condition": {"text_visible": "More"},
                  "steps": [{"kind": "upload", "target": "Other", "from_input": "invoice"},
                            {"kind": "upload", "target": "Again", "from_input": "receipt"}]})
    assert flow.input_files(steps) == ["receipt", "invoice"]
