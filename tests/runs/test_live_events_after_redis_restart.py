"""The live event publisher keeps working after Redis restarts (its pooled connections died)."""

from __future__ import annotations

import asyncio
import subprocess
import time

import pytest
import redis
from channels_redis.core import RedisChannelLayer
from django.conf import settings

from tests.helpers.servers import free_port


def start_redis(port: int) -> None:
    subprocess.run(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--daemonize", "yes", "--logfile", f"/tmp/venus-events-redis-{port}.log"], check=True)
    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            return
        except redis.ConnectionError:
            time.sleep(0.05)


@pytest.fixture
def own_redis():
    port = free_port()
    start_redis(port)
    yield port
    try:
        redis.Redis(port=port).shutdown(nosave=True)
    except redis.ConnectionError:
        pass


def test_events_published_after_a_redis_restart_arrive(own_redis):
    host = {**settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0], "address": f"redis://127.0.0.1:{own_redis}/0"}
    layer = RedisChannelLayer(hosts=[host])

    async def scenario() -> list[int]:
        channel = await layer.new_channel()
        received = []
        for n in range(4):  # enough sends to use every pooled connection that died
            if n == 1:
                redis.Redis(port=own_redis).shutdown(nosave=True)
                time.sleep(0.5)
                start_redis(own_redis)
            await layer.group_add("run-1", channel)  # the group died with Redis's data
            await layer.group_send("run-1", {"type": "run.event", "n": n})
            received.append((await asyncio.wait_for(layer.receive(channel), 5))["n"])
        return received

    assert asyncio.run(scenario()) == [0, 1, 2, 3]
