"""The pytest plugin under pytest-xdist: payload items are collected by every worker, which must agree
on their node ids (xdist refuses a run whose workers collected different tests), run on the workers,
and their reports (outcome, findings, JUnit classname) travel back to the process that prints and
writes them. Each run is compared with the same run in one process."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from .support import CAPTURES, REPO

pytest.importorskip("xdist")  # (a test extra: pip install -e ".[test]")

pytest_plugins = ["pytester"]

FIXTURES = REPO / "tests" / "fixtures" / "captures"
PLUGINS = ("-p", "jobschema.pytest_plugin", "-p", "xdist.plugin")
MASK = re.compile(r"<secret:[0-9a-f]{8}>")
SECRET = "ghp_" + "Xdist0Secret1Value2In3File4Name5abcdef"[:36]


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    # No key: each process draws its own, so a mask in a node id would differ from worker to worker.
    monkeypatch.delenv("JOBSCHEMA_MASK_KEY", raising=False)
    return pytester


def _corpus(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "captures"
    (folder / "nested").mkdir(parents=True)
    shutil.copy(CAPTURES / "runai-error" / "not-found.json", folder / "not-found.json")
    shutil.copy(FIXTURES / "invalid-workload.json", folder / "nested" / "invalid-workload.json")
    shutil.copy(FIXTURES / "jobs.ndjson", folder / "jobs.ndjson")
    shutil.copy(FIXTURES / "session.har", folder / "session.har")
    # Two files named alike but for their secret: one node id each, numbered in input order.
    shutil.copy(FIXTURES / "invalid-workload.json", folder / f"token={SECRET}.json")
    shutil.copy(CAPTURES / "runai-error" / "not-found.json", folder / f"token={SECRET[::-1]}.json")
    for example in sorted((CAPTURES / "runai-distributed-workload").glob("*.json"))[:3]:
        shutil.copy(example, folder / example.name)


def _run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, list[tuple[str, str, str]]]:
    xml = pytester.path / f"out-{len(list(pytester.path.glob('out-*.xml')))}.xml"
    result = pytester.runpytest_subprocess(
        *PLUGINS, "--jobschema-payloads", "captures", f"--junitxml={xml}", "-rf", *args
    )
    cases = []
    for case in ET.parse(xml).iter("testcase"):
        outcome = "failed" if case.find("failure") is not None else "passed"
        cases.append((case.get("classname", ""), case.get("name", ""), outcome))
    return result, sorted(cases)


@pytest.mark.parametrize("strict", [(), ("--jobschema-strict",)], ids=["default", "strict"])
def test_two_workers_report_what_one_process_reports(
    pytester: pytest.Pytester, strict: tuple[str, ...]
) -> None:
    _corpus(pytester)
    alone, alone_cases = _run(pytester, "-p", "no:xdist", *strict)
    workers, worker_cases = _run(pytester, "-n", "2", *strict)
    assert workers.ret == alone.ret == pytest.ExitCode.TESTS_FAILED
    assert worker_cases == alone_cases
    assert workers.parseoutcomes() == alone.parseoutcomes()
    names = [name for _, name, _ in worker_cases]
    assert len(names) == len(set(names))  # (xdist would refuse workers that disagree; ids are unique)
    # (the name's value runs to the end of the name: ``.json`` may be the token's, so it is masked too)
    assert "captures/token=<secret>" in names and "captures/token=<secret>[2]" in names
    nested = "captures/nested/invalid-workload.json"
    assert ("captures.nested.invalid-workload.json", nested, "failed") in worker_cases


def test_a_secret_never_leaves_a_worker(pytester: pytest.Pytester) -> None:
    _corpus(pytester)
    result, _ = _run(pytester, "-n", "2")
    output = "\n".join(result.outlines + result.errlines)
    assert "Different tests were collected" not in output
    assert SECRET not in output and SECRET[::-1] not in output
    written = "\n".join(path.read_text(encoding="utf-8") for path in pytester.path.glob("out-*.xml"))
    assert SECRET not in written and SECRET[::-1] not in written
    # A failure's findings come back from the worker as validate writes them.
    assert any(line.startswith("FAILED captures/nested/invalid-workload.json - ") for line in result.outlines)


def test_the_failures_text_is_the_same_from_a_worker(pytester: pytest.Pytester) -> None:
    _corpus(pytester)
    alone, _ = _run(pytester, "-p", "no:xdist")
    workers, _ = _run(pytester, "-n", "2")
    assert sorted(_failed_lines(workers)) == sorted(_failed_lines(alone))
    assert _failed_lines(alone)


def _failed_lines(result: pytest.RunResult) -> list[str]:
    """The short summary's lines, each mask as ``<secret:…>`` (two runs draw two keys)."""
    return [MASK.sub("<secret:…>", line) for line in result.outlines if line.startswith("FAILED ")]


@pytest.mark.parametrize("key", ["", "a key from CI"], ids=["drawn", "given"])
def test_one_secret_has_one_mask_in_a_run_on_every_worker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """ "Within a run the same secret gets the same mask everywhere": with a key drawn per process,
    each worker would show the one secret by a mask of its own. The controller's key is the workers'."""
    if key:
        monkeypatch.setenv("JOBSCHEMA_MASK_KEY", key)
    folder = pytester.path / "captures"
    folder.mkdir()
    payload = json.loads((FIXTURES / "invalid-workload.json").read_text(encoding="utf-8"))
    payload["name"] = f"token={SECRET}"  # (shown in no finding: the invalid date-time below is)
    for number in range(8):
        payload["createdAt"] = f"token={SECRET} {number}"
        (folder / f"{number}.json").write_text(json.dumps(payload, indent=2), encoding="utf-8")
    result = pytester.runpytest_subprocess(*PLUGINS, "--jobschema-payloads", "captures", "-n", "2")
    result.assert_outcomes(failed=8)
    output = "\n".join(result.outlines)
    assert SECRET not in output
    assert {"[gw0]", "[gw1]"} <= {word for line in result.outlines for word in line.split()}
    masks = {found.group(0) for found in MASK.finditer(output)}
    assert len(masks) == 1, masks


def test_the_test_extra_installs_xdist() -> None:
    """CI installs the test extra only: without xdist there, this file would skip and prove nothing."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    test_extra = text.split("\ntest = [", 1)[1].split("\n]", 1)[0]
    assert '"pytest-xdist' in test_extra
