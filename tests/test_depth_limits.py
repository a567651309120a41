"""How deep a document may nest, and how a deep value is shown, are fixed numbers, the same on every
Python: 3.11's parser and encoder give up near the interpreter's recursion limit, 3.12's and 3.13's
go much deeper, so a run that leaned on them answered otherwise there (the suite failed on 3.13)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.inputs.parse import MAX_DEPTH, parse_bytes, parse_text, too_deep
from jobschema.text import MAX_SHOWN_DEPTH, compact

TOO_DEEP = "invalid JSON: nested too deeply to parse"


def _nested(depth: int, inner: str = "1", duplicate: bool = False) -> str:
    """``depth`` containers, objects and arrays alternating, around ``inner`` (built in linear time);
    ``duplicate``: the innermost object repeats its key."""
    opening = ['{"k": ' if level % 2 == 0 else "[" for level in range(depth)]
    closing = ["}" if level % 2 == 0 else "]" for level in reversed(range(depth))]
    if duplicate:
        inner = f'{{"a": {inner}, "a": 0}}'
    return "".join(opening) + inner + "".join(closing)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1100, 5000, 100_000])
@pytest.mark.parametrize("duplicate", [False, True])
def test_past_the_limit_a_document_is_too_deep_on_either_path(depth: int, duplicate: bool) -> None:
    text = _nested(depth - duplicate, duplicate=duplicate)  # (a duplicate key: the exact parser)
    assert parse_text(text).error is not None
    assert parse_text(text).error.message == TOO_DEEP  # type: ignore[union-attr]
    assert parse_bytes(text.encode()).error.message == TOO_DEEP  # type: ignore[union-attr]


@pytest.mark.parametrize("depth", [1, 2, 300, 600])
def test_within_the_limit_both_paths_parse_it_alike(depth: int) -> None:
    plain, duplicated = parse_text(_nested(depth)), parse_text(_nested(depth, duplicate=True))
    assert plain.error is None and duplicated.error is None
    assert duplicated.duplicates == ("a",)


@settings(max_examples=50, deadline=None, database=None)
@given(
    st.recursive(
        st.integers() | st.text(alphabet='[]{}"\\x', max_size=4),
        lambda c: (
            st.lists(c, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\x', max_size=3), c, max_size=3)
        ),
        max_leaves=30,
    )
)
def test_too_deep_counts_nesting_not_brackets_in_strings(value: Any) -> None:
    import json

    def depth(item: Any) -> int:
        if isinstance(item, dict):
            return 1 + max(map(depth, item.values()), default=0)
        if isinstance(item, list):
            return 1 + max(map(depth, item), default=0)
        return 0

    text = json.dumps(value)
    wrapped = "[" * (MAX_DEPTH - depth(value)) + text + "]" * (MAX_DEPTH - depth(value))
    assert not too_deep(wrapped)
    assert too_deep("[" + wrapped + "]")


def test_a_value_deeper_than_shown_is_its_kind_on_every_python() -> None:
    deep: Any = []
    for _ in range(MAX_SHOWN_DEPTH):
        deep = [deep]
    assert compact(deep) == "<array>"
    assert compact({"x": deep}) == "<object>"
    assert compact(deep[0]) == "[" * 59 + "…"


@pytest.mark.parametrize("opening", ['"', '["', '{"a": "\\"'])
def test_brackets_after_a_quote_never_closed_are_no_nesting(opening: str) -> None:
    """The text is not too deep but a string never closed: the parser's own error names it."""
    text = opening + "[" * (MAX_DEPTH * 2)
    assert not too_deep(text)
    error = parse_text(text).error
    assert error is not None and error.message == "invalid JSON: Unterminated string starting at"
