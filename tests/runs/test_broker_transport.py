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


def test_an_acknowledgement_lost_with_the_connection_is_a_warning_and_other_failures_stay_critical(caplog):
    """Celery acknowledges through kombu's `ack_log_error`, which logs a failure at CRITICAL; after a
    Redis restart that is expected and heals itself (the message comes back), so it is a WARNING
    that says so, without a traceback. An acknowledgement failing for another reason stays CRITICAL."""
    import logging

    from kombu import Message

    from venus_rpa.celery import app

    request_logger = logging.getLogger("celery.worker.request")
    connection = app.connection_for_write()
    try:
        channel = connection.channel()
        message = Message(body=b"{}", delivery_tag="tag-7", channel=channel)
        connection.transport.client = None  # the connection closed under the message, as in a restart
        channel._pool = None
        with caplog.at_level(logging.DEBUG, logger="celery.worker.request"):
            message.ack_log_error(request_logger, connection.connection_errors)
        [record] = [r for r in caplog.records if r.name == "celery.worker.request"]
        assert record.levelno == logging.WARNING and record.exc_info is None
        text = record.getMessage()
        assert "Couldn't acknowledge message 'tag-7'" in text and "visibility timeout" in text
        assert "closed" in text  # the connection error's own words
    finally:
        connection.transport.client = connection
        connection.release()

    caplog.clear()

    class Refusing:
        no_ack_consumers = None

        def basic_ack(self, delivery_tag, multiple=False):
            raise ValueError("the broker refused the tag")

    odd = Message(body=b"{}", delivery_tag="tag-8", channel=Refusing())
    with caplog.at_level(logging.DEBUG, logger="celery.worker.request"):
        odd.ack_log_error(request_logger, (ValueError,))
    [record] = [r for r in caplog.records if r.name == "celery.worker.request"]
    assert record.levelno == logging.CRITICAL and record.getMessage().startswith("Couldn't ack 'tag-8'")
