"""Locating pointers in JSON text: in orjson's two-space writing, values skipped by finding the line
that closes them give the places the parsing skip gives, and so do the places read from the parsed
value alone (``locate_written``); the parser says when text is that writing."""

from __future__ import annotations

import json
from typing import Any
from unittest.mock import patch

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.inputs.layout import by_layout
from jobschema.inputs.locate import locate, locate_parsed, locate_written
from jobschema.inputs.parse import parse_bytes

KEYS = st.text(alphabet=st.sampled_from('ab"\\\n é}]{['), max_size=4)
LEAVES = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False) | KEYS
DOCUMENTS = st.recursive(
    LEAVES,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=30,
)


def _places(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found = [prefix]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        found += _places(child, (*prefix, key))
    return found


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, st.data())
def test_skipping_by_the_closing_line_finds_what_parsing_finds(value: Any, data: st.DataObject) -> None:
    raw = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    assert parse_bytes(raw).indented is (raw[:2] in (b"{\n", b"[\n"))
    text = raw.decode("utf-8")
    places = _places(value)
    asked = data.draw(st.lists(st.sampled_from(places), min_size=1, max_size=4))
    asked += [(*asked[0], "missing"), (*asked[-1], 7), (*asked[0], "a"), (*asked[-1], "b"), (*asked[0], 1)]
    assert locate_written(value, asked) == locate(text, asked)


def test_only_orjsons_own_two_space_writing_is_marked_indented() -> None:
    value = {"a": [1, {"b": {}}], "c": []}
    assert parse_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2)).indented
    assert parse_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n").indented
    assert not parse_bytes(orjson.dumps(value)).indented  # compact
    four = b'{\n    "a": [\n        1\n    ],\n    "c": []\n}'
    assert not parse_bytes(four).indented
    assert not parse_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2).replace(b"\n", b"\r\n")).indented


def test_a_key_missing_here_is_not_found_in_a_later_object() -> None:
    value = {"x": {"b": 1}, "y": {"a": 2, "b": [{"c": 1}, {"d": 2}]}, "z": [[], {}, [3]]}
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    asked = [("x", "a"), ("y", "b", 0, "d"), ("y", "b", 1, "d"), ("z", 0, 0), ("z", 2, 0), ("z", 3)]
    assert locate_written(value, asked) == locate(text, asked)
    assert locate_written(value, [("x", "a")]) == {("x", "a"): (2, 8)}  # at "x", its object


def test_many_places_in_one_array_and_one_object_are_found_as_parsing_finds_them() -> None:
    value = {"pods": [{"meta": {"n": index}, "env": [index] * 3} for index in range(300)]}
    value["wide"] = {f"k{index}": [index] for index in range(40)}  # more members asked than searched
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    asked: list[tuple[str | int, ...]] = [("pods", index, "meta", "n") for index in range(299, -1, -7)]
    asked += [("pods", 300), ("wide", "k3", 0), ("wide", "k39")]
    assert locate_written(value, asked) == locate(text, asked)
    wide = [("wide", f"k{index}", 0) for index in range(40)]
    assert locate_written(value, wide) == locate(text, wide)
    assert locate_written(value, asked) == locate(text, asked)
    assert locate_written(value, wide) == locate(text, wide)


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS, st.data())
def test_places_read_from_the_value_are_where_the_text_has_them_in_any_order(
    value: Any, data: st.DataObject
) -> None:
    """Asked in any order, several at once or one by one: the counts remembered for one place never
    move another (the lines before a member are counted from the nearest member already known)."""
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
    asked = data.draw(st.lists(st.sampled_from(_places(value)), min_size=1, max_size=12))
    expected = locate(text, asked)
    assert locate_written(value, asked) == expected
    assert {place: at for one in asked for place, at in locate_written(value, [one]).items()} == expected


def test_a_non_ascii_or_escaped_key_moves_the_column_by_its_characters() -> None:
    value = {'é\n"': {"ключ": [1, {"x\u0001": 2}]}}
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    asked = [('é\n"', "ключ", 1, "x\u0001"), ('é\n"', "ключ", 0)]
    assert (
        locate_written(value, asked)
        == locate(text, asked)
        == {
            ('é\n"', "ключ", "1", "x\u0001"): (6, 20),  # 8 spaces, then "x\u0001" is 9 characters
            ('é\n"', "ключ", "0"): (4, 7),
        }
    )


# --- any layout: the places read from the value are where the text has them -----------------------

#: Documents without floats (json.dumps and orjson write some floats differently): any characters,
#: DEL and beyond ASCII too, which json.dumps escapes by default.
WRITTEN_ALIKE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.text(alphabet=st.sampled_from('ab \\"{}[],:\x7fé😀名\u2028'), max_size=4),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(alphabet=st.sampled_from('a b"\\:,é😀'), max_size=4), children, max_size=4)
    ),
    max_leaves=30,
)
#: ``json.dumps`` keyword sets: the layouts of json.dumps, kubectl (four spaces), jq --tab, curl.
LAYOUTS = st.fixed_dictionaries(
    {
        "indent": st.sampled_from([None, 0, 1, 2, 4, "\t", " \t"]),
        "separators": st.sampled_from([None, (",", ":"), (", ", ": "), (" ,", " : "), (",\t", ":\t")]),
    }
)


def _relaid(text: str, data: st.DataObject) -> str:
    """``text`` with LF, CRLF or CR line ends (or each line's own), each line's indent drawn anew
    (carriage returns in it too), and whitespace around it."""
    lines = text.split("\n")
    count = len(lines)
    indents = data.draw(
        st.lists(
            st.sampled_from(["", " ", "\t", "   ", "\t  ", "\r", " \r "]), min_size=count, max_size=count
        )
    )
    if data.draw(st.booleans()):
        lines = [indent + line.lstrip(" \t") for indent, line in zip(indents, lines, strict=True)]
    ends = data.draw(st.lists(st.sampled_from(["\n", "\r\n", "\r\r\n"]), min_size=count, max_size=count))
    if data.draw(st.booleans()):
        ends = [ends[0]] * count
    body = "".join(line + end for line, end in zip(lines, ends, strict=True))[: -len(ends[-1])]
    around = data.draw(st.sampled_from(["", " ", "\n", "\r\n", " \t\n  ", "\r"]))
    return around + body + data.draw(st.sampled_from(["", "\n", " \r\n \n"]))


@settings(max_examples=400, deadline=None)
@given(WRITTEN_ALIKE | DOCUMENTS, LAYOUTS, st.booleans(), st.data())
def test_places_read_from_the_value_in_any_layout_are_where_the_text_has_them(
    value: Any, layout: dict[str, Any], escape: bool, data: st.DataObject
) -> None:
    """Any indent, separators, line ends and indents of each line (whitespace between the tokens),
    with non-ASCII characters escaped or not: ``locate_parsed`` places what ``locate`` places."""
    text = _relaid(json.dumps(value, ensure_ascii=escape, **layout), data)
    places = _places(value)
    asked = data.draw(st.lists(st.sampled_from(places), min_size=1, max_size=6))
    asked += [(*asked[0], "missing"), (*asked[-1], 3)]
    assert locate_parsed(text, value, asked) == locate(text, asked)


@settings(max_examples=200, deadline=None)
@given(WRITTEN_ALIKE, LAYOUTS, st.booleans(), st.data())
def test_text_that_differs_from_orjsons_writing_only_in_whitespace_is_never_searched(
    value: Any, layout: dict[str, Any], escape: bool, data: st.DataObject
) -> None:
    """Whatever the whitespace between the tokens, and with DEL and every character beyond ASCII
    escaped (json.dumps' default) or not, the places come from the value (the search is never run),
    and they are the search's."""
    text = _relaid(json.dumps(value, ensure_ascii=escape, **layout), data)
    asked = [*data.draw(st.lists(st.sampled_from(_places(value)), min_size=1, max_size=6)), ("missing",)]
    expected = locate(text, asked)
    with patch("jobschema.inputs.locate.locate", side_effect=AssertionError("the text was searched")):
        assert locate_parsed(text, value, asked) == expected


def test_a_text_beyond_the_layout_limit_is_searched() -> None:
    value = {"a": [1, {"b": "x"}], "c": 2}
    text = json.dumps(value, indent=4)
    asked = [("a", 1, "b"), ("c",)]
    expected = {("a", "1", "b"): (5, 18), ("c",): (8, 10)}
    by_value = patch("jobschema.inputs.locate.by_layout", side_effect=AssertionError("read from the value"))
    with patch("jobschema.inputs.locate.LAYOUT_LIMIT", len(text) - 1), by_value:
        assert locate_parsed(text, value, asked) == locate(text, asked) == expected
    searched = patch("jobschema.inputs.locate.locate", side_effect=AssertionError("searched"))
    with patch("jobschema.inputs.locate.LAYOUT_LIMIT", len(text)), searched:
        assert locate_parsed(text, value, asked) == expected


def test_a_string_holding_whitespace_and_non_ascii_text_are_read_from_the_value() -> None:
    value = {"  a  ": "x \t y", "ключ": [{"é": 1}, "  ", {"b": [None, {"c": -1.5}]}]}
    text = json.dumps(value, indent=4, ensure_ascii=False).replace("\n", "\r\n") + "\r\n"
    asked = [("ключ", 2, "b", 1, "c"), ("ключ", 0, "é"), ("  a  ",), ("ключ", 1), ("ключ", 9)]
    expected = {
        ("ключ", "2", "b", "1", "c"): (12, 26),
        ("ключ", "0", "é"): (5, 18),
        ("  a  ",): (2, 14),
        ("ключ", "1"): (7, 9),
        ("ключ", "9"): (3, 13),  # (no tenth item: at the array)
    }
    with patch("jobschema.inputs.locate.locate", side_effect=AssertionError("the text was searched")):
        assert locate_parsed(text, value, asked) == expected
    assert locate(text, asked) == expected


def test_a_carriage_return_inside_a_line_is_whitespace_before_a_value() -> None:
    """A carriage return anywhere in a line (not only before its line feed) is skipped as the
    search skips it (found by a second review)."""
    cases = {
        "[\n\rnull\n]": ((0,), (2, 2)),
        "[\n\r 1\n]": ((0,), (2, 3)),
        '{\n  "a":\r 1\n}': (("a",), (2, 9)),
        "\r[\n  1\n]": ((), (1, 2)),
        "[\n  1,\r\n\r  2\n]": ((1,), (3, 4)),
    }
    for text, (place, expected) in cases.items():
        value = json.loads(text)
        assert (
            locate_parsed(text, value, [place]) == locate(text, [place]) == {tuple(map(str, place)): expected}
        )


def test_text_written_otherwise_than_orjson_writes_is_searched() -> None:
    """Escapes neither orjson nor json.dumps writes (``\\/``, upper-case hex), characters escaped in
    a text that has others as they are, numbers written otherwise: the text decides."""
    for text in [
        '{"a": 1E2, "b": [1]}',
        '{"a": "\\/", "b": [1]}',
        '{"a": "\\u00E9", "b": 1}',
        '{"é": "\\u00e9"}',
    ]:
        value = json.loads(text)
        assert locate_parsed(text, value, [("b",)]) == locate(text, [("b",)])
        assert by_layout(text, value, [("b",)]) is None
