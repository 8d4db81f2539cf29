#!/usr/bin/env bash
# Install the real third-party applications used as test targets (practice/realapps: Trac,
# Roundup, …), each into its own virtualenv under .local/realapps/<app>/venv with pinned
# versions (from PyPI). Idempotent: a stamp of the pins skips pip when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python - <<'PY'
from practice.realapps import apps

for app in apps():
    print(f"==> {app.NAME}: {app.ensure_installed()}")
PY
