"""The offline OCR interface (workers.ocr) on images drawn here: no download, Latin and CJK text."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from workers import ocr

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
WQY = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"


def _image() -> bytes:
    image = Image.new("RGB", (640, 240), "white")
    draw = ImageDraw.Draw(image)
    draw.text((20, 20), "Move to Trash", fill="black", font=ImageFont.truetype(DEJAVU, 22))
    draw.text((300, 120), "报销 Travel", fill="black", font=ImageFont.truetype(WQY, 22))
    draw.text((20, 190), "Total: 1,234.50", fill="black", font=ImageFont.truetype(DEJAVU, 22))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_it_reads_and_finds_text_with_spaces_case_and_cjk():
    png = _image()
    lines = ocr.read_text(png)
    assert any(ocr.normalise(line.text) == "movetotrash" for line in lines)

    [box] = ocr.find_text(png, "move to TRASH", lines=lines)
    assert 15 <= box.x <= 30 and 15 <= box.y <= 30 and 120 <= box.width <= 190
    [cjk] = ocr.find_text(png, "报销", lines=lines)  # part of a line: the part its characters take up
    x, y = cjk.center
    assert 300 <= x <= 360 and 115 <= y <= 150
    assert ocr.find_text(png, "Delete", lines=lines) == []
