"""The secret tests' oracle, :func:`tests.test_secrets_forms.revealed`, decodes a text of many lines
in parts (line by line where no decoding can span the break) and remembers each part's decodings.
Held here to the reference: the whole text decoded at every depth, as it was first written. Whatever
the reference shows of a planted secret, the parts show too."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.secret_forms import ENCODINGS, HOLDERS, pieces
from tests.test_secrets_forms import _decodings, revealed


def whole(text: str, depth: int = 4) -> str:
    """The reference: ``text`` and every decoding of the whole of it, revealed again, joined."""
    found = [text]
    if depth:
        found.extend(whole(decoded, depth - 1) for decoded in _decodings(text))
    return "\n".join(found)


SECRETS = st.sampled_from(
    ["PLNT0001-s3cr3t-Tok3n-value", "ghp_PLNT0002abcdefghijklmnopqrstuvwxyz01", "p@ss:PLNT0003/+=&%"]
)
FORMS = st.sampled_from(
    [
        "password: {}",
        "--api-key {}",
        'export TOKEN="{}"',
        "Authorization: Bearer {}",
        "postgres://bob:{}@db/x",
        "-----BEGIN KEY-----\n{}\n-----END KEY-----",
    ]
)
#: What starts a line of an output: a JSON document, indentation, markup, a path, a word, an escape.
STARTS = st.sampled_from(["", "{", "  ", "<", "/tmp/a.ndjson:3: ", "note ", "%", "&", "\\", "=", "-"])


@st.composite
def outputs(draw: st.DrawFn) -> tuple[str, str]:
    """An output of several lines, one of which holds a secret in a form, holder and encoding."""
    secret = draw(SECRETS)
    text = draw(FORMS).format(secret)
    text = HOLDERS[draw(st.sampled_from(sorted(HOLDERS)))](text)
    text = ENCODINGS[draw(st.sampled_from(sorted(ENCODINGS)))](text)
    if draw(st.booleans()):
        text = json.dumps({"value": text})
    lines = [draw(STARTS) + draw(st.text(max_size=12)) for _ in range(draw(st.integers(0, 3)))]
    lines.insert(draw(st.integers(0, len(lines))), draw(STARTS) + text)
    return secret, draw(st.sampled_from(["\n", "\r\n"])).join(lines)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(outputs())
def test_the_parts_show_whatever_the_whole_shows(case: tuple[str, str]) -> None:
    secret, text = case
    reference, parts = whole(text), revealed(text)
    assert [piece for piece in pieces(secret) if piece in reference and piece not in parts] == []
    assert revealed(text) == parts  # (remembered: the same the second time)


def test_an_ndjson_output_is_decoded_line_by_line() -> None:
    line = json.dumps({"value": "cfg=password%3APLNT0009xyz"})
    text = "\n".join([line, json.dumps({"other": 1}), line])
    assert "password:PLNT0009xyz" in revealed(text)
    assert "password:PLNT0009xyz" in whole(text)
