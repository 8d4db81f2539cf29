"""The Android device registry: owners manage devices through the API and the dashboard; the
health check looks every device up on its (real) adb server."""

from __future__ import annotations

import pytest

from tests.api.conftest import assert_error
from tests.helpers.android import adb_server, emulated_phone

pytestmark = pytest.mark.django_db
APPS = {"Venus Pay": "com.venus.practice"}


@pytest.fixture(autouse=True)
def allowed_adb(settings):
    settings.VENUS_ADB_SERVERS = ["127.0.0.1:5037"]


def test_an_owner_registers_a_device_and_the_workspace_sees_it(personas):
    owner = personas.client(personas.owner)
    response = owner.post("/api/devices/", {"serial": "emulator-5554", "apps": APPS, "tags": {"model": "pixel"}},
                          format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body | {"id": 0} == {"id": 0, "serial": "emulator-5554", "adb_host": "127.0.0.1", "adb_port": 5037,
                                "status": "available", "status_reason": "", "tags": {"model": "pixel"}, "apps": APPS,
                                "model": "", "last_seen": body["last_seen"], "shared": False, "leased": False}
    listed = personas.client(personas.viewer).get("/api/devices/").json()
    assert [d["serial"] for d in listed["results"]] == ["emulator-5554"] and listed["count"] == 1
    assert personas.client(personas.outsider).get("/api/devices/").json()["results"] == []


def test_only_owners_manage_devices(personas):
    editor = personas.client(personas.teammate)
    assert_error(editor.post("/api/devices/", {"serial": "emulator-5554"}, format="json"), 403)


def test_a_device_on_an_adb_server_the_operator_did_not_allow_is_refused(personas):
    owner = personas.client(personas.owner)
    error = assert_error(owner.post("/api/devices/", {"serial": "x", "adb_host": "10.0.0.9", "adb_port": 5037},
                                    format="json"), 400, "invalid")
    assert error["fields"]["adb_server"] == ["Only these adb servers may be used: 127.0.0.1:5037 (VENUS_ADB_SERVERS)."]
    error = assert_error(owner.post("/api/devices/", {"serial": "y", "apps": {"Mail": "not a package"}},
                                    format="json"), 400, "invalid")
    assert "apps" in error["fields"]


def test_an_owner_disables_and_removes_a_device_but_not_a_shared_one(personas):
    from venus_rpa.devices.services import device_register

    owner = personas.client(personas.owner)
    mine = owner.post("/api/devices/", {"serial": "emulator-5554"}, format="json").json()
    shared = device_register(workspace=None, serial="shared-1")
    assert owner.patch(f"/api/devices/{mine['id']}/", {"status": "disabled"}, format="json").json()["status"] == "disabled"
    assert_error(owner.patch(f"/api/devices/{shared.pk}/", {"status": "disabled"}, format="json"), 404)
    assert owner.delete(f"/api/devices/{mine['id']}/").status_code == 204
    assert [d["serial"] for d in owner.get("/api/devices/").json()["results"]] == ["shared-1"]


def test_the_dashboard_lists_android_devices_and_registers_one(personas, client):
    client.force_login(personas.owner)
    page = client.get("/devices/")
    assert b"None registered." in page.content
    response = client.post("/devices/android/", {"serial": "emulator-5554", "adb_server": "127.0.0.1:5037",
                                                 "apps": '{"Venus Pay": "com.venus.practice"}'})
    assert response.status_code == 302
    page = client.get("/devices/").content.decode()
    assert 'data-serial="emulator-5554"' in page and "Venus Pay" in page
    client.force_login(personas.viewer)
    assert client.post("/devices/android/", {"serial": "x", "adb_server": "127.0.0.1:5037"}).status_code == 403


@pytest.mark.django_db(transaction=True)
def test_the_health_check_marks_listed_devices_available_and_missing_ones_offline(settings, tmp_path):
    from venus_rpa.devices.models import AndroidDevice
    from venus_rpa.devices.services import device_register, devices_health_check

    with adb_server() as server, emulated_phone(server, log_path=tmp_path / "phone.log") as phone:
        settings.VENUS_ADB_SERVERS = [f"127.0.0.1:{server.port}"]
        device_register(workspace=None, serial=phone.serial, adb_port=server.port)
        device_register(workspace=None, serial="emulator-5554", adb_port=server.port)
        assert devices_health_check() == {"online": [phone.serial], "offline": ["emulator-5554"]}
        seen = AndroidDevice.objects.get(resource__key=phone.serial)
        assert seen.model == "Venus Practice Phone" and seen.resource.last_seen is not None
        missing = AndroidDevice.objects.get(resource__key="emulator-5554")
        assert missing.resource.status == "offline"
        assert missing.status_reason == f"device emulator-5554 is not connected to the adb server at 127.0.0.1:{server.port}"
        server.adb("disconnect", phone.serial)  # a network device the adb server forgot is connected again
        server.wait_state(phone.serial, None)
        assert phone.serial in devices_health_check()["online"]
