"""Round-5 review of ``jobschema coverage``: a corpus counted against one API version.

A team on Run:ai 2.19 asks which of 2.19's properties its captures exercise, and which fields they
carry that 2.19 does not have. ``--api-version runai=2.19`` (as ``validate`` takes it) counts each
Run:ai payload against 2.19's schema: its properties are 2.19's, a property of another version is
undeclared (drift), and the section is named ``runai-distributed-workload@2.19``. Without it nothing
changes; a version jobschema has no spec of is a usage error (exit 2, one line).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jobschema.coverage.collect import coverage_paths
from jobschema.schemas import versions
from tests.support import REPO

PREEMPT = "tests/examples/versions/preemptibility-in-2.19.json"
JAX = "tests/examples/versions/jax-in-2.20.json"
AIHC = "schemas/examples/aihc-job-detail"


def _run(*args: str, seed: str = "0") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jobschema", "coverage", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONHASHSEED": seed},
    )


def test_a_property_of_a_later_version_is_drift_against_an_earlier_one() -> None:
    result = _run("--api-version", "runai=2.19", "--fail-on-undeclared", PREEMPT)
    assert (result.returncode, result.stderr) == (1, "")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("runai-distributed-workload@2.19: 1 payload, ")
    drift = lines.index("  undeclared (drift) (1):")
    assert lines[drift + 1] == f"    spec.preemptibility: 1 payload, e.g. {PREEMPT} /spec/preemptibility"
    plain = _run("--fail-on-undeclared", PREEMPT)
    assert plain.returncode == 0
    assert plain.stdout.splitlines()[0].startswith("runai-distributed-workload: 1 payload, ")
    latest = _run("--api-version", "runai=2.24", "--fail-on-undeclared", PREEMPT)
    assert latest.returncode == 0
    assert latest.stdout.splitlines()[0].startswith("runai-distributed-workload@2.24: 1 payload, ")


@pytest.mark.parametrize("version", versions.known("runai"))
def test_each_version_counts_exactly_its_own_properties(version: str) -> None:
    report = coverage_paths([PREEMPT, JAX], api_versions={"runai": version})
    (section,) = report.schemas
    assert section.schema == f"runai-distributed-workload@{version}"
    union = coverage_paths([PREEMPT, JAX]).schemas[0]
    listed = {item.path for item in section.properties}
    assert listed <= {item.path for item in union.properties}
    assert ("spec.preemptibility" in listed) is (version >= "2.24")
    assert ("spec.category" in listed) is (version >= "2.22")
    drift = {item.path for item in section.undeclared}
    assert ("spec.preemptibility" in drift) is (version < "2.24")
    values = {(item.path, item.value) for item in section.values if item.listed}
    assert (("spec.distributedFramework", "JAX") in values) is (version >= "2.21")


def test_every_api_is_pinned_apart_and_the_aihc_section_is_named_with_its_version() -> None:
    result = _run("--api-version", "aihc=v1", "--api-version", "runai=2.20", "-f", "json", AIHC, JAX)
    assert (result.returncode, result.stderr) == (0, "")
    names = [section["schema"] for section in json.loads(result.stdout)["schemas"]]
    assert names == ["runai-distributed-workload@2.20", "aihc-job-detail@v1", "aihc-raw-request@v1"]


@pytest.mark.parametrize(
    ("pin", "message"),
    [
        (
            "runai=2.17",
            "Error: Invalid value for '--api-version': 'runai=2.17': Run:ai 2.17 is not a known version "
            "(2.18, 2.19, 2.20, 2.21, 2.22, 2.23, 2.24)",
        ),
        ("runai", "Error: Invalid value for '--api-version': 'runai': give API=VERSION, e.g. runai=2.19"),
    ],
)
def test_an_unknown_version_is_a_usage_error(pin: str, message: str) -> None:
    result = _run("--api-version", pin, PREEMPT)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == message
    assert "Traceback" not in result.stderr


def test_the_same_bytes_under_any_hash_seed_and_format() -> None:
    for fmt in ("text", "json", "markdown"):
        runs = {
            _run("-v", "-f", fmt, "--api-version", "runai=2.21", PREEMPT, JAX, AIHC, seed=seed).stdout
            for seed in ("0", "1", "2")
        }
        assert len(runs) == 1


def test_coverage_paths_takes_one_path_or_any_iterable_of_paths() -> None:
    from pathlib import Path

    folder = REPO / "schemas" / "examples" / "runai-error"
    expected = coverage_paths([str(folder)])
    assert expected.schemas[0].payloads == 2
    for paths in (str(folder), folder, [folder], (p for p in [str(folder)])):
        assert coverage_paths(paths) == expected
    item = r"paths \(str, bytes or os.PathLike\), not int"
    for wrong, message in ((5, "not int"), ({"a": 1}, "not dict"), ([5], item)):
        with pytest.raises(TypeError, match=message):
            coverage_paths(wrong)  # type: ignore[arg-type]
    assert isinstance(folder, Path)
