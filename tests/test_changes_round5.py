"""Round-5 review of ``jobschema changes`` between API versions: laws over every pair of versions.

- Composition: between any two versions A and C (either order) every change is at a place that a
  change between A and a version B between them, or between B and C, touches; it names a version
  between them as the one that made it (``since``), and no change is listed twice.
- The same version named two ways (``2.19``, ``v2.19.3``, ``V2.19``) is no change, exit 0, in every
  format; newer to older names the same places as older to newer; every format exits alike.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from functools import cache

import pytest

from jobschema.changes import Change, compare
from jobschema.schemas import versions
from tests.support import REPO

KNOWN = versions.known("runai")
FORMATS = ("text", "json", "markdown", "github", "sarif", "junit")


@cache
def _between(old: str, new: str) -> tuple[Change, ...]:
    return tuple(compare(f"runai@{old}", f"runai@{new}"))


def _places(changes: tuple[Change, ...]) -> set[tuple[str | None, tuple[str, ...]]]:
    return {(change.schema, change.place) for change in changes}


TRIPLES = [
    (a, b, c)
    for a, b, c in itertools.permutations(KNOWN, 3)
    if KNOWN.index(a) < KNOWN.index(b) < KNOWN.index(c) or KNOWN.index(a) > KNOWN.index(b) > KNOWN.index(c)
]

PAIRS = list(itertools.combinations(KNOWN, 2))


@pytest.mark.parametrize(("old", "middle", "new"), TRIPLES, ids=["-".join(t) for t in TRIPLES])
def test_a_change_across_versions_is_made_by_a_step_between_them(old: str, middle: str, new: str) -> None:
    whole = _between(old, new)
    parts = _places(_between(old, middle)) | _places(_between(middle, new))
    assert {(c.schema, c.path) for c in whole if (c.schema, c.place) not in parts} == set()
    low, high = sorted((KNOWN.index(old), KNOWN.index(new)))
    span = KNOWN[low + 1 : high + 1] if KNOWN.index(old) < KNOWN.index(new) else KNOWN[low:high]
    assert {c.since for c in whole} <= set(span)
    assert len({c.fingerprint for c in whole}) == len(whole)


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=["-".join(p) for p in PAIRS])
def test_newer_to_older_touches_the_places_older_to_newer_does(old: str, new: str) -> None:
    assert _places(_between(new, old)) == _places(_between(old, new))


def test_a_deprecation_taken_back_is_a_change_too() -> None:
    assert _places(_between("2.24", "2.23")) == _places(_between("2.23", "2.24"))


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jobschema", "changes", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_exits_alike(fmt: str) -> None:
    same = _run("runai@2.19", "runai@V2.19.3", "-f", fmt)
    assert (same.returncode, same.stderr) == (0, "")
    newer_to_older = _run("runai@2.24", "runai@2.18", "--no-witnesses", "-f", fmt)
    assert (newer_to_older.returncode, newer_to_older.stderr) == (1, "")
    never = _run("runai@2.24", "runai@2.18", "--no-witnesses", "--fail-on", "never", "-f", fmt)
    assert never.returncode == 0
    unknown = _run("runai@2.17", "runai@2.18", "-f", fmt)
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr.splitlines() == [
        "Error: runai@2.17: no such Run:ai version (known: 2.18, 2.19, 2.20, 2.21, 2.22, 2.23, 2.24)"
    ]


# --- naming the sides: an API in any case; a side of another type is a TypeError naming it ----------


def test_an_api_is_named_in_any_case() -> None:
    assert compare("RunAI@V2.19", "RUNAI@2.24.1") == list(_between("2.19", "2.24"))
    result = _run("RUNAI@2.19", "Runai@v2.24", "--no-witnesses", "-f", "json")
    assert result.returncode == 1
    assert result.stdout == _run("runai@2.19", "runai@2.24", "--no-witnesses", "-f", "json").stdout


SIDE = "expected a side (runai@2.19, a bundled schema's name, a schema file) or a schema document (dict)"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (5, "runai@2.24", f"old: {SIDE}, not int"),
        ("runai@2.24", None, f"new: {SIDE}, not NoneType"),
        (["runai@2.19"], "runai@2.24", f"old: {SIDE}, not list"),
    ],
)
def test_a_side_of_another_type_is_a_type_error_naming_it(old: object, new: object, message: str) -> None:
    with pytest.raises(TypeError) as raised:
        compare(old, new)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_a_schema_file_side_may_be_a_path() -> None:
    from pathlib import Path

    schema = REPO / "schemas" / "runai-error.schema.json"
    assert compare(Path(schema), str(schema)) == []
