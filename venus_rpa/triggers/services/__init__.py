"""Writes for the triggers app, split by sub-domain: schedules, webhooks, callbacks.

`from venus_rpa.triggers import services` gives the public services of all three.
"""

from venus_rpa.triggers.services.callbacks import (
    callback_delivery_attempt, callback_delivery_resend, callback_endpoint_create, callback_endpoint_delete,
    callback_endpoint_rotate_secret, callback_endpoint_update, callbacks_on_run_finished, callbacks_sweep,
)
from venus_rpa.triggers.services.schedules import (
    schedule_create, schedule_delete, schedule_fire, schedule_set_enabled, schedule_update,
)
from venus_rpa.triggers.services.webhooks import (
    webhook_answer, webhook_check, webhook_receive, webhook_test_send, webhook_trigger_create, webhook_trigger_delete,
    webhook_trigger_rotate_secret, webhook_trigger_update,
)

__all__ = [
    "callback_delivery_attempt", "callback_delivery_resend", "callback_endpoint_create", "callback_endpoint_delete",
    "callback_endpoint_rotate_secret", "callback_endpoint_update", "callbacks_on_run_finished", "callbacks_sweep",
    "schedule_create", "schedule_delete", "schedule_fire", "schedule_set_enabled", "schedule_update",
    "webhook_answer", "webhook_check", "webhook_receive", "webhook_test_send", "webhook_trigger_create", "webhook_trigger_delete", "webhook_trigger_rotate_secret",
    "webhook_trigger_update",
]
