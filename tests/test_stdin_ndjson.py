"""NDJSON piped to ``-``: read as a stream of lines when it is NDJSON (validate and redact), a JSON
document read whole otherwise; what tells them apart (:func:`jobschema.inputs.read.sniff_stdin`)."""

from __future__ import annotations

import io
import json

import pytest

from jobschema.inputs.read import sniff_stdin
from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures" / "redact"
EXAMPLES = sorted((REPO / "schemas" / "examples").glob("*/*.json"))


def _ndjson(paths, blank_after: int | None = None) -> str:
    lines = [json.dumps(json.loads(p.read_text(encoding="utf-8"))) for p in paths]
    if blank_after is not None:
        lines.insert(blank_after, "")
    return "\n".join(lines) + "\n"


def test_ndjson_on_stdin_is_one_payload_per_line(run_cli) -> None:
    result = run_cli(["validate", "-v", "-"], code=0, input=_ndjson(EXAMPLES[:3]))
    assert result.stdout.splitlines()[:3] == [
        "<stdin>:1: ok (aihc-error)",
        "<stdin>:2: ok (aihc-error)",
        "<stdin>:3: ok (aihc-job-detail)",
    ]
    assert result.stdout.splitlines()[-1].startswith("3 payloads: 3 valid")


def test_ndjson_lines_keep_their_numbers_past_blank_lines(run_cli) -> None:
    text = _ndjson(EXAMPLES[:2], blank_after=1) + '{"code": 404}\n'
    result = run_cli(["validate", "-"], code=1, input=text)
    assert result.stdout.splitlines()[0].startswith("<stdin>:4:1: (root): no bundled schema fits")


def test_a_bad_line_is_that_line_only(run_cli) -> None:
    text = _ndjson(EXAMPLES[:1]) + '{"code": \n' + _ndjson(EXAMPLES[1:2])
    result = run_cli(["validate", "-"], code=1, input=text)
    assert result.stdout.splitlines() == [
        "<stdin>:2:10: (root): invalid JSON: Expecting value [parse-error]",
        "3 payloads: 2 valid, 1 invalid; 1 error, 0 warnings; 0 skipped",
    ]


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "requestId": "r",\n  "code": "NotFound",\n  "message": "m"\n}\n',  # pretty-printed
        '{"requestId": "r", "code": "NotFound", "message": "m"}\n',  # one line, one document
        '{"requestId": "r", "code": "NotFound", "message": "m"}',  # no line end
        '{"requestId": "r", "code": "NotFound", "message": "m"}\n\n\n',  # blank lines after it
    ],
    ids=["pretty", "one-line", "no-newline", "trailing-blanks"],
)
def test_a_json_document_is_still_one_document(run_cli, text: str) -> None:
    result = run_cli(["validate", "-v", "-"], code=0, input=text)
    assert result.stdout.splitlines()[0] == "<stdin>: ok (aihc-error)"


def test_two_documents_that_are_not_one_per_line_stay_an_error(run_cli) -> None:
    result = run_cli(["validate", "-"], code=1, input='{\n"a": 1}\n{"b": 2}\n')
    assert result.stdout.splitlines()[0] == "<stdin>:3:1: (root): invalid JSON: Extra data [parse-error]"


def test_sniffing_reads_no_more_than_two_lines() -> None:
    stream = io.BytesIO(b'{"a": 1}\n\n{"b": 2}\n{"c": 3}\n')
    sniffed = sniff_stdin(stream)
    assert (sniffed.ndjson, sniffed.head) == (True, (b'{"a": 1}\n', b"\n", b'{"b": 2}\n'))
    assert stream.read() == b'{"c": 3}\n'
    document = sniff_stdin(io.BytesIO(b"[1,\n2]\n"))
    assert (document.ndjson, document.whole()) == (False, b"[1,\n2]\n")


def test_redact_streams_ndjson_from_stdin(run_cli) -> None:
    data = (FIXTURES / "jobs.ndjson").read_bytes()
    piped = run_cli(["redact", "-"], code=0, input=data)
    from_file = run_cli(["redact", str(FIXTURES / "jobs.ndjson")], code=0)
    assert piped.stdout == from_file.stdout
    assert piped.stdout != data.decode("utf-8")


def test_redact_check_names_stdin_lines(run_cli) -> None:
    data = (FIXTURES / "jobs.ndjson").read_bytes()
    piped = run_cli(["redact", "--check", "-"], code=1, input=data)
    from_file = run_cli(["redact", "--check", str(FIXTURES / "jobs.ndjson")], code=1)
    name = str(FIXTURES / "jobs.ndjson")
    assert piped.stdout == from_file.stdout.replace(name, "<stdin>")
    assert piped.stdout.startswith("<stdin>:1: ")
