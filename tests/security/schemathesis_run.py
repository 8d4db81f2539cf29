"""Run schemathesis against a live Venus RPA server and count what it finds.

`run()` is shared by tests/security/test_openapi_contract.py and benchmarks/security.py. It loads
the server's own OpenAPI document (/api/schema/), runs schemathesis' engine with every built-in
check (the CLI's `st run --checks all`), no stateful phase and a bounded number of examples per
operation, and returns:

    {"cases": int, "server_errors": int, "schema_violations": int, "valid_rejected": int,
     "by_check": {check name: unique failures}, "failures": [short descriptions],
     "samples": [curl commands that reproduce them], "errors": [...]}

`server_errors` are unique failures of `not_a_server_error`; `schema_violations` are the unique
failures of every other check but one (response schema, undocumented status codes and content
types, invalid requests accepted, ignored auth, unsupported methods...): anything that shows the
document is not the API. `valid_rejected` (positive_data_acceptance) is reported apart: a body
valid by the document may still break a rule that JSON Schema cannot state (cron syntax, an
automation that must exist, steps the runtime can execute), answered as a 400 naming the field.
Every request goes to `base_url`, which must be a loopback address.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

SERVER_ERROR_CHECK = "not_a_server_error"
# Generated "valid" bodies that the server refuses on rules JSON Schema cannot state (cron syntax,
# an automation slug that must exist, a step list the runtime can execute): counted apart.
VALID_REJECTED_CHECK = "positive_data_acceptance"


def _config(base_url: str, token: str, max_examples: int, seed: int):
    import schemathesis

    return schemathesis.Config.from_dict({
        "seed": seed,
        "base-url": base_url,
        "headers": {"Authorization": f"Bearer {token}"},
        "workers": 1,
        "request-timeout": 30,
        "generation": {"max-examples": max_examples, "database": "none"},
        # Stateful sequences would chain creates into runs that a worker might execute; the
        # per-operation phases (examples, coverage, fuzzing) exercise every documented input.
        "phases": {"stateful": {"enabled": False}},
    })


def _describe(failure: Any, check: str) -> str:
    title = getattr(failure, "title", type(failure).__name__)
    operation = getattr(failure, "operation", "")
    message = " ".join(str(getattr(failure, "message", "")).split())[:300]
    return f"[{check}] {operation}: {title}: {message}"


def run(base_url: str, token: str, max_examples: int = 20, *, seed: int = 9) -> dict[str, Any]:
    """Test every operation of the live server's document; see the module docstring for the result."""
    import schemathesis
    from schemathesis.engine import from_schema
    from schemathesis.engine.events import FatalError, NonFatalError, ScenarioFinished
    from schemathesis.engine.statistic import Statistic

    host = urlsplit(base_url).hostname or ""
    if not (host == "localhost" or host.startswith("127.") or host == "::1"):
        raise ValueError(f"schemathesis only runs against loopback servers, not {base_url!r}")
    config = _config(base_url, token, max_examples, seed)
    schema = schemathesis.openapi.from_url(f"{base_url.rstrip('/')}/api/schema/?format=json", config=config)
    statistic, errors = Statistic(), []
    for event in from_schema(schema).execute():
        if isinstance(event, ScenarioFinished):
            statistic.on_scenario_finished(event.recorder)
        elif isinstance(event, (NonFatalError, FatalError)):
            errors.append(" ".join(str(getattr(event, "info", None) or getattr(event, "value", event)).split())[:300])
    by_check = Counter(check for _, check in statistic.observed_failures.values())
    failures = sorted(_describe(failure, check) for failure, check in statistic.observed_failures.values())
    return {
        "cases": statistic.total_cases,
        "server_errors": by_check.get(SERVER_ERROR_CHECK, 0),
        "schema_violations": sum(n for check, n in by_check.items()
                                 if check not in (SERVER_ERROR_CHECK, VALID_REJECTED_CHECK)),
        "valid_rejected": by_check.get(VALID_REJECTED_CHECK, 0),
        "by_check": dict(sorted(by_check.items())),
        "failures": failures,
        "samples": sorted({(group.code_sample or "")[:400] for groups in statistic.failures.values()
                           for group in groups.values()}),
        "errors": errors,
    }


if __name__ == "__main__":
    # python -m tests.security.schemathesis_run http://127.0.0.1:8000 vrpa_… [max_examples]
    print(json.dumps(run(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 20), indent=2))
