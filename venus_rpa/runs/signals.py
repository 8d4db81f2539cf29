"""Signals of a run's life. Listeners subscribe here (in their app's `ready()`), so `runs` imports
none of them: outbound callbacks (`triggers`) and pending reviews (`reviews`) react to a run's
end without `runs` knowing they exist.

`run_finished(sender=Run, run_id, status)`: sent once, inside the transaction that moved the run
to a terminal state; a listener that does work outside the database defers it with
`transaction.on_commit`.
"""

from django.dispatch import Signal

run_finished = Signal()
