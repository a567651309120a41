"""Reports rendered in sections, each in the process that checked its payloads (text, GitHub and
JSON: :func:`jobschema.report.render_section`, :func:`jobschema.report.assemble`): the assembled text
is :func:`jobschema.report.render`'s, byte for byte, however the payloads are cut into sections, and
the last search for token shapes reads the whole report around the anchors the sections found."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.findings import PayloadResult, Report
from jobschema.report import FORMATS, SECTIONED, RenderOptions, Section, assemble, render, render_section
from jobschema.secrets import shapes
from tests.test_reporters import finding, mixed_report

OPTIONS = (
    RenderOptions(),
    RenderOptions(verbose=1),
    RenderOptions(color=True),
    RenderOptions(color=True, verbose=1),
)
#: Built here so that no token sits in the source: a GitHub token and an AWS key id.
GITHUB = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"
AWS = "AKIA" + "QWERTYUIOP" + "ASDFGH"
PLAIN = RenderOptions()


def one(source: str, pointer: str, message: str, severity: str = "error") -> PayloadResult:
    said = finding(source, pointer, message, "const", severity, "aihc-error", line=1, column=1)  # type: ignore[arg-type]
    return PayloadResult(source, "aihc-error", (said,))


def secret_report() -> Report:
    """Words holding secret shapes, anchors with no secret after them, and a clean payload."""
    results = (
        one("a.json", "/x", f"value {GITHUB} is wrong"),
        one("basic-auth.json", "/y", "no secret here"),
        one("b.json", "/z", f"header Bearer {AWS}", "warning"),
        one("c.json", "", "ends in aws"),
        PayloadResult("4-hmac-sha256.json", "aihc-error"),
    )
    return Report(results, skipped=1, clean=3)


def reports() -> dict[str, Report]:
    return {"mixed": mixed_report(), "secrets": secret_report(), "empty": Report(())}


def cut(report: Report, points: list[int], skipped: list[int], clean: list[int]) -> list[Report]:
    """``report`` as consecutive parts cut at ``points``; its skipped and clean counts spread over
    the parts as the lists say (what is left goes to the last part)."""
    bounds = [0, *sorted(p % (len(report.results) + 1) for p in points), len(report.results)]
    parts = [Report(report.results[a:b]) for a, b in itertools.pairwise(bounds)]
    skips, cleans = _spread(report.skipped, skipped, len(parts)), _spread(report.clean, clean, len(parts))
    return [replace(part, skipped=s, clean=c) for part, s, c in zip(parts, skips, cleans, strict=True)]


def _spread(total: int, shares: list[int], count: int) -> list[int]:
    got = [0] * count
    for index, share in enumerate(shares):
        got[index % count] += min(total - sum(got), share)
    got[-1] += total - sum(got)
    return got


@pytest.mark.parametrize("fmt", SECTIONED)
@pytest.mark.parametrize("case", sorted(reports()))
@settings(max_examples=60, deadline=None)
@given(
    points=st.lists(st.integers(0, 20), max_size=8),
    skipped=st.lists(st.integers(0, 3), max_size=4),
    clean=st.lists(st.integers(0, 3), max_size=4),
    options=st.sampled_from(OPTIONS),
)
def test_sections_assemble_to_the_whole_report(
    case: str, fmt: str, points: list[int], skipped: list[int], clean: list[int], options: RenderOptions
) -> None:
    report = reports()[case]
    sections = [render_section(part, fmt, options) for part in cut(report, points, skipped, clean)]
    assert assemble(sections, fmt, options) == (render(report, fmt, options), report.ok)


def test_secrets_are_masked_and_sections_with_an_anchor_say_so() -> None:
    sections = [render_section(Report((result,)), "text", PLAIN) for result in secret_report().results]
    text, ok = assemble(sections, "text", PLAIN)
    assert not ok
    assert GITHUB not in text and AWS not in text and text.count("<secret:") == 2
    assert "basic-auth.json" in text  # an anchor alone is no secret
    # (a mask holds no anchor; then 'basic', 'bearer', 'aws'; a clean payload prints nothing)
    assert [bool(section.anchors) for section in sections] == [False, True, True, True, False]


def test_the_whole_report_is_searched_again_only_around_the_anchors_of_its_sections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, object]] = []
    real = shapes.token_spans
    monkeypatch.setattr(
        shapes, "token_spans", lambda text, at=None: calls.append((text, at)) or real(text, at)
    )
    counts = dict.fromkeys(("inputs", "valid", "invalid", "errors", "warnings", "skipped"), 0)
    plain = Section("x.json:1:1: /: a\n", counts, True)
    anchored = replace(plain, text="y.json:1:1: /: bearer\n", anchors=(15,))
    assemble([plain, plain], "text", PLAIN)
    assert calls == []
    text, _ = assemble([plain, anchored, plain], "text", PLAIN)
    assert calls == [(text, [len(plain.text) + 15])]
    text, _ = assemble([replace(plain, text="\u00e9\n"), anchored], "text", PLAIN)
    assert calls[-1] == (text, None)  # beyond ASCII: searched anew


@pytest.mark.parametrize("fmt", sorted(set(FORMATS) - set(SECTIONED)))
def test_whole_document_formats_are_not_rendered_in_sections(fmt: str) -> None:
    with pytest.raises(ValueError, match=f"format '{fmt}' is not rendered in sections"):
        render_section(mixed_report(), fmt, PLAIN)


# --- the anchors' rule: an anchor never spans a line break -------------------------------------

ANCHORS = sorted({anchor.text for anchor in shapes._anchors()})
PIECES = st.one_of(
    st.sampled_from(ANCHORS),
    st.sampled_from(ANCHORS).map(lambda text: text[: len(text) // 2]),
    st.sampled_from(ANCHORS).map(lambda text: text[len(text) // 2 :]),
    st.sampled_from(ANCHORS).map(str.upper),
    # a line break, separators, and letters that lengthen or fold to ASCII when lowercased
    st.sampled_from(["\n", " ", ":", "-", "\u0130", "\u212a", "\u017f", "x", "\u00e9"]),
    st.text(max_size=6),
)


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(PIECES, max_size=20), cuts=st.lists(st.integers(0, 400), max_size=6))
def test_the_anchors_of_a_text_of_lines_are_those_of_its_parts(pieces: list[str], cuts: list[int]) -> None:
    text = "".join(pieces)
    asked = {cut % (len(text) + 1) for cut in cuts}
    ends = {i + 1 for i, char in enumerate(text) if char == "\n" and i + 1 in asked}
    bounds = sorted({0, len(text), *ends})
    starts, parts = bounds[:-1], [text[a:b] for a, b in itertools.pairwise(bounds)]
    whole = shapes.anchor_positions(text)
    found = [
        start + at for start, part in zip(starts, parts, strict=True) for at in shapes.anchor_positions(part)
    ]
    if text.isascii():
        assert whole == found
        assert shapes.token_spans(text, found) == shapes.token_spans(text)
    else:  # (a line may fold more letters beyond ASCII than the whole text does, never fewer)
        assert not whole or found
    assert whole or shapes.token_spans(text) == []


def test_an_anchor_with_a_line_break_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shapes, "_anchors", lambda: (shapes.Anchor("BEGIN\nKEY"),))
    with pytest.raises(ValueError, match="must not hold a line break"):
        shapes._gates.__wrapped__()  # type: ignore[attr-defined]
