"""What every generator module returns and provides."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Generated:
    """A fresh challenge.

    ``solution`` stays on the server (verification and the test hook); ``images`` are PNG
    bytes served under ``/captcha/<id>/<name>.png``; ``view`` is the public template data
    (instruction text, sizes, start positions) and must never contain the answer.
    """

    solution: dict[str, Any]
    images: dict[str, bytes]
    view: dict[str, Any]


class Generator(Protocol):
    """The interface each ``generators/<type>.py`` module implements."""

    def generate(self, rng: random.Random) -> Generated:
        """Draw a new random challenge."""
        ...

    def verify(self, solution: dict[str, Any], answer: str) -> bool:
        """Whether the submitted ``captcha_answer`` solves the challenge."""
        ...

    def expected_answer(self, solution: dict[str, Any]) -> str:
        """A ``captcha_answer`` value that passes (used only by the test hook)."""
        ...
