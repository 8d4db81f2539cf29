"""The Celery application: queues `agent` (runs, browser-holding workers) and `default`."""

import os

from celery import Celery

from venus_rpa import broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "venus_rpa.settings")
broker.install()  # redis:// brokers: kombu's Redis transport, surviving a Redis restart under runs

app = Celery("venus_rpa")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

import venus_rpa.pools.worker_metrics  # noqa: F401  (the worker's Prometheus server, off by default)
