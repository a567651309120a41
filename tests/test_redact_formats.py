"""``jobschema redact --check --format``: the same places in every format (text, JSON, GitHub
annotations, SARIF), problems included, never a secret's value."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support import REPO

FILES = [
    "tests/fixtures/redact/aihc-job-detail.json",
    "tests/fixtures/redact/jobs.ndjson",
    "tests/fixtures/redact/runai-workload.json",
    "tests/fixtures/redact/session.har",
]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def _text_places(run_cli) -> list[str]:
    lines = run_cli(["redact", "--check", *FILES], 1).stdout.splitlines()
    return [line.removesuffix(": unmasked secret [redact]") for line in lines]


def test_json_lists_the_places_text_lists(run_cli) -> None:
    report = json.loads(run_cli(["redact", "--check", "-f", "json", *FILES], 1).stdout)
    places = [
        f"{s['source']}{'' if s['line'] is None else ':' + str(s['line'])}: {s['pointer']}"
        for s in report["secrets"]
    ]
    assert places == _text_places(run_cli)
    assert report["summary"] == {"inputs": 4, "secrets": len(places), "problems": 0}


def test_github_annotates_each_place_with_its_file_and_line(run_cli) -> None:
    lines = run_cli(["redact", "--check", "-f", "github", *FILES], 1).stdout.splitlines()
    annotations = [line for line in lines if line.startswith("::error ")]
    assert len(annotations) == len(_text_places(run_cli))
    assert annotations[0].startswith(
        "::error file=tests/fixtures/redact/aihc-job-detail.json,title=unmasked-secret::"
    )
    ndjson = [line for line in annotations if "jobs.ndjson" in line]
    assert ndjson and all(",line=" in line for line in ndjson)
    assert lines[-1].startswith(f"4 input(s) checked: {len(annotations)} unmasked secret(s)")


def test_sarif_has_a_result_per_place(run_cli) -> None:
    log = json.loads(run_cli(["redact", "--check", "-f", "sarif", *FILES], 1).stdout)
    results = log["runs"][0]["results"]
    assert log["version"] == "2.1.0"
    assert len(results) == len(_text_places(run_cli))
    assert {r["ruleId"] for r in results} == {"unmasked-secret"}
    line = next(r for r in results if "jobs.ndjson" in json.dumps(r))
    assert line["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1


def test_problems_are_reported_in_the_format(run_cli, tmp_path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"password": ', encoding="utf-8")
    report = json.loads(run_cli(["redact", "--check", "-f", "json", str(broken)], 1).stdout)
    assert report["summary"] == {"inputs": 1, "secrets": 0, "problems": 1}
    sarif = json.loads(run_cli(["redact", "--check", "-f", "sarif", str(broken)], 1).stdout)
    assert sarif["runs"][0]["results"][0]["ruleId"] == "unreadable"


def test_clean_inputs_pass_in_every_format(run_cli) -> None:
    for fmt in ("text", "json", "github", "sarif"):
        run_cli(["redact", "--check", "-f", fmt, "tests/fixtures/redact/golden"], 0)


def _replaced(raw: str, golden: str) -> list[str]:
    """The values of ``raw`` that its redacted ``golden`` shows as masks (each mask a capture group)."""
    parts = re.split(r"<secret:[0-9a-f]{8}>", golden)
    match = re.fullmatch("(.*?)".join(re.escape(part) for part in parts), raw, flags=re.DOTALL)
    assert match is not None, "a golden differs from its raw fixture beyond the masks"
    return list(match.groups())


def _masked_values() -> set[str]:
    """The secret values of the raw fixtures: what differs from their redacted goldens."""
    found: set[str] = set()
    for name in FILES:
        if name.endswith(".har"):  # (its base64 bodies are encoded anew: not a mask-for-value edit)
            continue
        raw = (REPO / name).read_text(encoding="utf-8").splitlines()
        golden = (
            (REPO / "tests/fixtures/redact/golden" / Path(name).name).read_text(encoding="utf-8").splitlines()
        )
        for before, after in zip(raw, golden, strict=True):
            found |= {part for part in _replaced(before, after) if len(part) >= 6}
    return found


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_no_value_reaches_a_report(run_cli, fmt: str) -> None:
    out = run_cli(["redact", "--check", "-f", fmt, *FILES], 1).stdout
    values = _masked_values()
    assert len(values) >= 4, values
    assert not [value for value in values if value in out]


def test_format_needs_check(run_cli) -> None:
    result = run_cli(["redact", "-f", "json", FILES[0]], 2)
    assert "-f/--format json is the format of --check's report; add --check" in result.stderr
