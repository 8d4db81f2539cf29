"""Command line entry point: ``python -m practice --host 127.0.0.1 --port 8001``."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from types import FrameType


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the host/port options."""
    parser = argparse.ArgumentParser(
        prog="python -m practice", description="Run the Venus RPA practice site."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8001, help="port to bind (default 8001)")
    return parser.parse_args(argv)


def _stop(signum: int, frame: FrameType | None) -> None:
    """Turn SIGTERM into a normal exit so serve_forever unwinds and the socket closes."""
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> int:
    """Serve the practice site with a threaded WSGI server until interrupted."""
    args = parse_args(argv)
    # Force (not setdefault): the caller's environment may name the main project's settings.
    os.environ["DJANGO_SETTINGS_MODULE"] = "practice.settings"

    from django.core.servers.basehttp import run
    from django.core.wsgi import get_wsgi_application

    handler = get_wsgi_application()
    signal.signal(signal.SIGTERM, _stop)

    def announce(port: int) -> None:
        print(f"practice site on http://{args.host}:{port}", flush=True)

    try:
        # threading=True: automations, tests and the demo may hit the site concurrently.
        run(args.host, args.port, handler, ipv6=":" in args.host, threading=True, on_bind=announce)
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"practice site could not start: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
