"""The pytest plugin, round 6: payload items in JUnit XML carry a classname (CI groups tests by it),
and payloads from ``addopts`` stay out of a run that names its tests, as ``testpaths`` do."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .support import CAPTURES, REPO
from .test_pytest_plugin import _every_validate_module_loaded  # noqa: F401 - an autouse fixture

pytest_plugins = ["pytester"]

FIXTURES = REPO / "tests" / "fixtures" / "captures"
PLUGIN = ("-p", "jobschema.pytest_plugin")


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    return pytester


def _captures(pytester: pytest.Pytester, folder: str = "captures") -> None:
    (pytester.path / folder).mkdir(parents=True, exist_ok=True)
    for path in (
        CAPTURES / "runai-error" / "not-found.json",
        FIXTURES / "invalid-workload.json",
        FIXTURES / "jobs.ndjson",
    ):
        shutil.copy(path, pytester.path / folder / path.name)


def _testcases(path: Path) -> list[tuple[str, str]]:
    return [(case.get("classname", ""), case.get("name", "")) for case in ET.parse(path).iter("testcase")]


# ------------------------------------------------------------------ JUnit XML classname


@pytest.mark.parametrize("family", ["xunit1", "xunit2"])
def test_a_payload_item_is_grouped_by_its_file_in_junit_xml(pytester: pytest.Pytester, family: str) -> None:
    """The classname pytest gives any test of a file that is not Python (``data.yaml::case`` reads
    ``data.yaml``): the payload's file, dotted; the name is the node id, as ``pytest -v`` shows it
    and ``--deselect`` takes it (pytest would dot its slashes, a URL's too)."""
    _captures(pytester, "captures/nested")
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest(
        *PLUGIN, "--jobschema-payloads", "captures", "--junitxml=out.xml", "-o", f"junit_family={family}"
    )
    result.assert_outcomes(passed=4, failed=3)
    cases = _testcases(pytester.path / "out.xml")
    payloads = [case for case in cases if case[1].startswith("captures/")]
    assert sorted(payloads) == sorted(
        [
            ("captures.nested.invalid-workload.json", "captures/nested/invalid-workload.json"),
            ("captures.nested.not-found.json", "captures/nested/not-found.json"),
            *(("captures.nested.jobs.ndjson", f"captures/nested/jobs.ndjson:{n}") for n in (1, 3, 4, 5)),
        ]
    )
    assert ("test_plain", "test_plain") in cases  # (pytest's own tests as before)


def test_the_junit_prefix_leads_a_payload_classname_too(pytester: pytest.Pytester) -> None:
    _captures(pytester)
    result = pytester.runpytest(
        *PLUGIN, "--jobschema-payloads", "captures/not-found.json", "--junitxml=out.xml", "--junit-prefix=ci"
    )
    result.assert_outcomes(passed=1)
    assert _testcases(pytester.path / "out.xml") == [
        ("ci.captures.not-found.json", "captures/not-found.json")
    ]


def test_a_secret_in_a_file_name_is_masked_in_the_classname(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "password=Hunter2SecretName"
    folder.mkdir()
    shutil.copy(CAPTURES / "runai-error" / "not-found.json", folder / "a.json")
    pytester.runpytest(*PLUGIN, "--jobschema-payloads", str(folder), "--junitxml=out.xml").assert_outcomes(
        passed=1
    )
    text = (pytester.path / "out.xml").read_text(encoding="utf-8")
    assert "Hunter2SecretName" not in text
    ((classname, name),) = _testcases(pytester.path / "out.xml")
    assert classname.startswith("password=<secret:") and name.startswith("password=<secret:")


# ------------------------------------------------------------------ tests named on the command line

_TESTS = "def test_a():\n    assert True\n\ndef test_b():\n    assert True\n"
_LEFT_OUT = (
    "jobschema: payloads of --jobschema-payloads (from addopts or PYTEST_ADDOPTS) not collected: "
    "tests are named on the command line; give the option there to run them too"
)


@pytest.fixture
def addopts(pytester: pytest.Pytester) -> pytest.Pytester:
    _captures(pytester)
    pytester.makepyfile(test_x=_TESTS)
    pytester.makeini("[pytest]\naddopts = -p jobschema.pytest_plugin --jobschema-payloads captures\n")
    return pytester


@pytest.mark.parametrize(
    ("args", "passed"),
    [
        (["test_x.py::test_a"], 1),
        (["test_x.py"], 2),
        (["test_x.py::test_a", "test_x.py::test_b"], 2),
        (["."], 2),
    ],
)
def test_naming_tests_leaves_out_the_payloads_of_addopts(
    addopts: pytest.Pytester, args: list[str], passed: int
) -> None:
    """As pytest reads ``testpaths``: the default collection when no test is named, else only what is
    named (an invalid payload would fail the run)."""
    result = addopts.runpytest(*args, "-v")
    result.assert_outcomes(passed=passed)
    assert _LEFT_OUT in result.stdout.lines
    assert not any(line.startswith("captures/") for line in result.stdout.lines)


def test_payloads_of_pytest_addopts_are_left_out_too(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _captures(pytester)
    pytester.makepyfile(test_x=_TESTS)
    monkeypatch.setenv("PYTEST_ADDOPTS", "--jobschema-payloads captures")
    result = pytester.runpytest(*PLUGIN, "test_x.py::test_b")
    result.assert_outcomes(passed=1)
    assert _LEFT_OUT in result.stdout.lines
    monkeypatch.delenv("PYTEST_ADDOPTS")


def test_without_named_tests_the_payloads_of_addopts_run(addopts: pytest.Pytester) -> None:
    result = addopts.runpytest("-v")
    result.assert_outcomes(passed=5, failed=3)
    assert _LEFT_OUT not in result.stdout.lines
    assert any(line.startswith("captures/not-found.json PASSED") for line in result.stdout.lines)


@pytest.mark.parametrize("spelled", [["--jobschema-payloads", "captures"], ["--jobschema-payloads=captures"]])
def test_the_option_given_beside_named_tests_runs_both(addopts: pytest.Pytester, spelled: list[str]) -> None:
    result = addopts.runpytest("test_x.py::test_a", *spelled, "-v")
    result.assert_outcomes(passed=4, failed=3)
    assert _LEFT_OUT not in result.stdout.lines


def test_named_tests_with_the_option_only_on_the_command_line_run_both(pytester: pytest.Pytester) -> None:
    _captures(pytester)
    pytester.makepyfile(test_x=_TESTS)
    result = pytester.runpytest(*PLUGIN, "test_x.py::test_a", "--jobschema-payloads", "captures")
    result.assert_outcomes(passed=4, failed=3)


def test_the_entries_of_a_har_share_its_classname(pytester: pytest.Pytester) -> None:
    (pytester.path / "captures").mkdir()
    shutil.copy(FIXTURES / "session.har", pytester.path / "captures" / "session.har")
    pytester.runpytest(*PLUGIN, "--jobschema-payloads", "captures", "--junitxml=out.xml")
    cases = _testcases(pytester.path / "out.xml")
    assert len(cases) >= 2
    assert {classname for classname, _ in cases} == {"captures.session.har"}
    assert all(name.startswith("captures/session.har#") and " https://" in name for _, name in cases)


@pytest.mark.parametrize(
    "ini",
    [
        "addopts = -p jobschema.pytest_plugin --jobschema-payloads captures test_x.py\n",
        "addopts = -p jobschema.pytest_plugin --jobschema-payloads captures\ntestpaths = test_x.py\n",
    ],
    ids=["tests-in-addopts", "testpaths"],
)
def test_tests_named_by_the_configuration_are_no_tests_named_by_the_user(
    pytester: pytest.Pytester, ini: str
) -> None:
    """Only the command line itself names tests: paths in ``addopts`` or ``testpaths`` are defaults."""
    _captures(pytester)
    pytester.makepyfile(test_x=_TESTS)
    pytester.makeini("[pytest]\n" + ini)
    result = pytester.runpytest()
    result.assert_outcomes(passed=5, failed=3)
    assert _LEFT_OUT not in result.stdout.lines


def test_a_pytest_without_the_private_junit_key_keeps_its_own_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """The classname is set through pytest's private JUnit key; a pytest that moved it writes its
    default names, and no test fails for it."""
    import _pytest.junitxml

    from jobschema.pytest_plugin import _JUnitClassnames

    monkeypatch.delattr(_pytest.junitxml, "xml_key")
    report = type("Report", (), {"jobschema_classname": "captures.jobs.ndjson", "nodeid": "x"})()
    assert _JUnitClassnames(config=None).pytest_runtest_logreport(report) is None  # type: ignore[arg-type]
