"""A value a later repeat of its key hides is still in the text redact writes: it is read by the same
walk as the parsed document (:mod:`jobschema.redact.hidden`), and one holding a secret is an error of
the input, never written in clear. Duplicates that hide nothing secret change nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.redact.core import redact_bytes, redact_text
from jobschema.redact.hidden import MOST_REPEATS

TOKEN = "ghp_0123456789abcdefABCDEF0123456789abcd"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

HIDING = [
    (
        '{"a": {"token": "JWT"}, "a": 1}'.replace("JWT", JWT),
        '{"a": 1}',
        ["/a/token"],
    ),
    (
        '{"a": {"password": "hunter2hunter"}, "a": {"password": "x"}, "b": 2}',
        '{"a": {"password": "MASK"}, "b": 2}',
        ["/a/password"],
    ),
    (
        '{"workloadId": "w", "spec": {"environmentVariables": '
        '[{"name": "DB_PASSWORD", "value": "hunter2xyz", "value": "ok"}]}}',
        '{"workloadId": "w", "spec": {"environmentVariables": [{"name": "DB_PASSWORD", "value": "MASK"}]}}',
        ["/spec/environmentVariables/0/value"],
    ),
    (
        '{"log":{"entries":[{"request":{"method":"GET","url":"https://x/api","headers":[{"name":'
        '"Authorization","value":"Bearer abcdefghijklmnop123456"}]},"response":{"status":200,'
        '"content":{"text":"{}"}}}], "entries":[]}}',
        '{"log":{"entries":[]}}',
        ["/log/entries/0/request/headers/0/value"],
    ),
    (
        '{"x": [{"k": "see TOKEN", "k": "", "k": "plain"}]}'.replace("TOKEN", TOKEN),
        '{"x": [{"k": "plain"}]}',
        ["/x/0/k"],
    ),
]


@pytest.mark.parametrize(("text", "expected", "pointers"), HIDING)
def test_a_hidden_secret_is_left_out_as_every_reader_leaves_it_out(
    text: str, expected: str, pointers: list[str]
) -> None:
    """The document is written again in its own style without the repeats (as when a repeated key's
    kept value is masked), and the hidden secrets are reported where a reader of them would look."""
    redacted = redact_text(text)
    masks = re.findall(r"<secret:[0-9a-f]+>", redacted.text)
    assert re.sub(r"<secret:[0-9a-f]+>", "MASK", redacted.text) == expected
    assert len(masks) == expected.count("MASK")
    assert sorted(secret.pointer for secret in redacted.secrets) == pointers
    assert redacted.problems == ()


def test_check_reports_a_hidden_secret_and_redact_leaves_it_out(run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(HIDING[0][0], encoding="utf-8")
    result = run_cli(["redact", "--check", str(path)], code=1)
    assert result.stdout == f"{path}: /a/token: unmasked secret [redact]\n"
    result = run_cli(["redact", str(path)], code=0)
    assert result.stdout == '{"a": 1}'
    assert path.read_text(encoding="utf-8") == HIDING[0][0]


def test_a_line_of_ndjson_is_read_alone() -> None:
    text = '{"a": 1}\n{"t": "TOKEN", "t": 2}\n{"b": "x", "b": "y"}\n'.replace("TOKEN", TOKEN)
    redacted = redact_text(text, "ndjson")
    assert redacted.text == '{"a": 1}\n{"t": 2}\n{"b": "x", "b": "y"}\n'
    assert [(s.pointer, s.line) for s in redacted.secrets] == [("/t", 2)]


def test_an_embedded_document_that_hides_a_secret_is_redacted_as_one() -> None:
    inner = '{"password": "hunter2hunter", "password": "x"}'
    entry = {
        "request": {"method": "POST", "url": "https://h/p"},
        "response": {"status": 200, "content": {"mimeType": "application/json", "text": inner}},
    }
    redacted = redact_text(json.dumps({"log": {"entries": [entry]}}), "har")
    assert redacted.problems == ()
    assert "hunter2hunter" not in redacted.text


@pytest.mark.parametrize(
    "text",
    ['{"a": 1, "a": 2}', '{"phase": "Pending", "phase": "Running", "b": [1, {"c": "d", "c": "e"}]}'],
)
def test_duplicates_that_hide_nothing_secret_change_nothing(text: str) -> None:
    redacted = redact_text(text)
    assert (redacted.text, redacted.problems, redacted.secrets) == (text, (), ())


def test_too_many_repeats_to_read_is_an_error() -> None:
    text = "{" + ", ".join(['"a": "x"'] * (MOST_REPEATS + 1)) + "}"
    (problem,) = redact_text(text).problems
    assert problem.message == (
        f"(root): a key is repeated more than {MOST_REPEATS} times in one object; "
        "the values it hides cannot all be read: remove the repeats by hand"
    )
    assert redact_text("{" + ", ".join(['"a": "x"'] * MOST_REPEATS) + "}").problems == ()


CREDENTIALS = st.sampled_from(
    [TOKEN, JWT, "Bearer abcdefghijklmnop123456", "postgres://u:Sup3rS3cret@db/x", "password=hunter2hunter"]
)
SAFE = st.text(alphabet="abcdefgh ", max_size=8)
KEYS = st.sampled_from(["a", "b", "c"])


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in pairs) + "}"


@st.composite
def _documents(draw: st.DrawFn) -> tuple[str, str]:
    """A document whose objects repeat keys, one hidden occurrence holding a credential, nested."""
    secret = draw(CREDENTIALS)
    key = draw(KEYS)
    hidden = json.dumps({"note": secret}) if draw(st.booleans()) else json.dumps(secret)
    pairs = [(k, json.dumps(draw(SAFE))) for k in draw(st.lists(KEYS, max_size=3))]
    pairs.insert(draw(st.integers(0, len(pairs))), (key, hidden))
    pairs.append((key, json.dumps(draw(SAFE))))  # the last occurrence wins: the secret is hidden
    text = _object(pairs)
    for _ in range(draw(st.integers(0, 3))):
        text = _object([(draw(KEYS), text), ("z", "1")]) if draw(st.booleans()) else f"[{text}, 2]"
    return text, secret


@settings(max_examples=200, deadline=None)
@given(_documents())
def test_no_hidden_credential_is_ever_written(case: tuple[str, str]) -> None:
    text, secret = case
    redacted = redact_bytes(text.encode("utf-8"), "json")
    assert redacted.problems == ()
    assert secret not in redacted.text
    assert redacted.secrets
