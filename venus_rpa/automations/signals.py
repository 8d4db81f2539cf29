"""Signals of an automation's life. Listeners subscribe in their app's `ready()`, so
`automations` imports none of them.

`automation_archive_changed(sender=Automation, automation_id, archived)`: sent inside the
transaction that archived or restored the automation (the triggers app switches its schedules'
beat entries off or back on).
"""

from django.dispatch import Signal

automation_archive_changed = Signal()
