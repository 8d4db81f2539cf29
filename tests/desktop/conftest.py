"""Fixtures for the desktop surface: real Xvfb displays with openbox, and a desktop environment
on one of them with the practice files in its Documents folder."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

SEED = Path(__file__).resolve().parents[2] / "practice" / "desktop" / "seed"
NEEDED = ("Xvfb", "openbox", "xdotool", "xprop", "xclip", "dbus-daemon", "pcmanfm", "gnumeric", "mousepad")


def pytest_collection_modifyitems(items):
    here = str(Path(__file__).parent)
    missing = [tool for tool in NEEDED if shutil.which(tool) is None]
    if missing and any(str(item.fspath).startswith(here) for item in items):  # scripts/setup.sh installs them; say so rather than fail obscurely
        raise pytest.UsageError(f"desktop tests need {', '.join(missing)}: run scripts/setup.sh")


@pytest.fixture(scope="session")
def displays():
    """Two X displays (Xvfb + openbox) for the whole session."""
    from workers.envs.xdisplay import XServer, free_display

    servers = []
    try:
        for _ in range(2):
            servers.append(XServer(free_display(300 + 10 * len(servers))).start())
        yield [server.display for server in servers]
    finally:
        for server in servers:
            server.stop()


@pytest.fixture
def desktop(displays):
    """A desktop environment on the first display (a fresh session), closed after the test."""
    from workers.envs.desktop import DesktopEnvironment
    from workers.envs.xdisplay import DesktopSession
    from workers.secrets import SecretBox

    session = DesktopSession(displays[0], SEED).start()
    env = DesktopEnvironment(session, secrets=SecretBox(), width=1280, height=800)
    yield env
    asyncio.run(env.close())
