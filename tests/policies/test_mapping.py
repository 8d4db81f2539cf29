"""Model coordinates to executor pixels, per surface (`workers.actions.map_point_for`, reference §3)."""

from __future__ import annotations

import pytest

from workers.actions import map_point, map_point_for

SIZES = [(1280, 800), (1920, 1080), (1080, 2400), (640, 400), (3, 2)]
ALL_SURFACES = ["browser", "mobile", "desktop", "captcha", "grounding"]


@pytest.mark.parametrize(
    ("surface", "point", "size", "expected"),
    [
        # browser: round(v/1000·W), CSS viewport pixels
        ("browser", (500, 500), (1280, 800), (640, 400)),
        ("browser", (1, 1), (1280, 800), (1, 1)),  # round(1.28), round(0.8)
        ("browser", (333, 667), (1920, 1080), (639, 720)),
        ("browser", (999, 999), (1280, 800), (1279, 799)),
        # mobile: floor(v/1000·W), device pixels
        ("mobile", (500, 500), (1080, 2400), (540, 1200)),
        ("mobile", (1, 1), (1280, 800), (1, 0)),  # floor(1.28), floor(0.8)
        ("mobile", (333, 667), (1080, 2400), (359, 1600)),  # 359.64, 1600.8
        ("mobile", (999, 999), (1080, 2400), (1078, 2397)),
        # desktop: floor(v·W/999), monitor pixels
        ("desktop", (500, 500), (1920, 1080), (960, 540)),  # 960.96, 540.54
        ("desktop", (999, 999), (1920, 1080), (1919, 1079)),  # W and H themselves, clamped
        ("desktop", (250, 750), (1280, 800), (320, 600)),  # 320.32, 600.6
        # captcha: round(v·W/999)
        ("captcha", (500, 889), (1280, 800), (641, 712)),  # 640.64, 711.91
        ("captcha", (999, 0), (1080, 2400), (1079, 0)),
        # grounding: x/1000·W
        ("grounding", (676, 684), (1920, 1080), (1298, 739)),  # 1297.92, 738.72
        ("grounding", (500, 500), (1080, 2400), (540, 1200)),
    ],
)
def test_each_surface_maps_with_its_own_divisor_and_rounding(surface, point, size, expected):
    width, height = size
    assert map_point_for(surface, point, width=width, height=height) == expected


@pytest.mark.parametrize("size", SIZES)
def test_the_browser_rule_is_the_existing_map_point(size):
    width, height = size
    for v in range(0, 1001, 13):
        point = (v, 1000 - v)
        assert map_point_for("browser", point, width=width, height=height) == map_point(point, width=width, height=height)


def test_mapping_uses_executor_units_not_the_size_of_a_downscaled_screenshot():
    # A 1280×800 viewport sent to the model as a 640×400 image (to save tokens). The model's
    # coordinates are relative to the whole image, so the button at CSS (320, 200) comes back as
    # (250, 250) whatever the image size; mapping must use the viewport.
    viewport, image = (1280, 800), (640, 400)
    model_point = (250, 250)
    assert map_point_for("browser", model_point, width=viewport[0], height=viewport[1]) == (320, 200)
    # Mapping with the image size would click at half the distance from the corner.
    assert map_point_for("browser", model_point, width=image[0], height=image[1]) == (160, 100)


@pytest.mark.parametrize("surface", ALL_SURFACES)
@pytest.mark.parametrize("size", SIZES)
def test_mapped_points_always_lie_inside_the_screen(surface, size):
    width, height = size
    for v in range(0, 1001, 7):
        x, y = map_point_for(surface, (v, 1000 - v), width=width, height=height)
        assert 0 <= x <= width - 1 and 0 <= y <= height - 1
        assert isinstance(x, int) and isinstance(y, int)


@pytest.mark.parametrize("surface", ALL_SURFACES)
@pytest.mark.parametrize("size", SIZES)
def test_corners_map_to_the_first_and_last_pixels(surface, size):
    width, height = size
    assert map_point_for(surface, (0, 0), width=width, height=height) == (0, 0)
    assert map_point_for(surface, (1000, 1000), width=width, height=height) == (width - 1, height - 1)


def test_the_999_grid_reaches_the_last_pixel_where_the_1000_grid_stops_short():
    assert map_point_for("desktop", (999, 999), width=1920, height=1080) == (1919, 1079)
    assert map_point_for("mobile", (999, 999), width=1920, height=1080) == (1918, 1078)


def test_grounding_accepts_non_integer_points():
    assert map_point_for("grounding", (500.5, 0.4), width=1000, height=1000) == (500, 0)


def test_unknown_surfaces_and_empty_screens_are_refused():
    with pytest.raises(ValueError, match="unknown surface"):
        map_point_for("web", (1, 1), width=10, height=10)
    with pytest.raises(ValueError, match="positive"):
        map_point_for("mobile", (1, 1), width=0, height=10)
