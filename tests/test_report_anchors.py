"""A report's anchors searched piece by piece (:func:`jobschema.report.anchors.report_anchors`) are
the whole text's (:func:`jobschema.secrets.shapes.anchor_positions`): exactly for ASCII text, and
never none where the whole text has some beyond it (a report beyond ASCII is searched anew)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jobschema.report import RenderOptions, anchors, render_section
from jobschema.secrets import shapes
from jobschema.validate import validate_paths
from tests.support import REPO
from tests.test_report_sections import PIECES as LINE_PIECES

#: The line-rule test's pieces (anchors whole, halved and upper-cased, line breaks, letters that
#: lengthen or fold to ASCII when lowercased), and the cuts' neighbours and a report's words.
PIECES = st.one_of(
    LINE_PIECES,
    st.sampled_from([": ", "::", "0", "12:7", ":3:", "/", "warning", "[rule]", "\u03a3", "训"]),
)


def test_no_anchor_spans_a_cut() -> None:
    assert [cut for cut in anchors.CUTS if shapes.anchors_hold(cut)] == []
    assert anchors._cuttable()


@settings(max_examples=500, deadline=None)
@given(st.lists(PIECES, max_size=24))
@example(["untrusted comment", ":", "12:7", ": ", "x"])  # an anchor ending in a colon, before a cut
@example(["a.json", ":", "3:", " ", "https://", "u:p", "@", "db"])
@example(["s", "k-", ":", "0"])
def test_the_anchors_of_the_pieces_are_the_whole_texts(pieces: list[str]) -> None:
    text = "".join(pieces)
    whole = shapes.anchor_positions(text)
    found = anchors.report_anchors(text)
    assert found == sorted(found)
    if text.isascii():
        assert found == whole
    else:  # (a piece may fold more letters beyond ASCII than the whole text does, never fewer)
        assert not whole or found


def test_a_text_is_searched_whole_when_an_anchor_would_span_a_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(anchors, "anchors_hold", lambda fragment: fragment == ": ")
    anchors._cuttable.cache_clear()
    try:
        monkeypatch.setattr(anchors, "_piece_anchors", lambda piece: pytest.fail(f"searched {piece!r}"))
        text = "a.json:3:1: /spec: token ghp_" + "a" * 36 + "\n"
        assert anchors.report_anchors(text) == shapes.anchor_positions(text) != []
    finally:
        anchors._cuttable.cache_clear()


@pytest.mark.parametrize("fmt", ["text", "json", "github", "junit"])
def test_a_report_of_the_examples_has_the_anchors_of_its_whole_text(fmt: str) -> None:
    report = validate_paths([str(REPO / "schemas" / "examples"), str(REPO / "tests" / "examples")])
    text = render_section(report, fmt, RenderOptions(verbose=1)).text
    assert text.count("\n") > 50
    assert anchors.report_anchors(text) == shapes.anchor_positions(text)


def test_an_anchor_holds_its_own_text_and_a_folded_one_any_case_of_it() -> None:
    every = shapes._anchors()
    assert all(shapes.anchors_hold(anchor.text) for anchor in every)
    assert all(shapes.anchors_hold(anchor.text.upper()) for anchor in every if anchor.fold)
    exact = [anchor.text for anchor in every if not anchor.fold and anchor.text.swapcase() != anchor.text]
    assert not all(shapes.anchors_hold(text.swapcase()) for text in exact)
    assert not shapes.anchors_hold("\n")
    first, second = every[0].text, every[1].text
    assert not shapes.anchors_hold(first[-1] + "\n" + second[0])


def test_a_long_piece_is_searched_and_not_remembered() -> None:
    anchors._remembered_anchors.cache_clear()
    long = "a.json:3:1: /spec/args: " + "x" * 5000 + " ghp_" + "a" * 36 + " [rule]"
    assert anchors.report_anchors(long) == shapes.anchor_positions(long) != []
    kept = anchors._remembered_anchors.cache_info().currsize
    assert kept == 2  # ('a.json:' and '3:1:'; the long rest is not kept)
