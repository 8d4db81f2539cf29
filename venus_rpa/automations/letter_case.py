"""The worker's store of what sites taught about their text CAPTCHAs (`SiteLetterCase`): the
belief that a site ignores letter case (workers/captcha/letter_case.py) and the format of its
accepted answers (workers/captcha/answer_format.py).

Read once per run and site; each verdict is added under the row's lock (two runs of one
automation may answer at once: neither loses the other's), bounded as the runtime bounds it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import IntegrityError, transaction

from venus_rpa.automations.models import SiteLetterCase
from workers.captcha import answer_format, letter_case

MAX_HOSTS = 200


def site_letter_case(*, automation_id: int, host: str) -> dict | None:
    """What `host` taught ({"weights": log-weights, "format": counts}), or None when nothing."""
    row = SiteLetterCase.objects.filter(automation_id=automation_id, host=host[:253]).values(
        "weights", "answer_format").first()
    return None if row is None else {"weights": row["weights"], "format": row["answer_format"]}


def site_letter_case_add(*, automation_id: int, host: str, loglik: list | None, accepted: bool,
                         answer: str = "", applied: bool = False, kind: str | None = None,
                         fence: Callable[[], None] | None = None) -> bool:
    """Add a verdict to `host`'s row (created from nothing learned when it has none): `loglik`,
    the letter-case evidence (None: the answer's case was not learned, the belief stays), and
    `answer` (`applied`: read under the learned format; `kind`: read as "text" or "sum", None: a
    person's answer) for the answers' format.
    `fence`: called first in the transaction (the run still this execution's: a superseded one
    writes nothing). An automation keeps at most MAX_HOSTS sites: a verdict from one more is not
    kept (a site on a wildcard domain cannot bury the others), nor one that teaches nothing (no
    case evidence, the format unchanged). Returns whether it was kept."""
    host = host[:253]
    for _ in range(2):  # a second time when another run created the row meanwhile
        try:
            with transaction.atomic():
                if fence is not None:
                    fence()
                row = SiteLetterCase.objects.select_for_update().filter(automation_id=automation_id, host=host).first()
                if row is None and SiteLetterCase.objects.filter(automation_id=automation_id).count() >= MAX_HOSTS:
                    return False
                weights = letter_case.bounded(None if row is None else row.weights)
                if loglik is not None:
                    weights = letter_case.bounded(weights + letter_case.bounded_loglik(loglik))
                before = answer_format.bounded(None if row is None else row.answer_format)
                learned = answer_format.learn(before, str(answer)[:64], accepted, bool(applied),
                                              kind if kind in ("text", "sum") else None)
                if loglik is None and learned == before:  # a verdict that teaches nothing: nothing written
                    return False
                fields = {"weights": weights.round(6).tolist(), "ignored": round(letter_case.ignored(weights), 4),
                          "answer_format": learned}
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
