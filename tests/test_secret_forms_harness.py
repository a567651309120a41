"""The rounds' shared harness finds a leaked piece as a plain substring search would: its search of
a report's distinct pieces (:func:`tests.secret_forms.occurring`) must never miss an occurrence (one
overlapping another, one across a double quote) nor make one up, or the secret tests would pass
over a leak or fail on none."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.secret_forms import occurring

#: Few characters, double quotes and line breaks among them: parts overlap, nest and span quotes.
CHARS = 'ab"c\n\\'


@settings(max_examples=500, derandomize=True, database=None)
@given(
    st.lists(st.text(alphabet=CHARS, max_size=6), max_size=10),
    st.text(alphabet=CHARS, max_size=60),
)
def test_occurring_is_the_substring_test_of_every_part(parts: list[str], text: str) -> None:
    assert occurring(parts, text) == {part for part in parts if part and part in text}


def test_overlapping_and_nested_parts_are_each_found() -> None:
    assert occurring(["abc", "bcd", "b", "cde", "x"], "abcde") == {"abc", "bcd", "b", "cde"}
    assert occurring(['b"c', "ac", 'a"', "bb"], 'xa"b"cx"a') == {'b"c', 'a"'}
