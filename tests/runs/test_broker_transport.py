"""The broker transport (venus_rpa/broker.py) against the test Redis: Celery's connections use it,
and a channel of a connection that was closed fails as a lost connection, which Celery's
acknowledgement and reconnection handle, instead of with an AttributeError that ends the worker.
The whole path, a worker living through a Redis restart with runs under way, is
tests/faults/test_faults.py."""

from __future__ import annotations

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError


def test_celery_connects_through_the_transport_and_a_closed_connections_channel_fails_as_lost(settings):
    from venus_rpa import broker
    from venus_rpa.celery import app

    connection = app.connection_for_write()
    try:
        assert isinstance(connection.transport, broker.Transport)
        channel = connection.channel()
        channel.client.ping()  # a working channel on the test Redis
        assert connection.connection_errors and RedisConnectionError in connection.connection_errors
        # What Celery's reconnection leaves behind: the transport's connection details gone while
        # the channel is still used (to give unacknowledged messages back, to acknowledge one).
        connection.transport.client = None
        channel._pool = None
        with pytest.raises(RedisConnectionError, match="closed"):
            channel._connparams()
        with pytest.raises(connection.connection_errors):
            with channel.conn_or_acquire():
                pass
    finally:
        connection.transport.client = connection
        connection.release()


def test_the_broker_url_is_shown_as_it_was_given():
    from venus_rpa.celery import app

    with app.connection_for_write() as connection:
        assert connection.as_uri().startswith("redis://")  # what Flower's broker page and the logs read
