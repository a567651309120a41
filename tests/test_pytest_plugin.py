"""The pytest plugin, run in a scratch directory with ``pytester``: payload items and the fixture.

Plugin autoloading is off in the inner runs and the plugin is loaded by its module name, so these
tests behave the same whether or not the ``jobschema`` entry point is installed (with it installed,
``-p jobschema.pytest_plugin`` would register the module a second time).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jobschema.inputs.files import expand
from jobschema.inputs.payload import Payload
from jobschema.inputs.read import read_payloads
from jobschema.report.text import finding_line
from jobschema.validate import validate_paths, validate_payload

from .support import CAPTURES, REPO

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True, scope="module")
def _every_validate_module_loaded() -> None:
    """pytester's in-process runs give sys.modules back as it was after each run: a module first
    imported inside one (the explainer of invalid payloads and the rules, imported lazily) would be
    imported afresh by a later run, while what modules imported before cache (checkers, the rule
    catalog) keeps its old classes. Every module of validate imported first, the runs share them,
    whichever tests ran before (alone, the fixture test failed)."""
    import importlib
    import pkgutil

    import jobschema.validate

    for module in pkgutil.walk_packages(jobschema.validate.__path__, "jobschema.validate."):
        if module.name != "jobschema.validate.parallel.dask":  # (the dask extra's: not needed here)
            importlib.import_module(module.name)


FIXTURES = REPO / "tests" / "fixtures" / "captures"
PLUGIN = ("-p", "jobschema.pytest_plugin")


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def _copy(pytester: pytest.Pytester, *files: Path, into: str = "captures") -> Path:
    folder = pytester.path / into
    folder.mkdir(exist_ok=True)
    for path in files:
        shutil.copy(path, folder / path.name)
    return folder


def _sources(*inputs: str) -> list[str]:
    return [p.source for p in read_payloads(expand(list(inputs)).files) if isinstance(p, Payload)]


def test_each_capture_is_an_item_and_an_invalid_one_fails_with_its_findings(pytester) -> None:
    _copy(
        pytester,
        CAPTURES / "runai-error" / "not-found.json",
        CAPTURES / "aihc-error" / "access-denied.json",
        CAPTURES / "runai-distributed-workload" / "same-as-worker.json",
        FIXTURES / "invalid-workload.json",
    )
    result = pytester.runpytest(*PLUGIN, "--jobschema-payloads", "captures", "-v")
    result.assert_outcomes(passed=3, failed=1)
    lines = result.stdout.lines
    assert any(line.startswith("captures/not-found.json PASSED") for line in lines)
    assert any(line.startswith("captures/invalid-workload.json FAILED") for line in lines)
    assert (
        "FAILED captures/invalid-workload.json - captures/invalid-workload.json:1:1: " in result.stdout.str()
    )
    report = validate_paths(["captures/invalid-workload.json"]).results[0]
    expected = [finding_line(finding) for finding in report.findings]
    assert len(expected) == 5
    assert all(line in lines for line in expected), expected
    assert 'captures/invalid-workload.json:8:19: /desiredPhase: "Paused" is not one of' in expected[2]


def test_ndjson_lines_and_har_entries_are_one_item_each(pytester) -> None:
    _copy(pytester, FIXTURES / "jobs.ndjson", FIXTURES / "session.har")
    sources = _sources("captures")
    report = validate_paths(["captures"])
    assert report.skipped == 2
    assert "captures/jobs.ndjson:3" in sources
    assert any(source.startswith("captures/session.har#2 GET https://") for source in sources)
    collected = pytester.runpytest(*PLUGIN, "--jobschema-payloads", "captures", "--co", "-q")
    assert collected.stdout.lines[: len(sources)] == sources
    assert f"{len(sources)} tests collected" in collected.stdout.str()
    result = pytester.runpytest(*PLUGIN, "--jobschema-payloads", "captures")
    valid = sum(1 for res in report.results if res.valid)
    result.assert_outcomes(passed=valid, failed=len(report.results) - valid)
    assert (
        "captures/jobs.ndjson:5:26: (root): invalid JSON: Expecting value [parse-error]"
        in result.stdout.lines
    )


def test_files_and_globs_from_anywhere_and_strict_mode(pytester) -> None:
    outside = pytester.mkdir("elsewhere")
    extra = {"code": 404, "message": "Resource id not found.", "traceId": "abc"}
    (outside / "extra.json").write_text(json.dumps(extra), encoding="utf-8")
    (outside / "broken.json").write_text("{", encoding="utf-8")
    pytester.mkdir("sub")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(pytester.path / "sub")
        glob = "../elsewhere/*.json"
        result = pytester.runpytest(*PLUGIN, "--rootdir", str(pytester.path), "--jobschema-payloads", glob)
    result.assert_outcomes(passed=1, failed=1)
    broken = "../elsewhere/broken.json:1:2: (root): invalid JSON: Expecting property name enclosed in"
    assert f"{broken} double quotes [parse-error]" in result.stdout.lines
    strict = pytester.runpytest(*PLUGIN, "--jobschema-payloads", "elsewhere/extra.json", "--jobschema-strict")
    strict.assert_outcomes(failed=1)
    (finding,) = validate_paths(["elsewhere/extra.json"], strict=True).results[0].findings
    assert finding.rule == "unknown-property"
    assert finding_line(finding) in strict.stdout.lines


def test_a_path_that_names_nothing_is_a_usage_error(pytester) -> None:
    result = pytester.runpytest(*PLUGIN, "--jobschema-payloads", "missing")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: --jobschema-payloads missing: no such file or folder" in result.stderr.str()


def test_fixture_returns_the_result_or_fails_with_the_findings(pytester) -> None:
    pytester.makepyfile(
        """
        def test_valid(jobschema_validate):
            result = jobschema_validate({"code": 404, "message": "Resource id not found."})
            assert result.valid and result.schema == "runai-error"

        def test_invalid(jobschema_validate):
            jobschema_validate({"code": 99, "message": "x"}, "runai-error")

        def test_strict(jobschema_validate):
            payload = {"code": 404, "message": "x", "traceId": "abc"}
            assert jobschema_validate(payload).warnings == 0
            jobschema_validate(payload, strict=True)
        """
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1, failed=2)
    assert "payload is invalid (runai-error):" in result.stdout.lines
    (low,) = validate_payload({"code": 99, "message": "x"}, "runai-error").findings
    assert finding_line(low).startswith("<payload>: /code: 99 ")
    assert finding_line(low) in result.stdout.lines
    (unknown,) = validate_payload({"code": 404, "message": "x", "traceId": "abc"}, strict=True).findings
    assert finding_line(unknown) in result.stdout.lines
    assert "Traceback" not in result.stdout.str()


def test_fixture_reports_an_unknown_schema_in_one_line(pytester) -> None:
    pytester.makepyfile(
        """
        def test_typo(jobschema_validate):
            jobschema_validate({"code": 404, "message": "x"}, "runai-eror")
        """
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    (line,) = [line for line in result.stdout.lines if line.startswith("jobschema_validate:")]
    assert line.startswith(
        "jobschema_validate: runai-eror: no such schema; did you mean runai-error? (bundled schemas: runai-"
    )
    assert "Traceback" not in result.stdout.str()
    assert "During handling" not in result.stdout.str()
    assert not any(line.startswith(("E ", ">")) for line in result.stdout.lines)


def test_without_the_option_a_test_run_is_unchanged(pytester) -> None:
    _copy(pytester, FIXTURES / "invalid-workload.json", FIXTURES / "jobs.ndjson", into=".")
    pytester.makepyfile("def test_plain():\n    assert True\n")
    collected = pytester.runpytest(*PLUGIN, "--co", "-q")
    assert collected.stdout.lines[0] == "test_without_the_option_a_test_run_is_unchanged.py::test_plain"
    assert "1 test collected" in collected.stdout.str()
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("module", "outcome"),
    [
        ("uvicorn", {"errors": 1}),  # the fixture's set-up fails
        ("jwt", {"errors": 1}),  # (a server starts without it: its first token request would fail)
        ("hypothesis", {"failed": 1}),  # needed to generate only: start(generate=True) fails
    ],
)
def test_the_server_fixture_without_the_serve_extra_says_which_to_install(pytester, module, outcome) -> None:
    generating = module == "hypothesis"
    pytester.makepyfile(
        f"""
        import sys

        {"" if generating else f"sys.modules[{module!r}] = None"}

        def test_serves(jobschema_server, monkeypatch):
            monkeypatch.setitem(sys.modules, {module!r}, None)
            jobschema_server(generate={generating})
        """
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(**outcome)
    reason = f"import of {module} halted; None in sys.modules"
    message = (
        f"jobschema_server: the serve extra is not installed ({reason}); "
        "install jobschema[serve]: pip install 'jobschema[serve]'"
    )
    assert message in result.stdout.lines
    assert "Traceback" not in result.stdout.str()


def test_a_file_name_is_shown_as_validate_shows_it_masked_and_escaped(pytester) -> None:
    folder = pytester.path / "captures"
    folder.mkdir()
    shutil.copy(FIXTURES / "invalid-workload.json", folder / "password=Hunter2Secret.json")
    shutil.copy(FIXTURES / "invalid-workload.json", folder / "e\x1b[31mred.json")
    result = pytester.runpytest(*PLUGIN, "--jobschema-payloads", "captures", "-rf")
    result.assert_outcomes(failed=2)
    output = "\n".join(result.outlines + result.errlines)
    assert "Hunter2Secret" not in output and "\x1b" not in output
    assert "captures/password=<secret:" in output and "captures/e\\x1b[31mred.json" in output
