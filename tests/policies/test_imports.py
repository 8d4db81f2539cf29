"""The policy layer belongs to the agent runtime, which must not import Django."""

from __future__ import annotations

import subprocess
import sys


def test_the_policy_modules_import_without_django():
    code = (
        "import sys\n"
        "import workers.actions, workers.actions_mobile, workers.actions_desktop, workers.actions_captcha\n"
        "import workers.policies.parser, workers.policies.prompts, workers.policies.messages\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith(('django.', 'rest_framework')))\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
