"""An adb server and an emulated phone for the Android tests (real adb protocol end to end)."""

from __future__ import annotations

import pytest
from django.test import override_settings

from tests.helpers.android import adb_server, emulated_phone


@pytest.fixture(scope="session")
def adb(tmp_path_factory):
    with adb_server() as server:
        yield server


@pytest.fixture(scope="session")
def phone(adb, tmp_path_factory):
    with emulated_phone(adb, log_path=tmp_path_factory.mktemp("phone") / "phone.log") as device:
        yield device


@pytest.fixture
def adb_allowed(adb):
    with override_settings(VENUS_ADB_SERVERS=[f"127.0.0.1:{adb.port}"]):
        yield


@pytest.fixture
def reset_phone(adb, phone):
    """The phone back at its home screen with the practice app stopped (signed out)."""
    adb.adb("-s", phone.serial, "shell", "am force-stop com.venus.practice")
    return phone


PRACTICE_APPS = {"Venus Pay": "com.venus.practice", "Settings": "com.android.settings/.Settings"}
