"""Checks on docker-compose.yml that need no Docker engine and no database.

They run Debian's docker-compose 1.29.2 (compose v1), which validates and normalises the file
offline. The binary is a hard requirement of this suite (CI installs it), so a missing binary
fails instead of skipping: a silently skipped check is how an invalid compose file ships.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml  # PyYAML: a dependency of drf-spectacular (requirements.txt)

REPO_ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = REPO_ROOT / "docker-compose.yml"

EXPECTED_SERVICES = {"postgres", "redis", "web", "worker", "worker-android", "worker-desktop", "worker-default", "beat",
                     "flower", "vllm"}
HISTORY_IMAGES = 2  # screenshots of earlier steps sent with each navigation call (protocol §5.1)

# Dummy values for the variables the compose file marks as required (${VAR:?...}).
REQUIRED_ENV = {
    "DJANGO_SECRET_KEY": "dummy-secret-key-for-config-check",
    "VENUS_CREDENTIAL_KEY": "ZHVtbXktZmVybmV0LWtleS0zMi1ieXRlcy1sb25nISE=",
    "FLOWER_BASIC_AUTH": "flower:dummy-password",
}


def _compose_binary() -> str:
    path = shutil.which("docker-compose")
    if path is None:
        pytest.fail(
            "docker-compose is not installed. Install Debian's compose v1 "
            "(apt-get install -y --no-install-recommends docker-compose); CI installs it."
        )
    return path


def _compose(*args: str, env_overrides: dict[str, str] | None = None, drop: tuple[str, ...] = ()):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    # Make the result independent of the caller's shell: no project name or file overrides.
    for name in ("COMPOSE_FILE", "COMPOSE_PROJECT_NAME", "COMPOSE_PATH_SEPARATOR"):
        env.pop(name, None)
    env.update(env_overrides or {})
    return subprocess.run(
        [_compose_binary(), "-f", str(COMPOSE_FILE), *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _resolved_config() -> dict:
    result = _compose("config", env_overrides=REQUIRED_ENV)
    assert result.returncode == 0, f"docker-compose config failed:\n{result.stderr}"
    return yaml.safe_load(result.stdout)


def _command_args(service: dict) -> list[str]:
    command = service.get("command", [])
    return shlex.split(command) if isinstance(command, str) else [str(arg) for arg in command]


def _flag_value(args: list[str], flag: str) -> str | None:
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def test_compose_file_is_valid():
    result = _compose("config", "-q", env_overrides=REQUIRED_ENV)
    assert result.returncode == 0, f"docker-compose config -q rejected the file:\n{result.stderr}"


def test_compose_has_all_services():
    result = _compose("config", "--services", env_overrides=REQUIRED_ENV)
    assert result.returncode == 0, result.stderr
    services = {line.strip() for line in result.stdout.splitlines() if line.strip()}
    assert services == EXPECTED_SERVICES


def test_compose_requires_secrets():
    for name in REQUIRED_ENV:
        others = {k: v for k, v in REQUIRED_ENV.items() if k != name}
        result = _compose("config", "-q", env_overrides=others, drop=(name,))
        assert result.returncode != 0, f"{name} should be required"
        assert name in result.stderr


def test_vllm_allows_history_plus_current_image():
    args = _command_args(_resolved_config()["services"]["vllm"])
    raw = _flag_value(args, "--limit-mm-per-prompt")
    assert raw is not None, f"vllm command lacks --limit-mm-per-prompt: {args}"
    if raw.lstrip().startswith("{"):
        limit = int(json.loads(raw)["image"])
    else:  # legacy form: image=N
        limit = int(dict(part.split("=", 1) for part in raw.split(","))["image"])
    assert limit >= HISTORY_IMAGES + 1


def test_vllm_serving_flags():
    config = _resolved_config()
    vllm = config["services"]["vllm"]
    args = _command_args(vllm)
    assert _flag_value(args, "--dtype") == "bfloat16"
    assert int(_flag_value(args, "--max-model-len")) >= 32768
    assert _flag_value(args, "--served-model-name") == config["services"]["worker"]["environment"]["VENUS_MODEL"]
    tag = vllm["image"].rsplit(":", 1)[1].lstrip("v")
    major, minor = (int(part) for part in tag.split(".")[:2])
    assert (major, minor) >= (0, 17), "UI-Venus-2 (qwen3_5) needs vLLM >= 0.17"


@pytest.mark.parametrize("name", ["worker", "vllm"])
def test_gpu_reservation(name):
    service = _resolved_config()["services"][name]
    devices = service["deploy"]["resources"]["reservations"]["devices"]
    assert any(d.get("driver") == "nvidia" and "gpu" in d.get("capabilities", []) for d in devices)


def test_workers_wait_for_migrations_and_share_media():
    services = _resolved_config()["services"]
    for name in ("worker", "worker-android", "worker-default", "beat"):
        assert services[name]["depends_on"]["web"]["condition"] == "service_healthy"
    for name in ("web", "worker", "worker-android"):
        assert services[name]["environment"]["VENUS_MEDIA_ROOT"] == "/app/.local/media"
        assert any(v.startswith("media:/app/.local/media") for v in services[name]["volumes"])
    assert services["worker"]["environment"]["VENUS_MODEL_URL"] == "http://vllm:8000/v1"


def test_the_android_worker_takes_android_runs_only_and_runs_its_own_adb_server():
    service = _resolved_config()["services"]["worker-android"]
    command = " ".join(service["command"])
    assert "adb start-server" in command and "-Q android " in command
    assert service["environment"]["VENUS_ADB_SERVERS"] == "127.0.0.1:5037"


def test_flower_needs_a_password_and_stays_on_loopback():
    flower = _resolved_config()["services"]["flower"]
    assert flower["environment"]["FLOWER_BASIC_AUTH"] == REQUIRED_ENV["FLOWER_BASIC_AUTH"]
    assert all(str(p.get("host_ip", p) if isinstance(p, dict) else p).startswith("127.0.0.1")
               for p in flower["ports"])
    # Flower gets the application's settings too (broker URL), not only its password.
    assert flower["environment"]["REDIS_URL"] == "redis://redis:6379/0"


def test_web_is_served_with_https_settings_and_without_debug():
    web = _resolved_config()["services"]["web"]["environment"]
    assert web["VENUS_HTTPS"] == "1"
    assert web["DJANGO_DEBUG"] == "false"


def test_redis_keeps_its_data_across_restarts():
    redis = _resolved_config()["services"]["redis"]
    assert _flag_value(_command_args(redis), "--appendonly") == "yes"
    assert any("redisdata" in str(v) and "/data" in str(v) for v in redis["volumes"])
    assert redis["restart"] == "unless-stopped"


def test_the_desktop_worker_runs_a_display_and_takes_only_desktop_runs():
    service = _resolved_config()["services"]["worker-desktop"]
    command = " ".join(service["command"])
    assert "workers.envs.xdisplay --display :99" in command and "register_display :99" in command
    assert "-Q desktop " in command
    assert service["depends_on"]["web"]["condition"] == "service_healthy"
