"""Locating pointers in JSON text: in orjson's two-space writing, values skipped by finding the line
that closes them give the places the parsing skip gives, and so do the places read from the parsed
value alone (``locate_written``); the parser says when text is that writing."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.inputs.locate import locate, locate_written
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
