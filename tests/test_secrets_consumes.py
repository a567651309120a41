"""A shape searched around each anchor starts after the anchor's previous occurrence whenever its
expression consumes that character at most once a match (read from the expression:
``jobschema.secrets.consumes``). The answer is the same as searching the whole window; the work per
anchor no longer grows with the credentials packed before it (counted, never timed)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.secrets import scrub, shapes
from jobschema.secrets.consumes import MANY, most_consumed

COUNTS = [
    (r"a@b", "@", 1),
    (r"[^@]*@", "@", 1),
    (r"[^x]*@", "@", MANY),
    (r".@", "@", 2),
    (r".*@", "@", MANY),
    (r"(?i:A)", "a", 1),
    (r"A", "a", 0),
    (r"(?i)A", "a", 1),
    (r"(?=@)x@", "@", 1),
    (r"(?<!@)x@", "@", 1),
    (r"(?:@|b)@", "@", 2),
    (r"(?:@@|b)", "@", 2),
    (r"@{2,3}", "@", 3),
    (r"@{0,3}?", "@", 3),
    (r"\w@", "@", 1),
    (r"\W@", "@", 2),
    (r"[\W]@", "@", 2),
    (r"[^\w]@", "@", 2),
    (r"[^\W]@", "@", 1),
    (r"(a)\1@", "@", MANY),
    (r"[\s@]", "@", 1),
    (r"[^\s]", "@", 1),
    (r"\S", "@", 1),
    (r"\d", "7", 1),
    (r"\D", "7", 0),
    (r"(?>@)", "@", 1),
    (r"@*+", "@", MANY),
    (r"(a)?(?(1)@|b)", "@", MANY),
]


@pytest.mark.parametrize(("source", "char", "expected"), COUNTS)
def test_the_count_is_read_from_the_expression(source: str, char: str, expected: int) -> None:
    assert most_consumed(re.compile(source), char) == expected


@pytest.mark.parametrize(("source", "char", "expected"), COUNTS)
def test_no_match_consumes_the_character_more_often_than_read(source: str, char: str, expected: int) -> None:
    """The count is an upper bound on what real matches hold (in texts built of the character and
    a few others)."""
    pattern = re.compile(source)
    for text in (char * 5, f"a{char}b{char}{char}x", f" {char}a b{char}", f"aa{char}{char}b7 "):
        for start in range(len(text)):
            match = pattern.match(text, start)
            if match is not None:
                assert match.group().count(char) <= expected


def _anchored_naively(text: str, at: int, shape: Any, anchor: Any) -> int:
    return max(0, at - shape.before)


FRAGMENTS = st.sampled_from(
    ["@", "https://", "u:p", "a", "/", " ", "host.example.com", ":", "8080", "x@", "ftp://", "\n", '"', "_"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(FRAGMENTS, max_size=40).map("".join))
def test_the_spans_are_those_of_the_whole_window(text: str) -> None:
    faster = sorted(shapes.token_spans(text))
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(shapes, "_search_from", _anchored_naively)
        assert sorted(shapes.token_spans(text)) == faster


def test_packed_credentials_cost_the_same_per_anchor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of ``scheme://user:password@`` in one string: each anchor tries a bounded number of
    matches, however many came before it."""
    tried = [0]
    original = shapes._tried

    def counting(*args: Any) -> Any:
        for match in original(*args):
            tried[0] += 1
            yield match

    monkeypatch.setattr(shapes, "_tried", counting)
    per_anchor = []
    for count in (100, 1000):
        tried[0] = 0
        text = "https://u:p@h/ " * count
        masked = scrub(text)
        assert "u:p@" not in masked and masked.count("@") == count
        per_anchor.append(tried[0] / count)
    assert per_anchor[1] <= per_anchor[0] * 1.1, per_anchor
    assert per_anchor[1] <= 3


@pytest.mark.parametrize("name", ["url-userinfo", "userinfo-without-scheme"])
def test_the_userinfo_shapes_consume_their_anchor_once(name: str) -> None:
    """The shapes whose anchors the search skips past (a change of expression that loses the
    property is caught here; the search would then go back over the whole window, as before)."""
    (shape,) = [s for s in shapes.own() if s.name == name]
    assert [most_consumed(shape.pattern, a.text[0]) for a in shape.anchors] == [1] * len(shape.anchors)
