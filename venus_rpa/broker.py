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
and the logs show of it, stay as they are. It also puts `LostAcknowledgement` on the loggers that
acknowledge messages: kombu logs an acknowledgement lost with its connection at CRITICAL with a
traceback, which after a Redis restart wakes whoever watches for CRITICAL for something that heals
itself; it is logged as a WARNING that says what happens next. Any other failure to acknowledge
stays CRITICAL.
"""

from __future__ import annotations

import logging
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


# Where Celery acknowledges and rejects messages (kombu's `Message.ack_log_error` and
# `reject_log_error` log through the logger they are given).
ACKNOWLEDGING_LOGGERS = ("celery.worker.request", "celery.worker.consumer.consumer")
LOST_CONNECTION_ERRORS = (RedisConnectionError, ConnectionError, BrokenPipeError)


class LostAcknowledgement(logging.Filter):
    """kombu's "Couldn't ack/reject <tag>" for a lost broker connection, as a WARNING without the
    traceback, saying that the message comes back after the visibility timeout. Other failures
    pass unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.msg if isinstance(record.msg, str) else ""
        if record.levelno != logging.CRITICAL or not text.startswith(("Couldn't ack", "Couldn't reject")):
            return True
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, LOST_CONNECTION_ERRORS):
            return True
        tag = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
        verb = "acknowledge" if text.startswith("Couldn't ack") else "reject"
        record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        record.msg = ("Couldn't %s message %r: the broker connection was lost (%s). Redis gives it back "
                      "after the visibility timeout; a run already under way or ended ignores it")
        record.args = (verb, tag, error)
        record.exc_info, record.exc_text = None, None
        return True


def install() -> None:
    """redis:// and rediss:// brokers use `Transport`, and lost acknowledgements are warnings (once per
    process; idempotent)."""
    for scheme in ("redis", "rediss"):
        kombu.transport.TRANSPORT_ALIASES[scheme] = f"{__name__}:Transport"
        kombu.transport._transport_cache.pop(scheme, None)  # noqa: SLF001 -- resolved afresh from the table
    for name in ACKNOWLEDGING_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, LostAcknowledgement) for f in logger.filters):
            logger.addFilter(LostAcknowledgement())
