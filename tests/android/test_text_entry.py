"""Text in any script on a phone, through a real adb server and adbutils: `input text` types ASCII
only and fails on anything else, as on a device; ADB Keyboard types the rest while it is the
selected input method, and the phone's own keyboard is selected again afterwards; a phone without
ADB Keyboard refuses non-ASCII text with an error naming what to install."""

from __future__ import annotations

import asyncio

import pytest

from tests.android.conftest import PRACTICE_APPS
from tests.android.test_android_runtime import run
from tests.helpers.android import emulated_phone
from workers import steps as S
from workers.envs.android.device import ADB_KEYBOARD, AdbDevice
from workers.errors import StepError

LATIN = "com.android.inputmethod.latin/.LatinIME"


async def _focus_username(device: AdbDevice) -> None:
    from workers.envs.android.hierarchy import Hierarchy

    await device.stop("com.venus.practice")
    await device.start("com.venus.practice/.SignInActivity")
    field = Hierarchy.parse(await device.ui_dump()).find(S.Target(label="Username"), purpose="input")[0][0]
    await device.tap(*field.center)


async def _focused_text(device: AdbDevice) -> str:
    from workers.envs.android.hierarchy import Hierarchy

    return Hierarchy.parse(await device.ui_dump()).focused().text


def test_input_text_fails_on_non_ascii_and_adb_keyboard_types_it_then_gives_the_keyboard_back(adb, phone):
    device = AdbDevice(phone.serial, adb_port=adb.port)

    async def go():
        await _focus_username(device)
        assert await device.input_method() == LATIN
        refused = await device.shell("input text caf\u00e9")
        assert "Exception occurred while executing 'text'" in refused
        await device.shell("am broadcast -a ADB_INPUT_B64 --es msg 546L")  # not selected: its receiver is off
        assert await _focused_text(device) == ""
        await device.type_text("王小明 Zoë")
        assert await _focused_text(device) == "王小明 Zoë"
        assert await device.input_method() == LATIN  # the previous input method is selected again
        await device.type_text(" ok")  # ASCII goes through `input text`
        assert await _focused_text(device) == "王小明 Zoë ok"

    asyncio.run(go())


def test_a_phone_with_adb_keyboard_selected_types_everything_through_it(adb, phone):
    device = AdbDevice(phone.serial, adb_port=adb.port)

    async def go():
        await device.shell(f"ime set {ADB_KEYBOARD}")
        try:
            await _focus_username(device)
            await device.type_text("Zürich 1")
            assert await _focused_text(device) == "Zürich 1"
        finally:
            await device.shell(f"ime set {LATIN}")

    asyncio.run(go())


@pytest.mark.django_db(transaction=True)
def test_a_phone_without_adb_keyboard_types_ascii_and_fails_the_run_on_other_scripts_saying_what_to_install(
        adb, adb_allowed, tmp_path):
    from venus_rpa.devices.services import device_register

    with emulated_phone(adb, log_path=tmp_path / "plain.log", adb_keyboard=False) as plain:
        device = AdbDevice(plain.serial, adb_port=adb.port)
        assert "com.android.adbkeyboard" not in asyncio.run(device.packages())
        assert "Unknown input method" in asyncio.run(device.shell(f"ime set {ADB_KEYBOARD}"))
        device_register(workspace=None, serial=plain.serial, adb_port=adb.port, apps=PRACTICE_APPS)
        result = run({"steps": [
            {"kind": "goto", "url": "app:Venus Pay"},
            {"kind": "fill", "target": "Username", "value": "demo"},
            {"kind": "fill", "target": {"label": "Password"}, "value": "王小明"},
        ]})
        assert result.status == "failed"
        assert "cannot type non-ASCII text" in result.reason and "Install ADB Keyboard" in result.reason
        assert "com.android.adbkeyboard" in result.reason
        assert asyncio.run(_focused_text(device)) == ""  # the password field got nothing
        with pytest.raises(StepError, match="Install ADB Keyboard"):
            asyncio.run(device.type_text("é"))
