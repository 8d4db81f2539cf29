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
under way. Set as `CELERY_BROKER_TRANSPORT` for redis:// and rediss:// brokers.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection.client is None:
            raise RedisConnectionError("this broker connection was closed; its channel cannot reach Redis")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel
