"""How ``jobschema diff`` reads its documents: orjson alone wherever it reads the value the exact
parser reads (repeated keys included), the exact parser where it must decide, and documents nested
too deeply to compare as a one-line error."""

from __future__ import annotations

import gc
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.diff.documents import _SLICE, DiffInputError, document_value, parse_document
from jobschema.inputs.parse import MISSING, parse_exactly
from tests.support import EXAMPLES

#: Few key names, so objects repeat keys often.
KEYS = st.sampled_from(["a", "b", "c", "é", "", "a:b", "💡"])
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**18) + 1, max_value=10**18 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
#: JSON values with objects as ``("object", [(key, value), ...])``: a key may come twice.
TREES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(st.just("object"), st.lists(st.tuples(KEYS, inner), max_size=5))
    ),
    max_leaves=30,
)


def _text(tree: Any, ascii_only: bool) -> str:
    """The JSON text of ``tree``, every pair of an object written, repeated keys too."""
    if isinstance(tree, list):
        return "[" + ", ".join(_text(item, ascii_only) for item in tree) + "]"
    if isinstance(tree, tuple):
        pairs = (
            f"{json.dumps(key, ensure_ascii=ascii_only)}: {_text(value, ascii_only)}"
            for key, value in tree[1]
        )
        return "{" + ",".join(pairs) + "}"
    return json.dumps(tree, ensure_ascii=ascii_only)


@settings(max_examples=300, deadline=None, database=None)
@given(TREES, st.booleans())
def test_orjson_reads_what_the_exact_parser_reads(tree: Any, ascii_only: bool) -> None:
    text = _text(tree, ascii_only)
    exact = parse_exactly(text)
    assert exact.ok
    value = document_value(text.encode("utf-8"))
    if value is MISSING:  # only where a run of 19 digits might be an integer orjson reads as a float
        assert re.search(r"[0-9]{19}", text)
        value = parse_document("f.json", text.encode("utf-8"))
    # repr tells True from 1, 1 from 1.0 and -0.0 from 0.0, and shows the order of every object's keys
    assert repr(value) == repr(exact.value)


def test_a_repeated_key_keeps_the_last_value_at_the_first_place() -> None:
    text = b'{"a": 1, "b": {"x": 1, "x": [true]}, "a": 2.0}'
    assert repr(document_value(text)) == repr({"a": 2.0, "b": {"x": [True]}})


@pytest.mark.parametrize("offset", [0, _SLICE - 10, _SLICE - 1, _SLICE, 3 * _SLICE - 18])
def test_a_long_integer_is_left_to_the_exact_parser_wherever_it_stands(offset: int) -> None:
    number = 12345678901234567890123
    data = b'{"pad": "' + b"x" * offset + b'", "n": ' + str(number).encode() + b"}"
    assert document_value(data) is MISSING
    assert parse_document("f.json", data)["n"] == number  # an int, not orjson's float


def test_eighteen_digits_are_read_by_orjson() -> None:
    assert document_value(b'{"n": 123456789012345678}') == {"n": 123456789012345678}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "f.json: file is empty"),
        (b'{"a": NaN}', "f.json:1:7: invalid JSON: NaN is not a JSON value"),
        (b'{"a": 1e400}', "f.json:1:7: invalid JSON: number 1e400 is too large for a double (it overflows)"),
        (b'{"a": "\\ud800"}', None),
        (b"\xef\xbb\xbf{}", None),
        (b'{"a": "\xff"}', "f.json: file is not UTF-8: invalid byte 0xff at line 1, column 8"),
    ],
)
def test_what_orjson_rejects_is_decided_by_the_exact_parser(data: bytes, message: str | None) -> None:
    assert document_value(data) is MISSING or data.startswith(b"\xef\xbb\xbf")
    if message is None:
        assert parse_document("f.json", data) == parse_exactly(data.decode("utf-8-sig")).value
        return
    with pytest.raises(DiffInputError) as caught:
        parse_document("f.json", data)
    assert str(caught.value) == message


def _nested(path: Path, depth: int, leaf: int) -> str:
    """A job-detail-shaped object whose ``x`` is ``leaf`` inside ``depth`` arrays."""
    path.write_text(f'{{"code": 1, "x": {"[" * depth}{leaf}{"]" * depth}}}', encoding="utf-8")
    return str(path)


def test_a_document_nested_too_deeply_to_compare_is_a_one_line_error(run_cli, tmp_path: Path) -> None:
    left, right = _nested(tmp_path / "l.json", 900, 1), _nested(tmp_path / "r.json", 900, 2)
    result = run_cli(["diff", "--schema", "aihc-job-detail", left, right], code=2)
    assert result.stdout == ""
    assert result.stderr == f"Error: {left} and {right}: nested too deeply to compare\n"


def test_a_document_nested_deeper_than_orjson_reads_is_a_parse_error(run_cli, tmp_path: Path) -> None:
    left, right = _nested(tmp_path / "l.json", 1100, 1), _nested(tmp_path / "r.json", 2, 2)
    result = run_cli(["diff", "--schema", "aihc-job-detail", left, right], code=2)
    assert result.stderr == f"Error: {left}: invalid JSON: nested too deeply to parse\n"


def test_a_document_nested_deeply_but_within_reach_is_compared(run_cli, tmp_path: Path) -> None:
    left, right = _nested(tmp_path / "l.json", 150, 1), _nested(tmp_path / "r.json", 150, 2)
    out = run_cli(["diff", "--schema", "aihc-job-detail", "--format", "json", left, right], code=1).stdout
    assert [change["path"] for change in json.loads(out)["changes"]] == ["x" + "[0]" * 150]


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_it_was(run_cli, enabled: bool) -> None:
    folder = EXAMPLES / "diff" / "runai-env-value-changed"
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        run_cli(["diff", str(folder / "left.json"), str(folder / "right.json")], code=1)
        assert gc.isenabled() is enabled
        parse_document("f.json", b'{"a": [1]}')
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
