"""The Celery broker transport: kombu's Redis transport, whose channels fail as a lost connection
(not with an `AttributeError`) once their connection has been closed.

When Redis goes away while a worker has runs under way (their messages unacknowledged), Celery
closes the broken connection and reconnects. kombu then drops the closed transport's connection
details while its Redis channels are still used: the close gives the unacknowledged messages back
through that channel, and each run that ends acknowledges its message through it. Both build a
Redis client from the missing details, and the `AttributeError` this raises is not among the
errors Celery expects of a lost connection, so the worker exits ("Unrecoverable error") and its
runs wait for the stale-heartbeat sweep. Here such a channel raises Redis's `ConnectionError`:
Celery logs it as for any lost connection and goes on; the messages left unacknowledged come back
after the visibility timeout, where a redelivered message of a run under way or ended is a no-op
(`run_claim`), and a queued run whose message Redis lost is sent again by the runs sweep
(docs/reliability.md). `tests/faults/test_faults.py` restarts Redis under a worker with runs
under way.

`install()` (called where the Celery app is made, venus_rpa/celery.py) makes it the transport of
redis:// and rediss:// URLs in kombu's table of transports, so the broker URL, and what Flower
and the logs show of it, stay as they are.
"""

from __future__ import annotations

from typing import Any

import kombu.transport
from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection.client is None:
            raise RedisConnectionError("this broker connection was closed; its channel cannot reach Redis")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel


def install() -> None:
    """redis:// and rediss:// brokers use `Transport` (once per process; idempotent)."""
    for scheme in ("redis", "rediss"):
        kombu.transport.TRANSPORT_ALIASES[scheme] = f"{__name__}:Transport"
        kombu.transport._transport_cache.pop(scheme, None)  # noqa: SLF001 -- resolved afresh from the table
