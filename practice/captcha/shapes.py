"""Icon outlines as polygons: unit shapes scaled, rotated and placed on demand."""

from __future__ import annotations

import math
from collections.abc import Callable

Point = tuple[float, float]


def _circle(n: int = 40) -> list[Point]:
    return [(math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n)) for i in range(n)]


def _star() -> list[Point]:
    return [
        (math.cos(math.radians(-90 + 36 * i)) * r, math.sin(math.radians(-90 + 36 * i)) * r)
        for i, r in ((i, 1.0 if i % 2 == 0 else 0.42) for i in range(10))
    ]


def _heart() -> list[Point]:
    points = []
    for i in range(48):
        t = 2 * math.pi * i / 48
        x = 16 * math.sin(t) ** 3
        y = -(13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t))
        points.append((x, y))
    return points


def _regular(n: int, start_deg: float) -> list[Point]:
    return [
        (math.cos(math.radians(start_deg + 360 * i / n)), math.sin(math.radians(start_deg + 360 * i / n)))
        for i in range(n)
    ]


def _moon() -> list[Point]:
    """Crescent: the outer circle's left arc, then the inner circle's arc back."""
    ox, r_in = 0.45, 0.85
    x = (1 + ox * ox - r_in * r_in) / (2 * ox)  # intersection of the two circles
    y = math.sqrt(1 - x * x)
    a0 = math.atan2(y, x)
    b0 = math.atan2(y, x - ox)
    outer = [(math.cos(a), math.sin(a)) for a in _steps(a0, 2 * math.pi - a0, 30)]
    inner = [(ox + r_in * math.cos(b), r_in * math.sin(b)) for b in _steps(2 * math.pi - b0, b0, 24)]
    return outer + inner


def _steps(a: float, b: float, n: int) -> list[float]:
    return [a + (b - a) * i / (n - 1) for i in range(n)]


UNIT_SHAPES: dict[str, Callable[[], list[Point]]] = {
    "star": _star,
    "heart": _heart,
    "triangle": lambda: _regular(3, -90),
    "circle": _circle,
    "square": lambda: [(-1, -1), (1, -1), (1, 1), (-1, 1)],
    "diamond": lambda: [(0, -1), (0.7, 0), (0, 1), (-0.7, 0)],
    "arrow": lambda: [(-1, -0.3), (0.15, -0.3), (0.15, -0.8), (1, 0), (0.15, 0.8), (0.15, 0.3), (-1, 0.3)],
    "cross": lambda: [
        (-0.33, -1), (0.33, -1), (0.33, -0.33), (1, -0.33), (1, 0.33), (0.33, 0.33),
        (0.33, 1), (-0.33, 1), (-0.33, 0.33), (-1, 0.33), (-1, -0.33), (-0.33, -0.33),
    ],
    "hexagon": lambda: _regular(6, 0),
    "moon": _moon,
    "bolt": lambda: [(0.1, -1), (-0.7, 0.2), (-0.1, 0.2), (-0.35, 1), (0.7, -0.25), (0.1, -0.25), (0.45, -1)],
}
SHAPE_NAMES = tuple(UNIT_SHAPES)


def _normalised(points: list[Point]) -> list[Point]:
    """Centre the outline on its box and scale the longer side to span [-1, 1]."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    half = max(max(xs) - min(xs), max(ys) - min(ys)) / 2
    return [((x - cx) / half, (y - cy) / half) for x, y in points]


def polygon(name: str, cx: float, cy: float, size: float, angle_deg: float = 0.0) -> list[Point]:
    """The outline of ``name`` fitting a ``size`` square at (cx, cy), turned by ``angle_deg``."""
    a = math.radians(angle_deg)
    cos_a, sin_a = math.cos(a), math.sin(a)
    half = size / 2
    return [
        (cx + half * (x * cos_a - y * sin_a), cy + half * (x * sin_a + y * cos_a))
        for x, y in _normalised(UNIT_SHAPES[name]())
    ]


def bounds(points: list[Point]) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) of a polygon."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)
