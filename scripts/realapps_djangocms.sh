#!/usr/bin/env bash
# Install django CMS (practice/realapps/djangocms) into its own virtualenv under
# .local/realapps/djangocms/venv with pinned versions from PyPI, and seed its template database.
# Idempotent: a stamp of the pins skips pip when nothing changed. scripts/realapps.sh installs
# every real app (this one included); this script installs only django CMS.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python - <<'PY'
from practice.realapps.djangocms import app

venv = app.ensure_installed()
print(f"==> {app.NAME}: {venv} (seeded: {app.seeded_database(venv).name})")
PY
