"""The export filter: which runs a trajectory export holds."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

Verdict = Literal["passed", "failed"]
Surface = Literal["web", "android", "desktop"]


class ExportFilter(BaseModel):
    """Runs of one workspace, finished, optionally of one automation (slug), one surface, one
    verdict (`passed`: success criteria met; `failed`: not met or the run did not succeed) and
    created within [date_from, date_to] (dates, inclusive, server time zone)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    automation: str | None = None
    verdict: Verdict | None = None
    surface: Surface | None = None
    date_from: date | None = None
    date_to: date | None = None

    @model_validator(mode="after")
    def _dates_in_order(self) -> ExportFilter:
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise ValueError("date_from is after date_to")
        return self

    def as_json(self) -> dict:
        return self.model_dump(mode="json")
