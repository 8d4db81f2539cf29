"""The worker's store of what sites taught about their text CAPTCHAs' letter case
(`SiteLetterCase`; the belief and its updates are workers/captcha/letter_case.py's).

Read once per run and site; each verdict's log-likelihoods are added under the row's lock (two
runs of one automation may answer at once: neither loses the other's), bounded as the runtime
bounds them.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import IntegrityError, transaction

from venus_rpa.automations.models import SiteLetterCase
from workers.captcha import letter_case

MAX_HOSTS = 200


def site_letter_case(*, automation_id: int, host: str) -> list | None:
    """The stored log-weights for `host`, or None when its verdicts never taught anything."""
    return SiteLetterCase.objects.filter(automation_id=automation_id, host=host[:253]).values_list(
        "weights", flat=True).first()


def site_letter_case_add(*, automation_id: int, host: str, loglik: list, accepted: bool,
                         fence: Callable[[], None] | None = None) -> bool:
    """Add a verdict's log-likelihoods to `host`'s belief (to the prior when it has none).
    `fence`: called first in the transaction (the run still this execution's: a superseded one
    writes nothing). An automation keeps at most MAX_HOSTS sites: a verdict from one more is not
    kept (a site on a wildcard domain cannot bury the others). Returns whether it was kept."""
    host = host[:253]
    for _ in range(2):  # a second time when another run created the row meanwhile
        try:
            with transaction.atomic():
                if fence is not None:
                    fence()
                row = SiteLetterCase.objects.select_for_update().filter(automation_id=automation_id, host=host).first()
                if row is None and SiteLetterCase.objects.filter(automation_id=automation_id).count() >= MAX_HOSTS:
                    return False
                weights = letter_case.bounded(letter_case.bounded(None if row is None else row.weights)
                                              + letter_case.bounded_loglik(loglik))
                fields = {"weights": weights.round(6).tolist(), "ignored": round(letter_case.ignored(weights), 4)}
                if row is None:
                    SiteLetterCase.objects.create(automation_id=automation_id, host=host, accepted=int(accepted),
                                                  refused=int(not accepted), **fields)
                else:
                    for name, value in fields.items():
                        setattr(row, name, value)
                    row.accepted += int(accepted)
                    row.refused += int(not accepted)
                    row.save()
                return True
        except IntegrityError:
            continue
    return False
