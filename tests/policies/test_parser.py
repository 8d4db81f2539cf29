"""Reading UI-Venus-2 answers (`workers.policies.parser`): thought, action block, safe parsing."""

from __future__ import annotations

import pytest

from workers import actions as B
from workers import actions_captcha as C
from workers import actions_desktop as D
from workers import actions_mobile as M
from workers.actions import action_space
from workers.policies.parser import ParseError, format_action, parse_answer, parse_grounding

# One example of every action of every surface: (surface, action text, expected action).
EXAMPLES = [
    ("browser", "Click(point=(10, 20))", B.Click(point=(10, 20))),
    ("browser", "DoubleClick(point=[0, 1000])", B.DoubleClick(point=(0, 1000))),
    ("browser", "Hover(point=(500, 500))", B.Hover(point=(500, 500))),
    ("browser", "SelectOption(index=2)", B.SelectOption(index=2)),
    ("browser", "Drag(start=(100, 100), end=(900, 900))", B.Drag(start=(100, 100), end=(900, 900))),
    ("browser", "Scroll(point=(500, 500), direction='down')", B.Scroll(point=(500, 500), direction="down")),
    ("browser", "Type(content='hello')", B.Type(content="hello")),
    ("browser", "Launch(url='https://example.com/a?b=1')", B.Launch(url="https://example.com/a?b=1")),
    ("browser", "GetUrl()", B.GetUrl()),
    ("browser", "TakeNote(content='order 42')", B.TakeNote(content="order 42")),
    ("browser", "LongPress(point=(1, 2), duration=1.5)", B.LongPress(point=(1, 2), duration=1.5)),
    ("browser", "PressBack()", B.PressBack()),
    ("browser", "PressHome()", B.PressHome()),
    ("browser", "PressEnter()", B.PressEnter()),
    ("browser", "Hotkey(keys=('ctrl', 'c'))", B.Hotkey(keys=("ctrl", "c"))),
    ("browser", "Wait()", B.Wait()),
    ("browser", "CallUser(content='Which account?')", B.CallUser(content="Which account?")),
    ("browser", "Finished(content='done')", B.Finished(content="done")),
    ("mobile", "Click(point=(412, 318))", M.Click(point=(412, 318))),
    ("mobile", "DoubleClick(point=(5, 6))", M.DoubleClick(point=(5, 6))),
    ("mobile", "LongPress(point=(7, 8))", M.LongPress(point=(7, 8))),
    ("mobile", "Drag(start=(100, 500), end=(900, 500))", M.Drag(start=(100, 500), end=(900, 500))),
    ("mobile", "Swipe(start=(500, 800), end=(500, 200))", M.Swipe(start=(500, 800), end=(500, 200))),
    ("mobile", "Type(content='milk')", M.Type(content="milk")),
    ("mobile", "LaunchApp(app='微信')", M.LaunchApp(app="微信")),
    ("mobile", "Wait()", M.Wait()),
    ("mobile", "PressBack()", M.PressBack()),
    ("mobile", "PressHome()", M.PressHome()),
    ("mobile", "PressEnter()", M.PressEnter()),
    ("mobile", "PressRecent()", M.PressRecent()),
    ("mobile", "GetScreenshot()", M.GetScreenshot()),
    ("mobile", "CallUser(content='Which Anna?')", M.CallUser(content="Which Anna?")),
    ("mobile", "Answer(content='42 °C')", M.Answer(content="42 °C")),
    ("mobile", "Finished(content='sent')", M.Finished(content="sent")),
    ("desktop", "Click(box=(100, 200))", D.Click(box=(100, 200))),
    ("desktop", "DoubleClick(box=(1, 2))", D.DoubleClick(box=(1, 2))),
    ("desktop", "TripleClick(box=(3, 4))", D.TripleClick(box=(3, 4))),
    ("desktop", "RightClick(box=(5, 6))", D.RightClick(box=(5, 6))),
    ("desktop", "MiddleClick(box=(7, 8))", D.MiddleClick(box=(7, 8))),
    ("desktop", "Hover(box=(9, 10))", D.Hover(box=(9, 10))),
    ("desktop", "Drag(end=(800, 600), start=(100, 100))", D.Drag(end=(800, 600), start=(100, 100))),
    ("desktop", "Swipe(amount=-5, axis='vertical')", D.Swipe(amount=-5, axis="vertical")),
    ("desktop", "Type(content='ls -la\\n')", D.Type(content="ls -la\n")),
    ("desktop", "Hotkey(keys=['ctrl', 's'], repeat=2)", D.Hotkey(keys=("ctrl", "s"), repeat=2)),
    ("desktop", "KeyDown(keys=['shift'])", D.KeyDown(keys=("shift",))),
    ("desktop", "KeyUp(keys=['shift'])", D.KeyUp(keys=("shift",))),
    ("desktop", "MouseDown(box=(10, 10))", D.MouseDown(box=(10, 10))),
    ("desktop", "MouseUp(box=(20, 20))", D.MouseUp(box=(20, 20))),
    (
        "desktop",
        "Sequence(actions=[Click(box=(200, 40)), Type(content='report.txt')])",
        D.Sequence(actions=(D.Click(box=(200, 40)), D.Type(content="report.txt"))),
    ),
    ("desktop", "Wait()", D.Wait()),
    ("desktop", "CallUser(content='The file does not exist.')", D.CallUser(content="The file does not exist.")),
    ("desktop", "Finished(content='saved')", D.Finished(content="saved")),
    ("captcha", "Click(box=(500, 889))", C.Click(box=(500, 889))),
    ("captcha", "Drag(start=(120, 600), end=(610, 600))", C.Drag(start=(120, 600), end=(610, 600))),
    ("captcha", "Type(content='k7mq')", C.Type(content="k7mq")),
    ("captcha", "LongPress(box=(500, 700))", C.LongPress(box=(500, 700))),
]
IDS = [f"{surface}-{text.split('(')[0]}" for surface, text, _ in EXAMPLES]
WITH_COORDINATES = [example for example in EXAMPLES if "point=" in example[1] or "box=" in example[1]]


def answer(action_text: str, thought: str = "Looking at the screen.") -> str:
    """A model answer in the usual shape: no opening <think> (the template opened it)."""
    return f"{thought}</think>\n<action>{action_text}</action>"


def only_action(text: str, surface: str):
    parsed = parse_answer(answer(text), surface=surface)
    assert len(parsed.actions) == 1
    return parsed.actions[0]


def test_the_examples_cover_every_action_of_every_surface():
    for surface in ("browser", "mobile", "desktop", "captcha"):
        covered = {type(expected) for s, _, expected in EXAMPLES if s == surface}
        assert covered == set(action_space(surface).classes.values()), surface


@pytest.mark.parametrize(("surface", "text", "expected"), EXAMPLES, ids=IDS)
def test_every_action_of_every_surface_parses(surface, text, expected):
    assert only_action(text, surface) == expected


@pytest.mark.parametrize(("surface", "text", "expected"), WITH_COORDINATES, ids=[f"{s}-{t}" for s, t, _ in WITH_COORDINATES])
def test_point_and_box_are_aliases_on_every_surface(surface, text, expected):
    swapped = text.replace("point=", "\0").replace("box=", "point=").replace("\0", "box=")
    assert only_action(swapped, surface) == expected


@pytest.mark.parametrize(("surface", "text", "expected"), EXAMPLES, ids=IDS)
def test_format_action_writes_text_that_parses_back_to_the_same_action(surface, text, expected):
    assert only_action(format_action(expected), surface) == expected


def test_format_action_omits_defaults_and_writes_keys_as_lists():
    assert format_action(D.Click()) == "Click()"
    assert format_action(D.Hotkey(keys=("ctrl", "s"))) == "Hotkey(keys=['ctrl', 's'])"
    assert format_action(M.Click(point=(1, 2))) == "Click(point=(1, 2))"


def test_the_surface_decides_which_class_an_action_name_means():
    assert type(only_action("Click(point=(1, 2))", "browser")) is B.Click
    assert type(only_action("Click(point=(1, 2))", "mobile")) is M.Click
    assert type(only_action("Click(box=(1, 2))", "desktop")) is D.Click
    assert type(only_action("Click(box=(1, 2))", "captcha")) is C.Click


def test_optional_desktop_coordinates_may_be_left_out():
    assert only_action("Click()", "desktop") == D.Click(box=None)
    assert only_action("MouseUp()", "desktop") == D.MouseUp()
    drag = only_action("Drag(end=(5, 6))", "desktop")
    assert drag.start is None and drag.end == (5, 6)
    assert only_action("Swipe(amount=3)", "desktop").axis == "vertical"


def test_coordinates_may_be_lists_or_tuples_and_floats_are_rounded():
    assert only_action("Click(point=[412.6, 318.2])", "browser").point == (413, 318)
    assert only_action("Click(box=(0.4, 999.6))", "desktop").box == (0, 1000)
    assert only_action("Drag(start=[1, 2], end=(3.7, 4))", "mobile") == M.Drag(start=(1, 2), end=(4, 4))


def test_a_four_number_box_is_read_as_its_centre():
    assert only_action("Click(box=(100, 200, 300, 400))", "captcha").box == (200, 300)


def test_negative_numbers_are_literals():
    assert only_action("Swipe(amount=-4096, axis='horizontal')", "desktop").amount == -4096
    assert only_action("Swipe(amount=+12)", "desktop").amount == 12


# --- thought and action block ---------------------------------------------------------------


def test_thought_is_the_text_before_the_first_closing_think_tag():
    parsed = parse_answer("The form is open.\n</think>\n<action>Click(point=(412, 318))</action>", surface="browser")
    assert parsed.thought == "The form is open."
    assert parsed.action_text == "Click(point=(412, 318))"
    assert parsed.actions == [B.Click(point=(412, 318))]


def test_an_opening_think_tag_is_stripped_when_present():
    parsed = parse_answer("<think>\nThe form is open.\n</think>\n<action>Wait()</action>", surface="browser")
    assert parsed.thought == "The form is open."


def test_reasoning_content_supplies_the_thought_when_the_server_split_it_out():
    parsed = parse_answer("\n\n<action>PressBack()</action>", "Wrong page; go back.", surface="mobile")
    assert parsed.thought == "Wrong page; go back."
    assert parsed.actions == [M.PressBack()]


def test_reasoning_content_and_a_leftover_closing_tag_in_content_are_both_kept():
    parsed = parse_answer("</think>\n<action>Wait()</action>", "<think>Loading.</think>", surface="mobile")
    assert parsed.thought == "Loading."


def test_an_answer_with_no_think_at_all_has_the_text_before_the_action_as_thought():
    parsed = parse_answer("I will wait.\n<action>Wait()</action>", surface="desktop")
    assert parsed.thought == "I will wait."
    assert parse_answer("<action>Wait()</action>", surface="desktop").thought == ""


def test_a_bare_call_without_action_tags_is_accepted():
    assert parse_answer("Click(box=(5, 5))", surface="desktop").actions == [D.Click(box=(5, 5))]
    parsed = parse_answer("Done here.</think>\nFinished(content='ok')", surface="desktop")
    assert parsed.thought == "Done here." and parsed.actions == [D.Finished(content="ok")]


def test_canonical_form_rebuilds_think_and_action_and_raw_keeps_the_content():
    content = "Type the city.</think>\n\n <action> Type(content='Paris') </action>\n"
    parsed = parse_answer(content, surface="browser")
    assert parsed.canonical() == "<think>Type the city.</think>\n<action>Type(content='Paris')</action>"
    assert parsed.raw == content


def test_an_action_wrapped_in_backticks_is_accepted():
    assert parse_answer("<action>`Wait()`</action>", surface="mobile").actions == [M.Wait()]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("I am not sure what to do.", "No <action>"),
        ("", "No <action>"),
        ("Thinking.</think>", "No <action>"),
        ("<action>Wait()</action> and <action>PressBack()</action>", "Found 2 <action> blocks"),
        ("<action>Wait()", "not closed"),
        ("<action>  </action>", "empty"),
        ("<action>please click the login button</action>", "not a valid call"),
        ("<action>Click(point=(1, 2)</action>", "not a valid call"),
        ("<action>Type(content='unbalanced)</action>", "not a valid call"),
        ("<action>12</action>", "Expected an action call"),
        ("<action>Type(content='a\x00b')</action>", "valid call|cannot be read"),
    ],
)
def test_unusable_answers_raise_a_parse_error_fit_for_the_model(content, message):
    with pytest.raises(ParseError, match=message) as caught:
        parse_answer(content, surface="mobile")
    assert "Traceback" not in caught.value.message
    assert caught.value.message == str(caught.value)


def test_an_answer_cut_off_by_the_length_limit_is_a_failure_even_with_an_action():
    with pytest.raises(ParseError, match="cut off"):
        parse_answer(answer("Wait()"), surface="mobile", finish_reason="length")
    assert parse_answer(answer("Wait()"), surface="mobile", finish_reason="stop").actions == [M.Wait()]


def test_the_error_example_uses_the_surfaces_coordinate_name():
    with pytest.raises(ParseError, match=r"Click\(box="):
        parse_answer("nothing", surface="desktop")
    with pytest.raises(ParseError, match=r"Click\(point="):
        parse_answer("nothing", surface="browser")


# --- several actions --------------------------------------------------------------------------


def test_two_captcha_blocks_are_refused_with_a_hint_to_use_one():
    with pytest.raises(ParseError, match="comma-separated inside one block"):
        parse_answer("<action>Click(box=(1, 1))</action><action>Click(box=(2, 2))</action>", surface="captcha")


def test_a_captcha_block_holds_the_whole_sequence_in_order():
    parsed = parse_answer(answer("Click(box=(500,889)),Type(content='6')"), surface="captcha")
    assert parsed.actions == [C.Click(box=(500, 889)), C.Type(content="6")]
    parsed = parse_answer(answer("Click(box=(1, 1)), Click(box=(2, 2)), Click(box=(3, 3)),"), surface="captcha")
    assert [a.box for a in parsed.actions] == [(1, 1), (2, 2), (3, 3)]


@pytest.mark.parametrize("surface", ["browser", "mobile"])
def test_browser_and_mobile_accept_comma_separated_lists(surface):
    parsed = parse_answer(answer("Click(point=(10, 10)), Type(content='x'), PressEnter()"), surface=surface)
    assert [a.type for a in parsed.actions] == ["Click", "Type", "PressEnter"]


def test_desktop_rejects_a_comma_list_and_points_to_sequence():
    with pytest.raises(ParseError, match="Sequence"):
        parse_answer(answer("Click(box=(1, 1)), Wait()"), surface="desktop")


def test_a_list_element_that_is_not_a_call_is_rejected():
    with pytest.raises(ParseError, match="Expected an action call"):
        parse_answer(answer("Click(box=(1, 1)), 5"), surface="captcha")


# --- desktop Sequence -----------------------------------------------------------------------


def test_sequence_children_are_typed_desktop_actions():
    text = "Sequence(actions=[TripleClick(box=(300, 200)), Type(content='new name\\n'), Hotkey(keys=['ctrl', 's']), Finished(content='renamed')])"
    sequence = only_action(text, "desktop")
    assert [type(child) for child in sequence.actions] == [D.TripleClick, D.Type, D.Hotkey, D.Finished]
    assert sequence.actions[1].content == "new name\n"


def test_sequence_accepts_a_tuple_and_point_aliases_inside():
    sequence = only_action("Sequence(actions=(Click(point=(1, 2)), Wait()))", "desktop")
    assert sequence.actions == (D.Click(box=(1, 2)), D.Wait())


def test_sequence_length_bounds_are_2_and_32():
    waits = lambda n: "Sequence(actions=[" + ", ".join(["Wait()"] * n) + "])"  # noqa: E731
    assert len(only_action(waits(2), "desktop").actions) == 2
    assert len(only_action(waits(32), "desktop").actions) == 32
    for n in (0, 1, 33):
        with pytest.raises(ParseError, match="Invalid Sequence: 'actions'"):
            only_action(waits(n), "desktop")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Sequence(actions=[Sequence(actions=[Wait(), Wait()]), Wait()])", "cannot contain another Sequence"),
        ("Sequence(actions=[Finished(content='x'), Click()])", "Finished may only be the last"),
        ("Sequence(actions=[CallUser(content='?'), Wait()])", "CallUser may only be the last"),
        ("Sequence(actions=Click())", "takes a list of actions"),
        ("Sequence(actions=[Click(), (1, 2)])", "Expected an action call"),
        ("Sequence(actions=[Click(), Scroll(point=(1, 1), direction='up')])", "Unknown action 'Scroll'"),
        ("Click(box=Wait())", "calls nest only in Sequence"),
    ],
)
def test_invalid_sequences_are_rejected(text, message):
    with pytest.raises(ParseError, match=message):
        only_action(text, "desktop")


def test_a_sequence_may_end_with_call_user():
    sequence = only_action("Sequence(actions=[Click(), CallUser(content='Need the code')])", "desktop")
    assert isinstance(sequence.actions[-1], B.TERMINAL_ACTIONS)


def test_sequence_exists_only_on_desktop():
    with pytest.raises(ParseError, match="Unknown action 'Sequence'"):
        only_action("Sequence(actions=[Wait(), Wait()])", "mobile")


# --- coordinates, names, limits ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("surface", "text"),
    [
        ("browser", "Click(point=(1001, 5))"),
        ("browser", "Click(point=(5, -1))"),
        ("mobile", "Click(point=(-0.4, 3))"),
        ("mobile", "Swipe(start=(500, 800), end=(500, 1200))"),
        ("desktop", "Hover(box=(1000.5, 10))"),
        ("desktop", "Drag(end=(10, 10), start=(2000, 0))"),
        ("captcha", "Click(box=(500, 1e999))"),
    ],
)
def test_out_of_range_coordinates_are_rejected(surface, text):
    with pytest.raises(ParseError, match="outside the screenshot"):
        only_action(text, surface)


def test_the_edges_of_the_range_are_accepted_on_every_surface():
    assert only_action("Click(point=(0, 1000))", "mobile").point == (0, 1000)
    assert only_action("Click(box=(1000, 0))", "desktop").box == (1000, 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Click(point=(1, 2, 3))", "expected a point"),
        ("Click(point=(1,))", "expected a point"),
        ("Click(point='500, 300')", "expected a point"),
        ("Click(point=(True, 3))", "expected a point"),
        ("Click(point=None)", "Invalid Click"),
        ("Click()", "'point' is required"),
        ("Click(point=(1, 2), button='right')", "Click has no argument 'button' \\(its arguments are point\\)"),
        ("PressEnter(times=2)", "it takes no arguments"),
        ("Click(point=(1, 2), box=(3, 4))", "only once"),
        ("Click(point=(1, 2), point=(3, 4))", "given twice"),
        ("Click((1, 2))", "keyword arguments only"),
        ("Click(**{'point': (1, 2)})", "unpacking is not allowed"),
        ("Click(type='Click', point=(1, 2))", "'type' is not an argument"),
        ("Tap(point=(1, 2))", "Unknown action 'Tap'. Available actions: Click, "),
        ("click(point=(1, 2))", "Unknown action 'click'"),
        ("LaunchApp(app='Maps')", "Unknown action 'LaunchApp'"),
    ],
)
def test_malformed_calls_are_rejected_with_a_readable_reason(text, message):
    with pytest.raises(ParseError, match=message):
        only_action(text, "browser")


@pytest.mark.parametrize(
    "text",
    [
        "Click(point=__import__('os'))",
        "Click(point=(1+2, 3))",
        "Click(point=(-x, 3))",
        "Click(point=x)",
        "Click(point=os.path)",
        "os.system('ls')",
        "__import__('os').system('ls')",
        "Type(content=open('/etc/passwd').read())",
        "Type(content=f'{secret}')",
        "Type(content='a' + 'b')",
        "Type(content='x' * 3)",
        "Type(content='x'.upper())",
        "Click(point=(*pts,))",
        "Click(point=[i for i in (1, 2)])",
        "Click(point={'x': 1, 'y': 2})",
        "Click(point=(1, 2))[0]",
        "Click(point=(1, 2)) or Wait()",
        "(lambda: Wait())()",
        "Click(point=(1, 2) if True else (3, 4))",
        "Type(content=b'bytes')",
        "Click(point=(1j, 2))",
        "Click(point=(-True, 2))",
        "Type(content=...)",
        "Wait(); import os",
    ],
)
def test_names_attributes_operators_and_other_expressions_are_rejected(text):
    with pytest.raises(ParseError):
        only_action(text, "browser")


@pytest.mark.parametrize(
    ("surface", "text", "message"),
    [
        ("desktop", "Swipe(amount=5000)", "'amount': Input should be less than or equal to 4096"),
        ("desktop", "Swipe(amount=-4097)", "greater than or equal to -4096"),
        ("desktop", "Swipe(amount=3, axis='diagonal')", "'vertical' or 'horizontal'"),
        ("desktop", "Swipe(amount=2.5)", "'amount'"),
        ("desktop", "Hotkey(keys=['ctrl'], repeat=0)", "'repeat'"),
        ("desktop", "Hotkey(keys=['ctrl'], repeat=129)", "'repeat'"),
        ("desktop", "Hotkey(keys=[])", "'keys'"),
        ("desktop", "Hotkey(keys=[" + ", ".join(["'a'"] * 129) + "])", "'keys'"),
        ("desktop", "KeyDown(keys=[''])", "'keys.0'"),
        ("browser", "Hotkey(keys=['ctrl', 'alt', 'shift', 't'])", "'keys'"),
        ("browser", "Scroll(point=(1, 1), direction='sideways')", "'up', 'down', 'left' or 'right'"),
        ("browser", "Launch(url='file:///etc/passwd')", "http"),
        ("browser", "SelectOption(index=-1)", "'index'"),
        ("mobile", "LaunchApp(app='')", "'app'"),
    ],
)
def test_enums_and_limits_come_from_the_action_models(surface, text, message):
    with pytest.raises(ParseError, match=message) as caught:
        only_action(text, surface)
    assert caught.value.message.startswith("Invalid ")
    assert "errors.pydantic.dev" not in caught.value.message


def test_hotkey_limits_on_desktop_accept_128_keys_and_repeats():
    hotkey = only_action("Hotkey(keys=[" + ", ".join(["'a'"] * 128) + "], repeat=128)", "desktop")
    assert len(hotkey.keys) == 128 and hotkey.repeat == 128


# --- Type content -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Type(content='it\\'s')", "it's"),
        ('Type(content="say \\"hi\\"")', 'say "hi"'),
        ("Type(content='line one\\nline two')", "line one\nline two"),
        ("Type(content='line one\nline two')", "line one\nline two"),
        ("Type(content='C:\\\\Users\\\\me')", "C:\\Users\\me"),
        ("Type(content='北京到上海的高铁票')", "北京到上海的高铁票"),
        ("Type(content='价格（元）｜含税')", "价格（元）｜含税"),
        ("Type(content='{x} {{credentials.acme.password}}')", "{x} {{credentials.acme.password}}"),
        ("Type(content='''a 'quoted' word''')", "a 'quoted' word"),
        ("Type(content='part one ' 'part two')", "part one part two"),
        ("Type(content='')", ""),
    ],
)
def test_type_content_keeps_quotes_escapes_and_unicode(text, content):
    assert only_action(text, "mobile").content == content


def test_type_content_may_contain_think_and_tag_like_text():
    parsed = parse_answer("Fill it.</think>\n<action>Type(content='<b>bold</b> </think>')</action>", surface="browser")
    assert parsed.actions == [B.Type(content="<b>bold</b> </think>")]
    parsed = parse_answer("<action>Type(content='</think>')</action>", surface="browser")
    assert parsed.thought == "" and parsed.actions == [B.Type(content="</think>")]


@pytest.mark.filterwarnings("error")
def test_an_unknown_escape_sequence_is_kept_as_typed_even_under_strict_warnings():
    assert only_action("Type(content='C:\\dir\\d')", "mobile").content == "C:\\dir\\d"


# --- grounding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "point"),
    [
        ("[676,684]", (676, 684)),
        (" [ 676 , 684 ] \n", (676, 684)),
        ("[676,684].", (676, 684)),
        ("[100,200,300,400]", (200, 300)),
        ("[100,200],[300,401]", (200, 300)),
        ("[0,1000]", (0, 1000)),
        ("[12.4,99.6]", (12, 100)),
        ("<think>\n\n</think>\n\n[5,6]", (5, 6)),
        ("[-1,-1]", None),
        ("[-1, -1]", None),
    ],
)
def test_parse_grounding_reads_points_boxes_and_refusals(content, point):
    assert parse_grounding(content) == point


@pytest.mark.parametrize(
    "content",
    ["", "the button", "[676]", "[1,2,3]", "[1,2,3],[4]", "[1001,5]", "[-5,10]", "(676, 684)", "[676,684] and [1,2]", "[a,b]"],
)
def test_parse_grounding_rejects_anything_else(content):
    with pytest.raises(ParseError):
        parse_grounding(content)
