"""The pytest plugin's fixtures misused, and its node ids: a misuse of ``jobschema_server`` or
``jobschema_validate`` fails the test in one line naming the fixture and the problem (no traceback
into jobschema), and the node ids of one collection are unique whatever the file names are."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.pytest_plugin import distinct

from .support import CAPTURES

pytest_plugins = ["pytester"]

PLUGIN = ("-p", "jobschema.pytest_plugin")


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def _one_line_failure(result: pytest.RunResult, line: str) -> None:
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert line in result.stdout.lines, output
    assert "Traceback" not in output and "jobschema/" not in output, output
    assert "\nE   " not in output, output  # (no exception report: the line alone)


# ------------------------------------------------------------------ jobschema_server misused


@pytest.mark.parametrize(
    ("call", "line"),
    [
        (
            "jobschema_server(nonsense=1)",
            "jobschema_server: unexpected keyword argument 'nonsense' (known: allow_remote, api_versions, "
            "clock, config, credentials, faults, generate, host, lifecycle, limits, log, port, seed, "
            "serve_invalid)",
        ),
        (
            "jobschema_server(config={'bogus': 1})",
            "jobschema_server: bogus: unknown key (known: aihc, faults, runai, seed)",
        ),
        (
            "jobschema_server('no/such/captures.json')",
            "jobschema_server: no/such/captures.json: no such file or folder",
        ),
        (
            "jobschema_server(limits={'max_jobs': 3})",
            "jobschema_server: limits: expected a jobschema.serve.Limits (or None), not dict",
        ),
        (
            "jobschema_server(credentials='secret')",
            "jobschema_server: credentials: expected a jobschema.serve.Credentials (or None), not str",
        ),
        (
            "jobschema_server(config=5)",
            "jobschema_server: config: expected a config file path, a mapping or a ServeConfig (or None), "
            "not int",
        ),
        (
            "jobschema_server(config=ServeConfig(), lifecycle={'runai': []})",
            "jobschema_server: give lifecycle and faults in the ServeConfig, or config as a mapping",
        ),
    ],
)
def test_a_server_fixture_misused_fails_in_one_line(pytester, call: str, line: str) -> None:
    pytester.makepyfile(
        f"""
        from jobschema.serve import ServeConfig

        def test_serves(jobschema_server):
            {call}
        """
    )
    _one_line_failure(pytester.runpytest(*PLUGIN), line)


# ------------------------------------------------------------------ jobschema_validate misused


@pytest.mark.parametrize(
    ("call", "line"),
    [
        (
            "jobschema_validate({}, 3)",
            "jobschema_validate: schema: expected a bundled schema name or a schema file path, not int",
        ),
        (
            "jobschema_validate({}, 'runai-error', strict='yes')",
            "jobschema_validate: strict: expected True or False, not str",
        ),
        (
            "jobschema_validate('job.json')",
            "jobschema_validate: job.json is a path, not a payload: pass its parsed value or its text "
            "(json.loads(path.read_text()) or path.read_text())",
        ),
        (
            "jobschema_validate(pathlib.Path('job.json'))",
            "jobschema_validate: job.json is a path, not a payload: pass its parsed value or its text "
            "(json.loads(path.read_text()) or path.read_text())",
        ),
    ],
)
def test_a_validate_fixture_misused_fails_in_one_line(pytester, call: str, line: str) -> None:
    (pytester.path / "job.json").write_text("{}", encoding="utf-8")
    pytester.makepyfile(
        f"""
        import pathlib

        def test_validates(jobschema_validate):
            {call}
        """
    )
    _one_line_failure(pytester.runpytest(*PLUGIN), line)


def test_a_schema_given_as_a_path_is_still_a_schema_file(pytester) -> None:
    schema = CAPTURES.parent / "runai-error.schema.json"
    if not schema.is_file():
        schema = next(CAPTURES.parent.glob("runai-error*.json"))
    payload = CAPTURES / "runai-error" / "not-found.json"
    pytester.makepyfile(
        f"""
        import json, pathlib

        def test_validates(jobschema_validate):
            payload = json.loads(pathlib.Path({str(payload)!r}).read_text())
            assert jobschema_validate(payload, pathlib.Path({str(schema)!r})).valid
        """
    )
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=1)


# ------------------------------------------------------------------ node ids


@settings(database=None, max_examples=200)
@given(st.lists(st.sampled_from(["a", "a[2]", "a[3]", "a[2][2]", "b", "<secret>.json", "<secret>.json[2]"])))
def test_node_ids_are_unique_and_the_first_of_each_keeps_its_name(names: list[str]) -> None:
    taken: dict[str, int] = {}
    ids = [distinct(name, taken) for name in names]
    assert len(set(ids)) == len(ids)
    again: dict[str, int] = {}
    assert [distinct(name, again) for name in names] == ids  # the same in every run
    for name, shown in zip(names, ids, strict=True):
        assert shown == name or shown.startswith(name + "[")


def test_a_file_named_like_a_numbered_duplicate_keeps_node_ids_unique(pytester) -> None:
    """``::`` separates the parts of a node id, so ``x::y.json`` shows as ``x: :y.json``, as the file of
    that name does: the second is numbered ``[2]``, and a file named so is numbered in turn."""
    folder = pytester.path / "captures"
    folder.mkdir()
    seed = CAPTURES / "runai-distributed-workload" / "seed.json"
    inputs = ["captures/x::y.json", "captures/x: :y.json", "captures/x: :y.json[2]"]
    for name in inputs:
        shutil.copy(seed, pytester.path / name)
    args = [arg for name in inputs for arg in ("--jobschema-payloads", name)]
    strict = ("-W", "error", "--strict-markers")  # (in a process of its own: in-process, the plugin
    # module imported already cannot be rewritten, which -W error makes an error)
    result = pytester.runpytest_subprocess(*PLUGIN, *args, "--collect-only", "-q", *strict)
    ids = [line for line in result.stdout.lines if line.startswith("captures/")]
    assert ids == ["captures/x: :y.json", "captures/x: :y.json[2]", "captures/x: :y.json[2][2]"], ids
    result = pytester.runpytest_subprocess(*PLUGIN, *args, *strict)
    result.assert_outcomes(passed=3)


# ------------------------------------------------------------------ file names that look like CI commands

_COMMAND_NAMES = (
    "##vso[task.setvariable variable=X]1.json",
    "##[group]y.json",
    "::error::x.json",
    "##teamcity[message text='x'].json",
)


@pytest.mark.parametrize("listing", [("-v", "-rA"), ("--collect-only", "-q"), ("-q", "-rf")])
def test_a_capture_named_like_a_ci_command_is_never_one_in_the_output(
    pytester, listing: tuple[str, ...]
) -> None:
    """No line of the run begins a CI runner's command, and none holds an in-line one (Azure's
    ``##vso[``, TeamCity's ``##teamcity[``): in node ids (``-v``, ``--collect-only``), failure headings
    and the short summary, as in the findings."""
    from jobschema.text import COMMAND_START, IN_LINE_COMMAND

    source = CAPTURES.parent.parent / "tests" / "fixtures" / "captures" / "invalid-workload.json"
    for name in _COMMAND_NAMES:
        shutil.copy(source, pytester.path / name)
    args = [arg for name in _COMMAND_NAMES for arg in ("--jobschema-payloads", name)]
    result = pytester.runpytest(*PLUGIN, *args, *listing)
    lines = result.outlines + result.errlines
    assert sum("json" in line for line in lines) >= len(_COMMAND_NAMES), lines
    assert [line for line in lines if COMMAND_START.match(line) or IN_LINE_COMMAND.search(line)] == []
    ids = [line.split(" ")[0] for line in result.outlines if line.endswith(".json") and " " not in line]
    if listing[0] == "--collect-only":  # the ids are the same in every run, and name each item
        again = pytester.runpytest(*PLUGIN, *args, "--collect-only", "-q")
        assert ids and [line for line in again.outlines if line in ids] == ids
        deselected = pytester.runpytest(*PLUGIN, *args, "--deselect", ids[0], "--collect-only", "-q")
        assert ids[0] not in deselected.outlines and len(set(deselected.outlines) & set(ids)) == len(ids) - 1
