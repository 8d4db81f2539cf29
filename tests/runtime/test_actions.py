"""The UI-Venus-2 browser action schema (`workers.actions`) and coordinate mapping."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from workers import actions as A
from workers.actions import map_point, parse_browser_action

# One valid example of every action in the browser action space.
EVERY_ACTION = [
    ({"type": "Click", "point": [10, 20]}, A.Click),
    ({"type": "DoubleClick", "point": [0, 1000]}, A.DoubleClick),
    ({"type": "Hover", "point": [500, 500]}, A.Hover),
    ({"type": "SelectOption", "index": 2}, A.SelectOption),
    ({"type": "Drag", "start": [100, 100], "end": [900, 900]}, A.Drag),
    ({"type": "Scroll", "point": [500, 500], "direction": "down"}, A.Scroll),
    ({"type": "Type", "content": "hello {{credentials.acme.password}}"}, A.Type),
    ({"type": "Launch", "url": "https://example.com/path"}, A.Launch),
    ({"type": "GetUrl"}, A.GetUrl),
    ({"type": "TakeNote", "content": "order 42"}, A.TakeNote),
    ({"type": "LongPress", "point": [1, 2], "duration": 1.5}, A.LongPress),
    ({"type": "PressBack"}, A.PressBack),
    ({"type": "PressHome"}, A.PressHome),
    ({"type": "PressEnter"}, A.PressEnter),
    ({"type": "Hotkey", "keys": ["ctrl", "shift", "t"]}, A.Hotkey),
    ({"type": "Wait"}, A.Wait),
    ({"type": "CallUser", "content": "Which account?"}, A.CallUser),
    ({"type": "Finished", "content": "done"}, A.Finished),
]


def test_the_examples_cover_the_whole_action_union():
    union_members = set(A.BrowserAction.__origin__.__args__)
    assert {cls for _, cls in EVERY_ACTION} == union_members


@pytest.mark.parametrize(("data", "cls"), EVERY_ACTION, ids=[cls.__name__ for _, cls in EVERY_ACTION])
def test_every_browser_action_validates_from_a_dict_and_round_trips(data, cls):
    action = parse_browser_action(data)
    assert type(action) is cls
    assert parse_browser_action(action.model_dump(mode="json")) == action


def test_parsed_actions_keep_their_values():
    drag = parse_browser_action({"type": "Drag", "start": [100, 200], "end": [300, 400]})
    assert drag.start == (100, 200) and drag.end == (300, 400)
    assert parse_browser_action({"type": "Hotkey", "keys": ["ctrl", "c"]}).keys == ("ctrl", "c")
    assert parse_browser_action({"type": "Scroll", "point": [1, 2], "direction": "left"}).direction == "left"


def test_defaults_apply_when_optional_fields_are_omitted():
    assert parse_browser_action({"type": "LongPress", "point": [5, 5]}).duration == 20
    assert parse_browser_action({"type": "Finished"}).content == ""


def test_actions_are_immutable():
    click = parse_browser_action({"type": "Click", "point": [1, 2]})
    with pytest.raises(ValidationError):
        click.point = (3, 4)


def test_terminal_actions_are_the_ones_that_end_the_turn():
    assert isinstance(parse_browser_action({"type": "Finished"}), A.TERMINAL_ACTIONS)
    assert isinstance(parse_browser_action({"type": "CallUser", "content": "?"}), A.TERMINAL_ACTIONS)
    assert not isinstance(parse_browser_action({"type": "Click", "point": [1, 1]}), A.TERMINAL_ACTIONS)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "Click", "point": [1001, 10]},
        {"type": "Click", "point": [10, 1001]},
        {"type": "Click", "point": [-1, 10]},
        {"type": "Hover", "point": [10, -5]},
        {"type": "Drag", "start": [0, 0], "end": [1000, 1200]},
        {"type": "Drag", "start": [-3, 0], "end": [10, 10]},
        {"type": "Scroll", "point": [2000, 2000], "direction": "up"},
        {"type": "LongPress", "point": [1000, 1001]},
    ],
)
def test_coordinates_outside_0_to_1000_are_rejected(data):
    with pytest.raises(ValidationError):
        parse_browser_action(data)


def test_the_bounds_themselves_are_accepted():
    assert parse_browser_action({"type": "Click", "point": [0, 1000]}).point == (0, 1000)
    assert parse_browser_action({"type": "Click", "point": [1000, 0]}).point == (1000, 0)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "Click", "point": [1, 2, 3]},
        {"type": "Click", "point": [1]},
        {"type": "Click", "point": [1.5, 2]},
        {"type": "Click"},
    ],
)
def test_malformed_points_are_rejected(data):
    with pytest.raises(ValidationError):
        parse_browser_action(data)


@pytest.mark.parametrize("data", [{"type": "Tap", "point": [1, 2]}, {"type": "click", "point": [1, 2]}, {"point": [1, 2]}, {}])
def test_unknown_or_missing_action_types_are_rejected(data):
    with pytest.raises(ValidationError):
        parse_browser_action(data)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "Click", "point": [1, 2], "button": "right"},
        {"type": "PressEnter", "times": 2},
        {"type": "Type", "content": "x", "point": [1, 2]},
        {"type": "Finished", "content": "ok", "success": True},
    ],
)
def test_extra_fields_are_rejected(data):
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        parse_browser_action(data)


def test_hotkey_takes_one_to_three_keys():
    assert parse_browser_action({"type": "Hotkey", "keys": ["escape"]}).keys == ("escape",)
    with pytest.raises(ValidationError):
        parse_browser_action({"type": "Hotkey", "keys": ["ctrl", "alt", "shift", "t"]})
    with pytest.raises(ValidationError):
        parse_browser_action({"type": "Hotkey", "keys": []})


@pytest.mark.parametrize(
    "url", ["ftp://example.com/file", "javascript:alert(1)", "file:///etc/passwd", "example.com", "", "HTTP:/x"]
)
def test_launch_refuses_non_http_urls(url):
    with pytest.raises(ValidationError, match="http"):
        parse_browser_action({"type": "Launch", "url": url})


def test_launch_accepts_http_and_https():
    assert parse_browser_action({"type": "Launch", "url": "http://127.0.0.1:8000/x"}).url == "http://127.0.0.1:8000/x"
    assert parse_browser_action({"type": "Launch", "url": "https://example.com"}).url == "https://example.com"


def test_other_field_constraints():
    with pytest.raises(ValidationError):
        parse_browser_action({"type": "SelectOption", "index": -1})
    with pytest.raises(ValidationError):
        parse_browser_action({"type": "Scroll", "point": [1, 1], "direction": "sideways"})
    with pytest.raises(ValidationError):
        parse_browser_action({"type": "LongPress", "point": [1, 1], "duration": 0})
    with pytest.raises(ValidationError):
        parse_browser_action({"type": "LongPress", "point": [1, 1], "duration": 61})


# --- map_point -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("point", "size", "expected"),
    [
        # The browser viewport the executor uses.
        ((500, 500), (1280, 800), (640, 400)),
        ((250, 750), (1280, 800), (320, 600)),
        ((1, 1), (1280, 800), (1, 1)),  # round(1.28), round(0.8)
        ((999, 999), (1280, 800), (1279, 799)),
        # Full HD.
        ((500, 500), (1920, 1080), (960, 540)),
        ((333, 667), (1920, 1080), (639, 720)),
        ((100, 900), (1920, 1080), (192, 972)),
        # A downscaled screenshot (half of 1280×800).
        ((500, 500), (640, 400), (320, 200)),
        ((125, 875), (640, 400), (80, 350)),
    ],
)
def test_map_point_scales_normalised_coordinates_to_image_pixels(point, size, expected):
    width, height = size
    assert map_point(point, width=width, height=height) == expected


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080), (640, 400)])
def test_map_point_clamps_the_far_edge_inside_the_image(size):
    width, height = size
    assert map_point((1000, 1000), width=width, height=height) == (width - 1, height - 1)
    assert map_point((1000, 0), width=width, height=height) == (width - 1, 0)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080), (640, 400)])
def test_map_point_maps_zero_to_zero(size):
    width, height = size
    assert map_point((0, 0), width=width, height=height) == (0, 0)
    assert map_point((0, 1000), width=width, height=height) == (0, height - 1)


def test_map_point_results_are_always_inside_the_image():
    for width, height in [(1280, 800), (1920, 1080), (640, 400), (3, 2)]:
        for v in range(0, 1001, 7):
            x, y = map_point((v, 1000 - v), width=width, height=height)
            assert 0 <= x <= width - 1 and 0 <= y <= height - 1
            assert isinstance(x, int) and isinstance(y, int)


def test_map_point_honours_another_divisor():
    assert map_point((50, 50), width=1280, height=800, divisor=100) == (640, 400)
