"""The planted-credential corpus (tests/fixtures/secrets/): fake credentials in every form issue 11
lists, each containing a marker that occurs nowhere else (``markers.json``).

After ``redact`` no marker remains (base64 bodies decoded too); ``redact --check`` names every place,
exactly; ``validate`` (every format, with and without ``-v`` and ``--strict``), ``diff`` (every
format and mode, ``--stat`` too) and ``coverage`` (every format) print none of them.
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from jobschema.secrets import mask
from tests.support import REPO, compare_golden

CORPUS = REPO / "tests" / "fixtures" / "secrets"
FILES = ("aihc-job.json", "runai-workload.json", "jobs.ndjson", "session.har")
#: A raw-request holding a 5,000-digit integer (Python's int limit rejects it): redact masks it whole.
BIGINT = "aihc-bigint.json"
REDACTED = (*FILES, BIGINT)
MARKERS: list[str] = json.loads((CORPUS / "markers.json").read_text(encoding="utf-8"))
GOLDEN = REPO / "tests" / "golden" / "secrets"
RAW = "aijob.cce.baidubce.com/raw-request"


@pytest.fixture(autouse=True)
def _from_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def _path(name: str) -> str:
    return f"tests/fixtures/secrets/{name}"


def _leaks(*texts: str) -> list[str]:
    return sorted({marker for marker in MARKERS for text in texts if marker in text})


def _bodies(har_text: str) -> list[str]:
    """The base64 response bodies of a HAR, decoded."""
    found = []
    for entry in json.loads(har_text)["log"]["entries"]:
        content = entry["response"]["content"]
        if content.get("encoding") == "base64":
            found.append(base64.b64decode(content["text"]).decode("utf-8"))
    return found


def test_markers_are_unique_and_all_planted() -> None:
    texts = [(CORPUS / name).read_text(encoding="utf-8") for name in REDACTED]
    texts += _bodies(texts[FILES.index("session.har")])
    assert len(MARKERS) == len(set(MARKERS)) >= 60
    assert [m for m in MARKERS if not any(m in text for text in texts)] == []


# --- redact --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", REDACTED)
def test_redact_leaves_no_marker(run_cli, name: str) -> None:
    text = run_cli(["redact", _path(name)], code=0).stdout
    assert _leaks(text, *(_bodies(text) if name.endswith(".har") else ())) == []


@pytest.mark.parametrize("name", REDACTED)
def test_redacted_corpus_checks_clean_and_redacts_to_itself(run_cli, tmp_path: Path, name: str) -> None:
    once = tmp_path / name
    once.write_text(run_cli(["redact", _path(name)], code=0).stdout, encoding="utf-8")
    assert run_cli(["redact", "--check", str(once)], code=0).stdout == ""
    assert run_cli(["redact", str(once)], code=0).stdout == once.read_text(encoding="utf-8")


def test_check_names_every_planted_secret(run_cli, update_golden: bool) -> None:
    result = run_cli(["redact", "--check", *(_path(n) for n in REDACTED)], code=1)
    compare_golden(GOLDEN / "check.txt", result.stdout, update_golden)
    assert result.stderr == ""
    assert _leaks(result.stdout) == []


def test_in_place_rewrites_the_corpus_without_leftovers(run_cli, tmp_path: Path) -> None:
    for name in REDACTED:
        shutil.copyfile(CORPUS / name, tmp_path / name)
    run_cli(["redact", "--in-place", str(tmp_path)], code=0)
    texts = [(tmp_path / name).read_text(encoding="utf-8") for name in REDACTED]
    assert _leaks(*texts, *_bodies(texts[FILES.index("session.har")])) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(REDACTED)


def test_unparsable_raw_request_is_masked_whole(run_cli) -> None:
    def raw_request(doc: Any) -> str:
        return doc["result"]["podList"]["pods"][0]["objectMeta"]["annotations"][RAW]

    out = json.loads(run_cli(["redact", _path(BIGINT)], code=0).stdout)
    original = json.loads((CORPUS / BIGINT).read_text(encoding="utf-8"))
    assert raw_request(out) == mask(raw_request(original))
    assert run_cli(["redact", "--check", _path(BIGINT)], code=1).stdout == (
        f"{_path(BIGINT)}: /result/podList/pods/0/objectMeta/annotations/"
        "aijob.cce.baidubce.com~1raw-request: unmasked secret [redact]\n"
    )


def test_only_the_secret_part_of_a_larger_value_changes(run_cli) -> None:
    out = json.loads(run_cli(["redact", _path("aihc-job.json")], code=0).stdout)["result"]
    envs = {env["name"]: env["value"] for env in out["envs"]}
    assert envs["DATABASE_URL"] == f"postgres://app:{mask('PLANTb1-pg-url-pass')}@db.internal:5432/train"
    assert out["command"] == (
        f"huggingface-cli login --token {mask('hf_PLANTa1cmdHFtoken0123456789abcdefgh')}"
        f" && python train.py --hf-token {mask('PLANTa2-hf-flag-value')}"
        f" --password={mask('PLANTa3-password-flag')}"
    )
    assert envs["TOKENIZERS_PARALLELISM"] == "false"


# --- validate ------------------------------------------------------------------------------------

FORMATS = ("text", "json", "junit", "github", "sarif")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("extra", [[], ["-v"], ["--strict"], ["-v", "--strict"]])
def test_validate_prints_no_marker(run_cli, fmt: str, extra: list[str]) -> None:
    result = run_cli(["validate", "-f", fmt, *extra, *(_path(n) for n in REDACTED)])
    assert result.exit_code == 1
    assert _leaks(result.stdout, result.stderr) == []


def test_validate_shows_the_har_sources_masked(run_cli) -> None:
    out = run_cli(["validate", "--strict", _path("session.har")]).stdout
    source = "#2 GET https://runai.example.com/api/v1/workloads/distributed/"
    assert (
        f"{source}0b6e2f94?sig={mask('PLANTf5-url-sig')}&X-Amz-Signature={mask('PLANTf6amzsig0123456789')}"
        in out
    )


# --- diff ----------------------------------------------------------------------------------------


def _changed(value: Any) -> Any:
    """``value`` with every planted secret changed (each marker stays inside the new value)."""
    text = json.dumps(value)
    for marker in MARKERS:
        text = text.replace(marker, marker + "Z")
    return json.loads(text)


def _snapshots(tmp_path: Path, name: str) -> tuple[str, str]:
    left = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    right = _changed(left)
    if name == BIGINT:
        pass
    elif "result" in right:
        right["result"]["envs"].pop(1)
        right["result"]["labels"].append({"key": "secret-token", "value": "PLANTb3-label-tokenZ"})
    else:
        right["spec"]["environmentVariables"].pop(0)
    paths = tmp_path / "left.json", tmp_path / "right.json"
    for path, doc in zip(paths, (left, right), strict=True):
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return str(paths[0]), str(paths[1])


def _history(tmp_path: Path) -> str:
    left = json.loads((CORPUS / "aihc-job.json").read_text(encoding="utf-8"))
    path = tmp_path / "history.ndjson"
    path.write_text("\n".join(json.dumps(doc) for doc in (left, _changed(left))) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
@pytest.mark.parametrize("stat", [[], ["--stat"]])
@pytest.mark.parametrize("mode", ["aihc", "runai", "bigint", "roles", "history"])
def test_diff_prints_no_marker(run_cli, tmp_path: Path, fmt: str, stat: list[str], mode: str) -> None:
    if mode == "aihc":
        args = list(_snapshots(tmp_path, "aihc-job.json"))
    elif mode == "runai":
        args = list(_snapshots(tmp_path, "runai-workload.json"))
    elif mode == "bigint":
        args = list(_snapshots(tmp_path, BIGINT))
    elif mode == "roles":
        args = ["--roles", _path("aihc-job.json")]
    else:
        args = ["--history", _history(tmp_path)]
    result = run_cli(["diff", "-f", fmt, *stat, *args])
    assert result.exit_code == 1, result.output
    assert _leaks(result.stdout, result.stderr) == []


def test_diff_shows_a_changed_secret_as_a_changed_mask(run_cli, tmp_path: Path) -> None:
    left, right = _snapshots(tmp_path, "runai-workload.json")
    out = run_cli(["diff", left, right], code=1).stdout
    key = "AIzaSyPLANTd4googleKey0123456789abcdefg"
    old, new = json.dumps(mask(key)), json.dumps(mask(key + "Z"))
    assert f"  ± spec.environmentVariables[name=GOOGLE_KEY].value: {old} → {new}\n" in out


# --- coverage ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
@pytest.mark.parametrize("verbose", [[], ["-v"]])
def test_coverage_prints_no_marker(run_cli, fmt: str, verbose: list[str]) -> None:
    result = run_cli(["coverage", "-f", fmt, *verbose, *(_path(n) for n in REDACTED)], code=0)
    assert _leaks(result.stdout, result.stderr) == []
