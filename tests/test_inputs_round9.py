"""Round 9 of the inputs: a capture whose marks fit more than one schema (an AIHC v1 ``result`` beside
a v2 ``job``, a string ``code`` beside a ``result``, a Run:ai body beside AIHC's ``requestId``) is
ambiguous, and every command that detects a schema says so the same way instead of picking one:
``validate`` and ``versions`` fail it (rule ``ambiguous-schema``, never skipped by
``--skip-unknown``), ``diff`` refuses it (exit 2), ``--history`` passes over it with a warning,
``coverage`` counts it unrecognised and names it, ``timeline`` names it and leaves it out, and
``redact`` masks what any of the schemas it fits marks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.schemas.detect import _CANDIDATES, _DECLARED, detect
from tests.conftest import RunCli
from tests.support import CAPTURES, REPO, load_json

V1 = load_json(CAPTURES / "aihc-job-detail" / "created-job.json")
V2 = load_json(CAPTURES / "aihc-v2-job" / "no-detail-pending.json")
FLAT = load_json(CAPTURES / "aihc-v2-job" / "documentation-flattened.json")
RUNAI = load_json(CAPTURES / "runai-distributed-workload" / "seed.json")
RAW = load_json(CAPTURES / "aihc-raw-request" / "seed.json")
AIHC_ERROR = load_json(CAPTURES / "aihc-error" / "access-denied.json")
RUNAI_ERROR = load_json(CAPTURES / "runai-error" / "not-found.json")

BOTH = "fits aihc-job-detail (its 'result' object) and aihc-v2-job (its 'job' object)"
REASON = f"ambiguous shape: {BOTH}; pass --schema"


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("JOBSCHEMA_MASK_KEY", "jobschema-example")


@pytest.fixture
def both(tmp_path: Path) -> Path:
    """An AIHC v1 job detail that also holds a v2 ``job`` (a proxy that merged two answers)."""
    path = tmp_path / "both.json"
    path.write_text(json.dumps({**V1, "job": V2["job"]}, indent=2), encoding="utf-8")
    return path


# --- detect ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({**V1, "job": V2["job"]}, REASON),
        (
            {**AIHC_ERROR, "job": V2["job"]},
            "ambiguous shape: fits aihc-error (its string 'code') and aihc-v2-job (its 'job' object); "
            "pass --schema",
        ),
        (
            {**V1, "code": "AccessDenied", "message": "m"},
            "ambiguous shape: fits aihc-job-detail (its 'result' object) and aihc-error (its string "
            "'code'); pass --schema",
        ),
        (
            {**RAW, "result": V1["result"]},
            "ambiguous shape: fits aihc-job-detail (its 'result' object) and aihc-raw-request (its "
            "'jobSpec' object); pass --schema",
        ),
        (
            {**RUNAI_ERROR, "requestId": "r"},
            "ambiguous shape: fits runai-error (its integer 'code') and an AIHC answer (its 'requestId'); "
            "pass --schema",
        ),
        (
            {**RUNAI, "result": V1["result"]},
            "ambiguous shape: fits runai-distributed-workload (its 'workloadId' and its 'desiredPhase') "
            "and aihc-job-detail (its 'result' object); pass --schema",
        ),
    ],
)
def test_a_payload_with_the_marks_of_two_schemas_is_ambiguous(payload: dict[str, Any], reason: str) -> None:
    found = detect(payload)
    assert (found.schema, found.reason, found.ambiguous) == (None, reason, True)


def test_a_schemas_own_field_that_is_anothers_mark_is_no_ambiguity() -> None:
    """AIHC v2's flattened answer holds a raw request's ``jobSpec`` and ``name``: v2 declares them."""
    assert detect(FLAT).schema == "aihc-v2-job"
    assert detect({**AIHC_ERROR, "job": None}).schema == "aihc-error"  # a null 'job' marks nothing


def test_the_declared_keys_are_the_schemas_properties() -> None:
    for name, _fit, _why in _CANDIDATES:
        document = load_json(REPO / "schemas" / f"{name}.schema.json")
        keys = set(document["properties"])
        if name == "aihc-v2-job":
            keys |= set(document["$defs"]["JobFields"]["properties"])
        assert _DECLARED[name] == keys, name


_EXAMPLES = {
    "runai-distributed-workload": RUNAI,
    "runai-error": RUNAI_ERROR,
    "aihc-job-detail": V1,
    "aihc-error": AIHC_ERROR,
    "aihc-raw-request": RAW,
    "aihc-v2-job": V2,
}
#: A mark of each schema, the key and a value, as another schema's payload could come to hold it.
_MARKS = {
    "runai-distributed-workload": ("workloadId", "4894d50f-c9ec-427c-87d7-9577f360e7e8"),
    "runai-error": ("code", 503),
    "aihc-job-detail": ("result", {"jobId": "j"}),
    "aihc-error": ("code", "AccessDenied"),
    "aihc-raw-request": ("jobSpec", {"Master": {}}),
    "aihc-v2-job": ("job", {"jobid": "j"}),
}


@settings(database=None, derandomize=True, max_examples=60)
@given(st.sampled_from(sorted(_EXAMPLES)), st.sampled_from(sorted(_MARKS)))
def test_any_schemas_payload_with_a_mark_it_does_not_declare_is_ambiguous(host: str, other: str) -> None:
    """Every payload of one schema given the mark of another, under a key the first does not declare
    (and with no value of that key already there): never detected as either, the reason names both."""
    key, value = _MARKS[other]
    payload = _EXAMPLES[host]
    if other == host or key in payload or key in _DECLARED[host]:
        return
    found = detect({**payload, key: value})
    assert found.schema is None and found.ambiguous
    assert host in found.fits and other in found.fits
    assert found.reason.startswith("ambiguous shape: fits ") and found.reason.endswith("; pass --schema")
    assert "\n" not in found.reason


# --- every command that detects says so --------------------------------------------------------------


def test_validate_fails_it_and_skip_unknown_does_not_skip_it(run_cli: RunCli, both: Path) -> None:
    line = f"{both}:1:1: (root): {REASON} [ambiguous-schema]\n"
    summary = "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped\n"
    assert run_cli(["validate", str(both)], code=1).stdout == line + summary
    assert run_cli(["validate", "--skip-unknown", str(both)], code=1).stdout == line + summary
    chosen = run_cli(["validate", "--schema", "aihc-v2-job", str(both)], code=0).stdout
    assert chosen == "1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"


def test_validate_json_names_the_rule(run_cli: RunCli, both: Path) -> None:
    report = json.loads(run_cli(["validate", "-f", "json", str(both)], code=1).stdout)
    [result] = report["results"]
    assert (result["schema"], [(f["rule"], f["message"]) for f in result["findings"]]) == (
        "",
        [("ambiguous-schema", REASON)],
    )


def test_versions_rejects_it_for_its_api_and_skips_it_for_another(run_cli: RunCli, both: Path) -> None:
    out = run_cli(["versions", "--api", "aihc", "--skip-unknown", str(both)], code=1).stdout
    assert out == (
        f"{both}:1:1: no AIHC version: ambiguous shape: {BOTH} [ambiguous-schema]\n"
        "1 payload, 0 skipped; no AIHC version accepts every payload\n"
    )
    assert run_cli(["versions", str(both)], code=0).stdout == (
        "0 payloads, 1 skipped; no Run:ai payload to judge\n"
    )


def test_diff_refuses_it(run_cli: RunCli, both: Path, tmp_path: Path) -> None:
    result = run_cli(["diff", str(both), str(both)], code=2)
    assert (result.stdout, result.stderr) == ("", f"Error: {both}: {REASON}\n")
    forced = run_cli(["diff", "--schema", "aihc-job-detail", str(both), str(both)], code=0)
    assert forced.stdout == "same (aihc-job-detail, snapshot)\n"


def test_diff_history_passes_over_it(run_cli: RunCli, tmp_path: Path) -> None:
    history = tmp_path / "job.ndjson"
    lines = [V1, {**V1, "job": V2["job"]}, V1]
    history.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = run_cli(["diff", "--history", str(history)], code=2)
    assert result.stderr == f"Error: {history}:2: {REASON}\n"
    assert result.stdout == (
        f"{history}:1 → {history}:3: same\nwarning: {history}:2: {REASON}\nsame (aihc-job-detail, history)\n"
    )


def test_coverage_counts_it_unrecognised_and_names_it(run_cli: RunCli, both: Path) -> None:
    result = run_cli(["coverage", str(both)], code=0)
    assert result.stderr == f"note: {both}: {REASON} (counted as unrecognised)\n"
    assert result.stdout.endswith(
        "unrecognised: 1 (unparsable, or no schema fits; jobschema validate says why)\n"
    )


def test_timeline_names_it_and_leaves_it_out(run_cli: RunCli, both: Path, tmp_path: Path) -> None:
    result = run_cli(["timeline", str(both)], code=2)
    assert result.stderr == f"Error: {both}: ambiguous shape: {BOTH}; left out\n"
    history = tmp_path / "job.ndjson"
    history.write_text(json.dumps(V1) + "\n" + json.dumps({**V1, "job": V2["job"]}) + "\n", encoding="utf-8")
    result = run_cli(["timeline", str(history)], code=2)
    assert result.stderr == f"Error: {history}:2: ambiguous shape: {BOTH}; left out\n"
    assert result.stdout.endswith("1 answer\n1 job: 1 waiting\n")


def test_timeline_names_an_ambiguous_har_body(run_cli: RunCli, tmp_path: Path) -> None:
    url = "https://aihc.bj.baidubce.com/api/v1/aijobs/" + V1["result"]["jobId"]
    entry = {
        "startedDateTime": "2025-07-08T13:03:00Z",
        "request": {"method": "GET", "url": url},
        "response": {
            "status": 200,
            "content": {"mimeType": "application/json", "text": json.dumps({**V1, "job": V2["job"]})},
        },
    }
    har = tmp_path / "job.har"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry]}}), encoding="utf-8")
    result = run_cli(["timeline", str(har)], code=2)
    assert result.stderr == f"Error: {har}#0: ambiguous shape: {BOTH}; left out\n"


def test_redact_masks_what_either_schema_marks(run_cli: RunCli, tmp_path: Path) -> None:
    """A secret only v2's schema marks (``job.Job.imageConfig.username``, a name no policy rule
    masks) is masked in a payload that is v1's and v2's at once, as in v2's own answer."""
    job = json.loads(json.dumps(V2["job"]))
    job["Job"]["imageConfig"]["username"] = "registry-robot-7"
    path = tmp_path / "both.json"
    for payload in ({**V1, "job": job}, {**V2, "job": job}):
        path.write_text(json.dumps(payload), encoding="utf-8")
        out = run_cli(["redact", str(path)], code=0).stdout
        assert "registry-robot-7" not in out
        assert json.loads(out)["job"]["Job"]["imageConfig"]["username"].startswith("<secret:")
    from jobschema.redact.places import _cursor  # the marks read: both schemas'

    cursor = _cursor({**V1, "job": job}, None)
    for token in ("job", "Job", "imageConfig", "username"):
        cursor = cursor.child(token)
    assert cursor.secret_mark is True


# --- a repeated key: the warning stands at the value read and names the first -------------------------


def test_a_repeated_status_warns_at_the_last_and_names_the_first(run_cli: RunCli, tmp_path: Path) -> None:
    """A second ``actualPhase`` hides the first: the warning stands where the value read is, and says
    where the hidden one is (validate, as every command, reads the last)."""
    text = json.dumps(RUNAI, indent=2).replace(
        '"actualPhase": "Creating"', '"actualPhase": "Creating",\n  "actualPhase": "Failed"', 1
    )
    assert text.count('"actualPhase"') == 2
    path = tmp_path / "twice.json"
    path.write_text(text, encoding="utf-8")
    lines = text.split("\n")
    first = next(n for n, line in enumerate(lines, 1) if '"actualPhase"' in line)
    out = run_cli(["validate", str(path)], code=0).stdout
    assert [line for line in out.splitlines() if "duplicate-key" in line] == [
        (
            f'{path}:{first + 1}:18: /actualPhase: warning: duplicate key "actualPhase"; the last one wins '
            f"(the first at line {first}, column 18) [duplicate-key]"
        )
    ]


def test_a_repeated_key_in_an_ndjson_line_names_the_column(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "lines.ndjson"
    path.write_bytes(
        b'{"code": 404, "message": "m"}\r\n\r\n{"code": 404, "message": "a", "message": "b"}\r\n'
    )
    out = run_cli(["validate", str(path)], code=0).stdout
    assert out == (
        f'{path}:3:42: /message: warning: duplicate key "message"; the last one wins (the first at column '
        "26) [duplicate-key]\n2 payloads: 2 valid, 0 invalid; 0 errors, 1 warning; 0 skipped\n"
    )


def test_a_key_repeated_in_an_object_not_read_warns_at_the_root() -> None:
    """``{"a": {"b": 1, "b": 2}, "a": {}}``: the object repeating ``b`` is not the value read."""
    from jobschema.inputs.parse import parse_text
    from jobschema.inputs.payload import Payload

    payload = Payload("t", None).take(parse_text('{"a": {"b": 1, "b": 2}, "a": {}}'))
    assert [(f.pointer, f.message) for f in payload.problems] == [
        ("/a", 'duplicate key "a"; the last one wins (the first at column 7)'),
        ("", 'duplicate key "b"; the last one wins'),
    ]


@pytest.mark.parametrize("count", [2, 3, 50])
def test_equal_objects_that_each_repeat_a_key_are_each_warned_at_their_own_place(count: int) -> None:
    """Objects were told apart by ``==``: equal ones (a list of ``{"a": 1, "a": 2}``) were one, so
    only the first was warned (and each object searched every one before it: quadratic)."""
    from jobschema.inputs.parse import parse_text
    from jobschema.inputs.payload import Payload

    text = "[\n" + ",\n".join('{"a": 1, "a": 2}' for _ in range(count)) + "\n]"
    payload = Payload("t", None).take(parse_text(text))
    assert [(f.pointer, f.message) for f in payload.problems] == [
        (f"/{index}/a", f'duplicate key "a"; the last one wins (the first at line {index + 2}, column 7)')
        for index in range(count)
    ]


@settings(database=None, derandomize=True, max_examples=60)
@given(
    st.lists(st.sampled_from(["x", "y", 0, 1]), max_size=4),
    st.integers(0, 3),
    st.sampled_from(["\n", "\r\n", " "]),
    st.integers(2, 3),
)
def test_a_repeated_key_anywhere_is_placed_at_its_last_value(
    path: list[Any], before: int, newline: str, times: int
) -> None:
    """A key repeated ``times`` in an object at any depth (under keys and indices), with members
    before it, in any layout: the warning's pointer is the key's, its place the last value's, and its
    message names the first value's line and column."""
    from jobschema.findings import Finding
    from jobschema.inputs.parse import parse_text
    from jobschema.inputs.payload import Payload

    members = [f'"m{n}": {n}' for n in range(before)]
    members += [f'"K": "V{n}"' for n in range(times)]
    text = "{" + ("," + newline).join(members) + "}"
    for token in reversed(path):
        text = (
            f"[0,{newline}{text}]"
            if isinstance(token, int) and token == 1
            else (f"[{text}]" if isinstance(token, int) else f'{{"{token}":{newline}{text}}}')
        )
    tokens = tuple(1 if token == 1 else 0 if isinstance(token, int) else token for token in path)

    def place(needle: str) -> tuple[int, int]:
        at = text.index(needle)
        return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1

    payload = Payload("t", None, text=text).take(parse_text(text))
    [warning] = payload.problems
    assert warning.tokens == (*tokens, "K")
    line, column = place('"V0"')
    where = f"line {line}, column {column}" if line > 1 else f"column {column}"
    assert warning.message == f'duplicate key "K"; the last one wins (the first at {where})'
    from jobschema.inputs.locate import locate_parsed

    placed = locate_parsed(text, payload.value, [warning.tokens], payload.repeats)
    assert placed[tuple(map(str, warning.tokens))] == place(f'"V{times - 1}"')
    assert isinstance(warning, Finding)


# --- what JSON5 / JSONC allows and JSON does not: named, at its place, in every command --------------

JSON5 = {
    "trailing-comma-object": (
        '{\n  "code": 404,\n  "message": "m",\n}\n',
        3,
        17,
        "a trailing comma before '}' (JSON allows none: remove it)",
    ),
    "trailing-comma-array": (
        '{"code": 404, "message": "m", "details": [1,\n 2, ]}',
        2,
        3,
        "a trailing comma before ']' (JSON allows none: remove it)",
    ),
    "line-comment": (
        '{\n  // the answer\n  "code": 404, "message": "m"}',
        2,
        3,
        "a comment (JSON has none: remove it)",
    ),
    "block-comment": (
        '{"code": 404 /* not found */, "message": "m"}',
        1,
        14,
        "a comment (JSON has none: remove it)",
    ),
    "single-quotes": (
        "{'code': 404, 'message': 'm'}",
        1,
        2,
        "a string in single quotes (JSON strings take double quotes)",
    ),
    "unquoted-key": (
        '{code: 404, "message": "m"}',
        1,
        2,
        "a key without quotes (code: JSON keys take double quotes)",
    ),
}


@pytest.mark.parametrize(("text", "line", "column", "message"), JSON5.values(), ids=JSON5.keys())
def test_json5_allowances_are_named_at_their_place(
    run_cli: RunCli, tmp_path: Path, text: str, line: int, column: int, message: str
) -> None:
    path = tmp_path / "answer.json"
    path.write_text(text, encoding="utf-8")
    where = f"{path}:{line}:{column}"
    assert run_cli(["validate", str(path)], code=1).stdout == (
        f"{where}: (root): invalid JSON: {message} [parse-error]\n"
        "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped\n"
    )
    for args, code in (
        (["diff", str(path), str(path)], 2),
        (["redact", str(path)], 1),
        (["timeline", str(path)], 2),
    ):
        result = run_cli(args, code=code)
        assert result.stderr == f"Error: {where}: invalid JSON: {message}\n", args
    crlf = tmp_path / "answer-crlf.json"
    crlf.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    assert run_cli(["validate", str(crlf)], code=1).stdout.startswith(f"{crlf}:{line}:{column}: ")
    lines = tmp_path / "answers.ndjson"  # (an NDJSON line: its line in the file, the column in it)
    one = text.replace("\n", " ")
    lines.write_text('{"code": 404, "message": "m"}\n' + one + "\n", encoding="utf-8")
    column_in_line = len(text[: sum(len(part) + 1 for part in text.split("\n")[: line - 1]) + column - 1]) + 1
    assert run_cli(["validate", str(lines)], code=1).stdout.startswith(
        f"{lines}:2:{column_in_line}: (root): invalid JSON: {message} [parse-error]\n"
    )


@settings(database=None, derandomize=True, max_examples=80)
@given(
    st.recursive(
        st.integers(0, 9).map(str) | st.sampled_from(['"s"', "true", "null"]),
        lambda inner: (
            st.lists(inner, min_size=1, max_size=3).map(lambda items: "[" + ", ".join(items) + "]")
            | st.lists(inner, min_size=1, max_size=3).map(
                lambda items: "{" + ", ".join(f'"k{n}": {v}' for n, v in enumerate(items)) + "}"
            )
        ),
        max_leaves=8,
    ),
    st.data(),
    st.sampled_from(["", " ", "\n", "\r\n  "]),
)
def test_a_trailing_comma_anywhere_is_named_at_the_comma(text: str, data: st.DataObject, space: str) -> None:
    """Any JSON text with a comma added before one of its closing brackets (and any whitespace
    between): the error names the trailing comma, at the comma's line and column."""
    from jobschema.inputs.parse import parse_text

    closers = [at for at, char in enumerate(text) if char in "]}"]
    if not closers:
        return
    at = data.draw(st.sampled_from(closers))
    broken = text[:at] + "," + space + text[at:]
    error = parse_text(broken).error
    assert error is not None
    before = broken[:at]
    assert (error.line, error.column) == (before.count("\n") + 1, at - (before.rfind("\n") + 1) + 1)
    assert (
        error.message == f"invalid JSON: a trailing comma before '{text[at]}' (JSON allows none: remove it)"
    )


# --- a HAR body that is no JSON says what its mimeType says ------------------------------------------


def _har(tmp_path: Path, content: dict[str, Any]) -> Path:
    url = "https://runai.example.com/api/v1/workloads/distributed/" + RUNAI["workloadId"]
    entry = {
        "startedDateTime": "2025-01-01T00:00:00Z",
        "request": {"method": "GET", "url": url, "headers": []},
        "response": {"status": 200, "headers": [], "content": content},
    }
    path = tmp_path / "job.har"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry]}}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("mime", "said"),
    [
        ("text/html", ' (HAR content.mimeType is "text/html": the answer is no JSON)'),
        (
            "text/html; charset=utf-8",
            ' (HAR content.mimeType is "text/html; charset=utf-8": the answer is no JSON)',
        ),
        ("application/json", ""),
        ("application/problem+json", ""),
        ("text/plain", ""),
        ("", ""),
    ],
)
def test_a_har_body_that_is_no_json_names_its_mime_type(
    run_cli: RunCli, tmp_path: Path, mime: str, said: str
) -> None:
    har = _har(tmp_path, {"mimeType": mime, "text": "<!DOCTYPE html><html>Sign in</html>"})
    message = f"invalid JSON: Expecting value{said}"
    out = run_cli(["validate", str(har)], code=1).stdout
    assert out.splitlines()[0].endswith(f": (root): {message} [parse-error]")
    assert run_cli(["timeline", str(har)], code=2).stderr == f"Error: {har}#0: {message}\n"


def test_json_in_a_body_labelled_html_is_read(run_cli: RunCli, tmp_path: Path) -> None:
    har = _har(tmp_path, {"mimeType": "text/html", "text": json.dumps(RUNAI)})
    assert (
        run_cli(["validate", "-f", "json", str(har)], code=0).stdout.count(
            '"schema": "runai-distributed-workload"'
        )
        == 1
    )


# --- a lone surrogate: JSON's grammar allows it, no Unicode text holds it ----------------------------


LONE = "a lone surrogate ({}) is no Unicode character: Go and Rust read U+FFFD, Python and JavaScript keep it"


def test_a_lone_surrogate_warns_at_its_string(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "lone.json"
    path.write_text(
        '{"code": 404,\n "message": "not found \\udc00",\n "details": ["\\uD800", "\\ud83d\\ude00"]}'
    )
    report = json.loads(run_cli(["validate", "-f", "json", str(path)], code=1).stdout)
    found = [(f["pointer"], f["line"], f["column"], f["message"]) for f in report["results"][0]["findings"]]
    assert [item for item in found if "surrogate" in item[3]] == [
        ("/message", 2, 13, LONE.format("\\udc00")),
        ("/details/0", 3, 14, LONE.format("\\ud800")),
    ]
    pair = tmp_path / "pair.json"  # (a pair of escapes is one character: nothing to say)
    pair.write_text('{"code": 404, "message": "\\ud83d\\ude00"}')
    assert run_cli(["validate", str(pair)], code=0).stdout == (
        "1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"
    )


@settings(database=None, derandomize=True, max_examples=60)
@given(
    st.lists(st.sampled_from(["k", "x", 0]), max_size=3),
    st.integers(0xD800, 0xDFFF),
    st.sampled_from(["", "a", "\\ud83d\\ude00"]),
    st.booleans(),
)
def test_a_lone_surrogate_anywhere_is_named_once(
    path: list[Any], code: int, around: str, in_key: bool
) -> None:
    """A lone surrogate escape in a string or a key at any depth: one warning, at that place, naming
    the escape in lower case."""
    from jobschema.inputs.parse import parse_bytes
    from jobschema.inputs.payload import Payload

    escape = f"\\u{code:04X}"
    text = f'{{"{around}{escape}": 1}}' if in_key else f'"{around}{escape}{around}"'
    tokens: tuple[Any, ...] = ()
    for token in reversed(path):
        text = f"[{text}]" if token == 0 else f'{{"{token}": {text}}}'
    for token in path:
        tokens += (token,)
    key = json.loads(f'"{around}{escape}"') if in_key else None
    expected = (*tokens, key) if in_key else tokens
    payload = Payload("t", None).take(parse_bytes(text.encode("utf-8")))
    assert [(f.tokens, f.rule, f.message) for f in payload.problems] == [
        (expected, "lone-surrogate", LONE.format(f"\\u{code:04x}"))
    ]


# --- a top-level array of payloads -------------------------------------------------------------------


def test_an_array_of_payloads_says_how_to_read_them(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "all.json"
    path.write_text(json.dumps([RUNAI, RUNAI_ERROR, {"other": 1}], indent=2), encoding="utf-8")
    why = (
        "top level is an array, not a JSON object; no schema fits (2 of its 3 items fit one: jq -c '.[]' "
        "writes them one a line, NDJSON, which is read payload by payload)"
    )
    assert run_cli(["validate", str(path)], code=1).stdout == (
        f"{path}:1:1: (root): {why} [no-schema]\n"
        "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped\n"
    )
    assert run_cli(["diff", str(path), str(path)], code=2).stderr == f"Error: {path}: {why}\n"
    lines = tmp_path / "all.ndjson"  # (what the advice writes is read payload by payload)
    lines.write_text("".join(json.dumps(item) + "\n" for item in (RUNAI, RUNAI_ERROR)), encoding="utf-8")
    assert "\n2 payloads: 2 valid, 0 invalid; 0 errors, " in run_cli(["validate", str(lines)], code=0).stdout
    assert detect([1, {"a": 1}]).reason == "top level is an array, not a JSON object; no schema fits"


_AMBIGUOUS = {
    "v1-and-v2": {**V1, "job": V2["job"]},
    "aihc-error-and-v2": {**AIHC_ERROR, "job": V2["job"]},
    "v1-and-aihc-error": {**V1, "code": "AccessDenied", "message": "m"},
    "raw-request-and-v1": {**RAW, "result": V1["result"]},
    "runai-error-and-aihc": {**RUNAI_ERROR, "requestId": "r"},
    "runai-and-v1": {**RUNAI, "result": V1["result"]},
}


@pytest.mark.parametrize("payload", _AMBIGUOUS.values(), ids=_AMBIGUOUS.keys())
def test_every_command_refuses_every_ambiguous_shape_alike(
    run_cli: RunCli, tmp_path: Path, payload: dict[str, Any]
) -> None:
    path = tmp_path / "capture.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    reason = detect(payload).reason
    assert reason.startswith("ambiguous shape: ")
    assert run_cli(["validate", "--skip-unknown", str(path)], code=1).stdout.startswith(
        f"{path}:1:1: (root): {reason} [ambiguous-schema]\n"
    )
    assert run_cli(["diff", str(path), str(path)], code=2).stderr == f"Error: {path}: {reason}\n"
    note = run_cli(["coverage", str(path)], code=0).stderr
    assert note == f"note: {path}: {reason} (counted as unrecognised)\n"
    why = reason.removesuffix("; pass --schema")
    assert run_cli(["timeline", str(path)], code=2).stderr == f"Error: {path}: {why}; left out\n"
    api = "runai" if "runai" in reason else "aihc"
    out = run_cli(["versions", "--api", api, str(path)], code=1).stdout
    assert f": {why} [ambiguous-schema]\n" in out


def test_changes_names_an_ambiguous_capture_of_a_compared_schema(run_cli: RunCli, tmp_path: Path) -> None:
    """``changes OLD NEW CAPTURES`` counts captures by their schema: one that may be a compared
    schema's and another's is named and not counted (exit 2, as an unread capture); one whose
    schemas are none of the compared is another API's, passed over as before."""
    ambiguous = tmp_path / "ambiguous.json"
    ambiguous.write_text(json.dumps({**RUNAI_ERROR, "requestId": "r"}), encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**V1, "job": V2["job"]}), encoding="utf-8")
    result = run_cli(["changes", "runai@2.19", "runai@2.20", str(ambiguous), str(other)], code=2)
    assert result.stderr == (
        f"Error: {ambiguous}: ambiguous shape: fits runai-error (its integer 'code') and an AIHC answer "
        "(its 'requestId'); not counted\n"
    )


def _gzip_text() -> str:
    import gzip

    return gzip.compress(json.dumps(RUNAI).encode("utf-8"), mtime=0).decode("latin-1")


def _gzip_base64() -> str:
    import base64
    import gzip

    return base64.b64encode(gzip.compress(json.dumps(RUNAI).encode("utf-8"), mtime=0)).decode("ascii")


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (
            {"mimeType": "application/json", "text": "GZIP-TEXT"},
            "(root): response body is gzip-compressed, not JSON text: decompress it first [encoding]",
        ),
        (
            {"mimeType": "application/json", "encoding": "base64", "text": "GZIP-BASE64"},
            "(root): response body is gzip-compressed, not JSON text: decompress it first [encoding]",
        ),
        (
            {"mimeType": "application/json", "encoding": "gzip", "text": "GZIP-BASE64"},
            '(root): invalid JSON: Expecting value (HAR content.encoding is "gzip": only base64 is decoded) '
            "[parse-error]",
        ),
    ],
    ids=["gzip-bytes-as-text", "gzip-in-base64", "encoding-gzip"],
)
def test_a_compressed_har_body_is_named_as_such(
    run_cli: RunCli, tmp_path: Path, content: dict[str, Any], line: str
) -> None:
    text = content["text"].replace("GZIP-TEXT", _gzip_text()).replace("GZIP-BASE64", _gzip_base64())
    har = _har(tmp_path, {**content, "text": text})
    first = run_cli(["validate", str(har)], code=1).stdout.splitlines()[0]
    assert first.endswith(f": {line}")
    message = line.removeprefix("(root): ").rsplit(" [", 1)[0]
    assert run_cli(["timeline", str(har)], code=2).stderr == f"Error: {har}#0: {message}\n"


def test_a_har_body_declared_gzip_that_is_json_text_is_read(run_cli: RunCli, tmp_path: Path) -> None:
    """A tool that records the server's ``Content-Encoding`` but stores the text decoded: read."""
    har = _har(tmp_path, {"mimeType": "application/json", "encoding": "gzip", "text": json.dumps(RUNAI)})
    assert "\n1 payload: 1 valid, 0 invalid; 0 errors, " in run_cli(["validate", str(har)], code=0).stdout
