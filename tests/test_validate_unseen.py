"""Defects a review found in validate's findings and in the names and reports around them, each as
its class:

- a finding is made once: a problem several schema keywords see (``required`` gives python-jsonschema
  and jsonschema-rs one error per missing name, each worded with every missing name; ``type`` in a
  node and in an ``allOf`` branch of it) is one finding, in every schema, every format, every path of
  the checker;
- values are named by their JSON types (``null``, ``integer``), never Python's (``NoneType``,
  ``int``), and a value whose shown form is its type's name (``null``) is not named twice;
- an input that cannot be read is said once by ``jobschema versions``, not once per version;
- a byte of a file name that is not UTF-8 is shown as ``\\xff`` by every report, never as the
  surrogate Python holds it as, and no name breaks a line or sends an escape sequence;
- a run passes its results on to be rendered in parts as it checks them, and the parts put
  together are the whole report, byte for byte.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.findings import PayloadResult
from jobschema.inputs.payload import Payload
from jobschema.report import SECTIONED, RenderOptions, assemble, render, render_section
from jobschema.report.common import visible
from jobschema.report.github import escape_data
from jobschema.schemas.detect import detect
from jobschema.schemas.registry import BUNDLED
from jobschema.testing import invalid_payloads
from jobschema.text import json_type
from jobschema.validate import validate_payload
from jobschema.validate.checker import Checker
from jobschema.validate.reference import once
from jobschema.validate.session import Session, Settings, check_payload
from jobschema.validate.tally import Tally, tally_file_parts, tally_files
from tests.support import all_examples, load_json

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
JSON_TYPES = {"null", "boolean", "integer", "number", "string", "array", "object"}
#: One value of each JSON type (a string that spells a type's name, too).
VALUES = [None, True, False, 0, 42, -1.5, "x", "null", "", [], [1], {}, {"a": None}]


def _twins(result: PayloadResult) -> list[tuple[Any, ...]]:
    """The findings of ``result`` that another finding of it repeats (place, rule, message)."""
    seen = Counter(
        (f.pointer, f.line, f.column, f.rule, f.message, f.severity, f.details) for f in result.findings
    )
    return [key for key, count in seen.items() if count > 1]


# -- a finding is made once -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "missing"),
    [
        ("runai-error", '"code", "message"'),
        ("aihc-error", '"requestId", "code", "message"'),
        ("aihc-job-detail", '"requestId", "result"'),
        ("aihc-raw-request", '"name", "jobSpec"'),
    ],
)
def test_missing_required_properties_are_one_finding(
    run_cli: Any, tmp_path: Path, schema: str, missing: str
) -> None:
    empty = tmp_path / "e.json"
    empty.write_text("{}\n", encoding="utf-8")
    result = run_cli(["validate", "-s", schema, str(empty)], code=1)
    assert result.stdout == (
        f"{empty}:1:1: (root): missing required properties {missing} [required]\n"
        "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped\n"
    )


def test_a_type_two_keywords_require_is_one_finding(run_cli: Any, tmp_path: Path) -> None:
    """aihc-v2-job says ``type: object`` at its root and in its ``allOf``: one problem, one finding
    (its schema pointer the outermost keyword's)."""
    null = tmp_path / "n.json"
    null.write_text("null\n", encoding="utf-8")
    result = run_cli(["validate", "-s", "aihc-v2-job", str(null)], code=1)
    assert result.stdout == (
        f"{null}:1:1: (root): expected object, got null [type]\n"
        "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped\n"
    )
    found = json.loads(run_cli(["validate", "-s", "aihc-v2-job", "-f", "json", str(null)]).stdout)
    assert [f["schema_pointer"] for f in found["results"][0]["findings"]] == ["/type"]


def test_a_har_error_body_of_the_wrong_shape_is_one_finding(run_cli: Any, tmp_path: Path) -> None:
    entry = {
        "request": {"method": "GET", "url": "https://h/api/v1/workloads/distributed/abc", "headers": []},
        "response": {"status": 503, "headers": [], "content": {"mimeType": "application/json", "text": "{}"}},
    }
    har = tmp_path / "x.har"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry]}}), encoding="utf-8")
    result = run_cli(["validate", str(har)], code=1)
    assert result.stdout.splitlines()[-1] == "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped"
    assert result.stdout.count('missing required properties "code", "message" [required]') == 1


def _checked(name: str | None, value: Any) -> PayloadResult:
    """The result of a parsed ``value`` (a ``str`` is a JSON string, not JSON text)."""
    return check_payload(Session(Settings(name)), Payload("<p>", None, value))


def _once_everywhere(name: str, payload: Any) -> None:
    """No result of ``payload`` holds a finding twice: by the session (the checker's ladder), by the
    reference alone, and by a checker whose first payload it is (the unshortened path)."""
    session = Session(Settings(name))
    result = check_payload(session, Payload("<p>", None, payload))
    assert _twins(result) == []
    checker = session.checker(name)
    for found in (
        checker.reference.check(payload),
        Checker(checker.schema, session.checker, False, 1).check(payload),
    ):
        keys = [(f.tokens, f.rule, f.message, f.severity, f.details) for f in found]
        assert len(keys) == len(set(keys)), found


@pytest.mark.parametrize(
    "case", all_examples(), ids=lambda c: f"{c[0]}/{c[1].parent.parent.name}/{c[1].name}"
)
def test_no_example_gets_a_finding_twice(case: Any) -> None:
    name, path = case
    _once_everywhere(name, load_json(path))


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_no_value_of_any_type_gets_a_finding_twice(name: str, value: Any) -> None:
    _once_everywhere(name, value)


@pytest.mark.parametrize("name", BUNDLED)
@SETTINGS
@given(data=st.data())
def test_no_generated_invalid_payload_gets_a_finding_twice(name: str, data: st.DataObject) -> None:
    payload = data.draw(invalid_payloads(name))[0]
    _once_everywhere(name, payload)
    # the problems of two copies of one payload, each in its place, are two problems each: all stay
    found = Session().checker(name).reference.check(payload)
    assert found
    twice = [*(f.under(("a",)) for f in found), *(f.under(("b",)) for f in found)]
    assert once(twice) == twice


def test_twins_keep_the_first_place_and_the_outermost_keyword() -> None:
    from jobschema.findings import problem

    inner = problem(("a",), "expected string, got integer 1", "type", schema_tokens=("allOf", 0, "type"))
    outer = problem(("a",), "expected string, got integer 1", "type", schema_tokens=("type",))
    other = problem(("b",), "expected string, got integer 1", "type", schema_tokens=("type",))
    assert once([inner, other, outer]) == [outer, other]
    assert once([outer, inner]) == [outer]
    # the same words under other details (an anyOf's sub-errors) say something else
    detailed = problem(("a",), "x", "anyOf", details=("a: 1",))
    assert len(once([detailed, problem(("a",), "x", "anyOf", details=("a: 2",))])) == 2


def test_an_allof_of_one_type_twice_is_explained_once() -> None:
    """(It was left to python-jsonschema whole, and reported twice.)"""
    from jobschema.schemas.registry import Schema

    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"a": {"allOf": [{"type": "string"}, {"type": "string"}]}},
    }
    checker = Checker(Schema("t", Path("t.schema.json"), document), lambda name: checker)
    explained = checker._explained({"a": 1})
    assert explained is not None
    assert [f.message for f in explained] == ["expected string, got integer 1"]
    assert explained == checker.reference.schema_problems({"a": 1}) == checker.check({"a": 1})


# -- JSON type names ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (None, "null"),
        (42, "an integer"),
        (1.5, "a number"),
        ("x", "a string"),
        (True, "a boolean"),
        ([1], "an array"),
    ],
)
def test_a_top_level_value_is_named_by_its_json_type(value: Any, kind: str) -> None:
    expected = f"top level is {kind}, not a JSON object; no schema fits"
    assert detect(value).reason == expected
    assert [f.message for f in validate_payload(json.dumps(value)).findings] == [expected]


def test_a_value_json_has_no_type_for_is_named_as_such() -> None:
    assert json_type({1, 2}) == "non-JSON value (set)"
    assert json_type((1,)) == "non-JSON value (tuple)"
    assert [json_type(v) for v in VALUES] == [
        "null", "boolean", "boolean", "integer", "integer", "number",
        "string", "string", "string", "array", "array", "object", "object",
    ]  # fmt: skip


_PYTHON_NAMES = re.compile(r"\b(NoneType|int|str|float|bool|dict|list|tuple)\b")
_TYPE_MESSAGE = re.compile(r"expected [a-z ]+, got (?P<kind>[a-z]+)(?P<shown> .+)?")
_DOUBLED = re.compile(r"(?<!\S)(\S+) \1(?!\S)")
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=6,
)


@pytest.mark.parametrize("name", BUNDLED)
@SETTINGS
@given(value=JSON_VALUES)
def test_type_messages_name_json_types_once(name: str, value: Any) -> None:
    """Any value where an object is required, and in every place of an example: the ``type``
    message names a JSON type, and never says a word twice over (``got null null``)."""
    for payload in (value, {"spec": value, "result": value, "job": value, "code": value}):
        result = _checked(name, payload)
        for finding in result.findings:
            if finding.rule == "type":
                matched = _TYPE_MESSAGE.fullmatch(finding.message)
                assert matched and matched["kind"] in JSON_TYPES, finding.message
                assert not _DOUBLED.search(finding.message.split(", got ", 1)[1]), finding.message
            if finding.rule in ("type", "no-schema"):
                assert not _PYTHON_NAMES.search(finding.message.split(", got ")[0]), finding.message


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_a_type_message_shows_the_value_after_its_type(value: Any) -> None:
    (found,) = [f for f in _checked("runai-error", value).findings if f.rule == "type"] or [None]
    if isinstance(value, dict):
        assert found is None
        return
    assert found is not None
    shown = json.dumps(value, separators=(",", ":"))
    assert found.message == (
        "expected object, got null" if value is None else f"expected object, got {json_type(value)} {shown}"
    )


# -- versions: an unreadable input is said once ---------------------------------------------------------


def test_versions_says_an_unreadable_input_once(run_cli: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"a": ')
    other = tmp_path / "null.json"
    other.write_bytes(b"null")
    result = run_cli(["versions", str(empty), str(broken), str(other)], code=1)
    lines = result.stdout.splitlines()
    assert lines[0] == f"{empty}: no Run:ai version: file is empty [encoding]"
    # (placed where validate places them since round 7: tests/test_versions_round7.py)
    assert lines[1] == f"{broken}:1:7: no Run:ai version: invalid JSON: Expecting value [parse-error]"
    assert (
        lines[2]
        == f"{other}:1:1: no Run:ai version: top level is null, not a JSON object; no schema fits [no-schema]"
    )
    assert lines[3:] == ["3 payloads, 0 skipped; no Run:ai version accepts every payload"]


def test_versions_still_lists_each_version_of_a_checked_payload(run_cli: Any, tmp_path: Path) -> None:
    """A payload checked against every version and rejected by all is each version's doing."""
    payload = tmp_path / "p.json"
    payload.write_text(json.dumps({"workloadId": "w"}), encoding="utf-8")
    lines = run_cli(["versions", str(payload)], code=1).stdout.splitlines()
    assert lines[0] == f"{payload}: no Run:ai version"
    assert [line.split(":")[0] for line in lines[1:-1]] == [f"  not 2.{n}" for n in range(18, 25)]


# -- names that are not UTF-8 ----------------------------------------------------------------------------


_NAME_BYTES = st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\0" not in b)


def _shown_name(name: bytes) -> str:
    r"""A name as every report shows it: control characters escaped, a byte that is not UTF-8 ``\xNN``,
    a backslash that would read as an escape doubled (a name ``\`` + U+0001 is ``\\\x01``)."""
    return visible(os.fsdecode(name))


def test_a_name_byte_that_is_not_utf8_is_shown_as_itself() -> None:
    assert visible(os.fsdecode(b"bad\xff.json")) == "bad\\xff.json"
    assert visible(os.fsdecode(b"\xfe\x1b[31m\n")) == "\\xfe\\x1b[31m\\n"
    assert visible("\u00ff") == "\u00ff"  # a character, not a byte: left as it is


@SETTINGS
@given(name=_NAME_BYTES)
def test_every_report_shows_a_name_of_any_bytes_on_one_line(tmp_path_factory: Any, name: bytes) -> None:
    from click.testing import CliRunner

    from jobschema.cli import main

    if name in (b".", b".."):
        return
    folder = tmp_path_factory.mktemp("names")
    path = os.fsencode(folder) + b"/" + name + b".json"
    Path(os.fsdecode(path)).write_bytes(b"{}")
    shown = f"{folder}/{_shown_name(name)}.json"
    in_github = escape_data(f"{folder}/{os.fsdecode(name)}.json")  # (its own escapes of \r \n %)
    outputs = {
        args[0] + (args[2] if len(args) > 2 else ""): CliRunner()
        .invoke(main, [*args, os.fsdecode(path)])
        .stdout
        for args in (["versions"], ["validate", "-f", "text"], ["validate", "-f", "github"])
    }
    for kind, output in outputs.items():
        assert not re.search("[\ud800-\udfff\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", output), kind
        lines = output.splitlines()
        assert len(lines) == 2, (kind, output)
        assert (in_github if kind == "validategithub" else shown) in lines[0], (kind, shown, lines[0])
        for byte in name.decode("utf-8", "surrogateescape"):
            if 0xDC80 <= ord(byte) <= 0xDCFF:
                assert f"\\x{ord(byte) - 0xDC00:02x}" in lines[0]


# -- a run renders its results in parts --------------------------------------------------------------------


def _mixed(tmp_path: Path) -> list[str]:
    lines = [
        b"{}",
        b"null",
        b'{"code": 404, "message": "x"}',
        b'{"code": "x"}',
        b"{",
        b'{"code": 1}',
        b"",
        b'{"workloadId": "w"}',
    ]
    ndjson = tmp_path / "m.ndjson"
    ndjson.write_bytes(b"\n".join(lines * 3) + b"\n")
    (tmp_path / "e.json").write_bytes(b"")
    return [str(ndjson), str(tmp_path / "e.json")]


@pytest.mark.parametrize("fmt", SECTIONED)
@pytest.mark.parametrize("kept", [1, 2, 5, 1000])
@pytest.mark.parametrize("keep_clean", [False, True])
def test_a_run_rendered_in_parts_is_the_whole_report(
    tmp_path: Path, fmt: str, kept: int, keep_clean: bool
) -> None:
    files = _mixed(tmp_path)
    options = RenderOptions(verbose=1)
    settings_ = Settings(keep_clean=keep_clean)
    whole = tally_files(Session(settings_), files)
    seen: list[int] = []
    sections = tally_file_parts(
        Session(settings_),
        files,
        partial(_section, fmt=fmt, options=options),
        progress=seen.append,
        kept=kept,
    )
    assert assemble(sections, fmt, options) == (render(whole.report(), fmt, options), whole.report().ok)
    assert seen == sorted(seen) and seen[-1] == whole.done == sum(section.done for section in sections)


def _section(tally: Tally, fmt: str, options: RenderOptions) -> Any:
    return render_section(tally.report(), fmt, options)


def test_a_part_holds_at_most_its_results(tmp_path: Path) -> None:
    files = _mixed(tmp_path)
    parts = tally_file_parts(Session(), files, lambda tally: tally, kept=4)
    assert [len(part.results) for part in parts[:-1]] == [4] * (len(parts) - 1)
    assert len(parts[-1].results) <= 4
    whole = Tally()
    for part in parts:
        whole.add(part)
    assert whole.report() == tally_files(Session(), files).report()
