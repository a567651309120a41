"""Round 7 of the review of ``jobschema changes``: cases no earlier review listed.

Classes found and fixed here:

- **a schema file taken half-checked**: a local ``$ref`` to nothing was read as "any value" and a
  ``pattern`` that is no regular expression was an internal error; a pattern only ECMA-262 reads
  (``\\p{L}``, which ``validate`` takes) was an internal error while its witness was drawn. Now the
  first two are one line naming the file and place (exit 2, as ``coverage`` says it) and the last
  is reported without a witness, as a schema whose payloads cannot be drawn is.
- **an unreadable capture named without its problem**: ``capture could not be read``; now where and
  why, as ``validate`` and ``coverage`` place it.
- **a name that differs from a bundled one by case**: ``RUNAI-ERROR``, ``Runai-Distributed-Workload@2.19``
  now say which one was meant.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from jobschema.changes import compare
from jobschema.schemas import versions

VERSIONS = versions.known("runai")


def _write(folder: Path, name: str, value: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_a_pattern_only_ecma_reads_is_compared_without_a_witness(run_cli, tmp_path: Path) -> None:
    old = _write(
        tmp_path,
        "old.json",
        {"type": "object", "properties": {"x": {"type": "string", "pattern": "^\\p{L}+$"}}},
    )
    new = _write(
        tmp_path,
        "new.json",
        {"type": "object", "properties": {"x": {"type": "string", "pattern": "^[a-z]+$"}}},
    )
    result = run_cli(["changes", str(old), str(new), "-f", "json"], code=0)
    assert "internal error" not in result.stderr
    (change,) = json.loads(result.stdout)["changes"]
    assert (change["path"], change["rule"], "witness" in change) == ("/x", "pattern-changed", False)


def test_an_unreadable_capture_is_named_with_where_and_why(run_cli, tmp_path: Path) -> None:
    cut = tmp_path / "cut.json"
    cut.write_text('{"code": 404, "message":', encoding="utf-8")
    lines = tmp_path / "caps.ndjson"
    lines.write_text('{"code": 404, "message": "m"}\n{"code": 4\x00}\n', encoding="utf-8")
    result = run_cli(
        ["changes", "runai-error@2.18", "runai-error@2.24", str(cut), str(lines), "--no-witnesses"], code=2
    )
    errors = result.stderr.splitlines()
    assert errors[0].startswith(f"Error: {cut}:1:") and errors[0].endswith("; not counted")
    assert errors[1].startswith(f"Error: {lines}:2:") and errors[1].endswith("; not counted")
    assert "invalid JSON" in errors[0] and len(errors) == 2


@pytest.mark.parametrize(
    ("side", "meant"),
    [
        ("RUNAI-ERROR", "runai-error"),
        ("Runai-Distributed-Workload@2.19", "runai-distributed-workload"),
        ("aihc_error", "aihc-error"),
    ],
)
def test_a_name_differing_by_case_or_spelling_says_which_was_meant(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, side: str, meant: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli(["changes", side, "runai@2.24", "--no-witnesses"], code=2)
    assert f"did you mean {meant}?" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("form", ["2.19", "v2.19", "V2.19", "2.19.3", "2.19.0.1", " 2.19"])
def test_a_version_in_any_written_form_is_that_version(form: str) -> None:
    plain = [(c.rule, c.place, c.since) for c in compare("runai@2.19", "runai@2.24")]
    assert [(c.rule, c.place, c.since) for c in compare(f"RunAI@{form}", "runai@2.24")] == plain


@pytest.mark.parametrize("form", ["2", "2.17", "2.25", "latest", "\uff12.\uff11\uff19", ""])
def test_a_version_jobschema_has_no_spec_of_is_one_line(run_cli, form: str) -> None:
    result = run_cli(["changes", f"runai@{form}", "runai@2.24", "--no-witnesses"], code=2)
    assert result.stderr.count("\n") == 1 and "no such Run:ai version" in result.stderr


_MIRROR = {
    "property-removed": {"property-added", "property-added-closed"},
    "enum-value-added": {"enum-value-removed"},
    "deprecated": {"deprecation-removed"},
    "pattern-loosened": {"pattern-tightened"},
    "bound-loosened": {"bound-tightened"},
    "required-removed": {"required-added"},
    "type-widened": {"type-narrowed"},
    "pattern-changed": {"pattern-changed"},
    "documentation": {"documentation"},
}
for _rule, _mirrors in list(_MIRROR.items()):
    for _other in _mirrors:
        _MIRROR.setdefault(_other, set()).add(_rule)


def test_every_pair_of_versions_in_both_orders_mirrors_and_names_a_version_between() -> None:
    found = {(a, b): compare(f"runai@{a}", f"runai@{b}") for a, b in itertools.permutations(VERSIONS, 2)}
    for (a, b), changes in found.items():
        back = {(c.schema, c.place, c.rule) for c in found[(b, a)]}
        for change in changes:
            assert any((change.schema, change.place, rule) in back for rule in _MIRROR[change.rule]), (
                a,
                b,
                change,
            )
        low, high = sorted((a, b), key=VERSIONS.index)
        for change in changes:
            assert change.since is not None
            assert VERSIONS.index(low) <= VERSIONS.index(change.since) <= VERSIONS.index(high), (a, b, change)
        assert len({c.fingerprint for c in changes}) == len(changes)
    for version in VERSIONS:
        assert compare(f"runai@{version}", f"runai@{version}") == []


@pytest.mark.parametrize("fmt", ["json", "markdown", "text"])
def test_the_report_is_the_same_bytes_from_anywhere(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    args = ["changes", "runai@2.18", "runai@2.24", "-f", fmt, "-v"]
    first = run_cli(args, code=1).stdout
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    assert run_cli(args, code=1).stdout == first


# --- a value at a credential's place is masked as its witness masks it ---------------------------------


def _secret_sides(tmp_path: Path) -> tuple[Path, Path]:
    old = {
        "type": "object",
        "properties": {"password": {"type": "string", "enum": ["x"]}, "mode": {"enum": ["a"]}},
    }
    new = {
        "type": "object",
        "properties": {
            "password": {"type": "string", "enum": ["x", "hunter2pass"]},
            "mode": {"enum": ["a", "b"]},
            "apiToken": {"type": "string", "enum": ["tok9secretvalue"]},
        },
    }
    return _write(tmp_path, "old.json", old), _write(tmp_path, "new.json", new)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "github", "sarif", "junit"])
def test_an_enum_value_at_a_credentials_place_is_masked_in_every_format(
    run_cli, tmp_path: Path, fmt: str
) -> None:
    old, new = _secret_sides(tmp_path)
    out = run_cli(["changes", str(old), str(new), "-v", "-f", fmt], code=1).stdout
    assert "hunter2pass" not in out
    assert '"b"' in out or "b" in out  # (an ordinary value stays)


def test_an_enum_value_at_a_credentials_place_is_masked_in_the_json_values(run_cli, tmp_path: Path) -> None:
    old, new = _secret_sides(tmp_path)
    changes = json.loads(run_cli(["changes", str(old), str(new), "-f", "json"], code=1).stdout)["changes"]
    by_path = {change["path"]: change for change in changes}
    assert by_path["/password"]["new"].startswith("<secret:")
    assert by_path["/password"]["message"] == f'value "{by_path["/password"]["new"]}" added'
    assert by_path["/mode"]["new"] == "b" and by_path["/mode"]["message"] == 'value "b" added'


def test_a_masked_changes_fingerprint_is_the_same_under_any_mask_key(
    run_cli, tmp_path: Path, monkeypatch
) -> None:
    from jobschema.secrets.mask import KEY_VARIABLE, use_mask_key

    old, new = _secret_sides(tmp_path)
    ids = []
    for key in ("one-key", "another-key"):
        monkeypatch.setenv(KEY_VARIABLE, key)
        use_mask_key(None)
        out = json.loads(run_cli(["changes", str(old), str(new), "-f", "json"], code=1).stdout)
        ids.append(sorted(change["id"] for change in out["changes"]))
    use_mask_key(None)
    assert ids[0] == ids[1]
