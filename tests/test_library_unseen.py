"""The public library as a user calls it: paths spelled any way, payloads as values or JSON text,
arguments of the wrong type named in a TypeError before anything is read, the lifecycle map on bad
data, the pytest plugin's node ids the same in every run, and the Dask functions taking what the
local ones take."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import dask
import dask.bag as db
import pytest

from jobschema import lifecycle
from jobschema.inputs.files import named
from jobschema.lifecycle import State, observe, state_of, terminal_values
from jobschema.validate import run, validate_paths, validate_payload
from jobschema.validate.parallel import dask as on_dask
from jobschema.validate.payloads import validate_payloads
from tests.support import CAPTURES, REPO

pytest_plugins = ["pytester"]

ERROR = CAPTURES / "runai-error"
WORKLOAD = CAPTURES / "runai-distributed-workload" / "completed-job.json"
NOT_FOUND = '{"code": 404, "message": "Resource id not found."}'


# --- paths: one or many, str, bytes or PathLike ---------------------------------------------------


def _summary(inputs: Any) -> dict[str, int]:
    return validate_paths(inputs).summary()


@pytest.mark.parametrize(
    "inputs",
    [
        str(ERROR),
        ERROR,
        os.fsencode(ERROR),
        [ERROR],
        [os.fsencode(ERROR)],
        (name for name in [str(ERROR)]),
    ],
    ids=["str", "Path", "bytes", "list-of-Path", "list-of-bytes", "generator"],
)
def test_one_path_or_an_iterable_of_paths_in_any_spelling_is_the_same_run(inputs: Any) -> None:
    # (before: a str was read a character at a time, a Path was "not iterable", bytes failed in glob)
    assert _summary(inputs) == _summary([str(ERROR)]) == {
        "inputs": 2, "valid": 2, "invalid": 0, "errors": 0, "warnings": 0, "skipped": 0,
    }  # fmt: skip


def test_no_inputs_is_an_empty_report() -> None:
    report = validate_paths([])
    assert (report.results, report.summary()["inputs"], report.ok) == ((), 0, True)


#: id -> (call, the error, how its message begins)
WRONG_TYPES: dict[str, tuple[Any, type[Exception], str]] = {
    "inputs-None": (lambda: validate_paths(None), TypeError, "inputs: expected a path or an iterable "),
    "inputs-int": (lambda: validate_paths([1]), TypeError, "inputs: expected paths (str, bytes or os."),
    "inputs-payload": (lambda: validate_paths({"code": 404}), TypeError, "inputs: expected a path or an"),
    "jobs-str": (lambda: validate_paths([ERROR], jobs="2"), TypeError, "jobs: expected an int"),
    "jobs-bool": (lambda: validate_paths([ERROR], jobs=True), TypeError, "jobs: expected an int"),
    "jobs-negative": (lambda: validate_paths([ERROR], jobs=-1), ValueError, "jobs: expected 0 (one process"),
    "schema-int": (lambda: validate_paths([ERROR], 3), TypeError, "schema: expected a bundled schema name"),
    "schema-bytes": (lambda: validate_payload({}, b"runai-error"), TypeError, "schema: expected a bundled"),
    "strict-str": (
        lambda: validate_paths([ERROR], strict="yes"),
        TypeError,
        "strict: expected True or False",
    ),
    "keep_clean-None": (
        lambda: validate_paths([ERROR], keep_clean=None),
        TypeError,
        "keep_clean: expected True",
    ),
    "source-int": (lambda: validate_payload({}, source=3), TypeError, "source: expected a str naming the"),
    "payloads-name-int": (lambda: validate_payloads([], name=3), TypeError, "name: expected the source of"),
    "payloads-strict-str": (lambda: validate_payloads([], strict="yes"), TypeError, "strict: expected True"),
    "payloads-schema-int": (lambda: validate_payloads([], 3), TypeError, "schema: expected a bundled schema"),
    "stdin-text": (
        lambda: validate_paths("-", stdin=io.StringIO("{}")),
        TypeError,
        "stdin: expected a binary",
    ),
    "stdin-bytes": (lambda: validate_paths("-", stdin=b"{}"), TypeError, "stdin: expected a binary stream"),
    "api_versions-float": (
        lambda: validate_payload({}, api_versions=2.19),
        TypeError,
        "api_versions: expected",
    ),
}


@pytest.mark.parametrize(("call", "error", "message"), WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_an_argument_of_the_wrong_type_is_named(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        call()
    assert str(raised.value).startswith(message)
    assert raised.type is error  # (not an AttributeError or a TypeError from deep inside)


def test_a_schema_file_as_a_path_object_is_the_same_schema(tmp_path: Path) -> None:
    schema = REPO / "schemas" / "runai-error.schema.json"
    by_path = validate_payload(json.loads(NOT_FOUND), schema)
    by_name = validate_payload(json.loads(NOT_FOUND), str(schema))
    assert by_path == by_name and by_path.valid
    assert validate_paths([ERROR], schema) == validate_paths([ERROR], str(schema))


def test_validate_payloads_takes_one_pin_as_a_string() -> None:
    item = [{"code": 404, "message": "x"}]
    assert validate_payloads(item, api_versions="runai=2.19") == validate_payloads(
        item, api_versions={"runai": "2.19"}
    )


def test_one_api_version_pin_as_a_string_is_one_pin() -> None:
    # (before: "runai=2.19" was read a character at a time: "'r': give API=VERSION")
    assert validate_payload(json.loads(NOT_FOUND), api_versions="runai=2.19").version == "2.19"
    report = validate_paths([ERROR], api_versions="runai=2.19")
    assert {result.version for result in report.results} == {"2.19"}


def test_sessions_kept_by_the_library_are_bounded() -> None:
    for index in range(run.SESSIONS_KEPT * 3):
        validate_payload(
            {"a": index}, api_versions={"runai": ("2.18", "2.24")[index % 2]}, strict=index % 3 == 0
        )
    assert len(run._SESSIONS) <= run.SESSIONS_KEPT


# --- payloads: a value or JSON text ----------------------------------------------------------------


@pytest.mark.parametrize("text", [NOT_FOUND, NOT_FOUND.encode(), bytearray(NOT_FOUND.encode())])
def test_json_text_is_parsed_as_validate_payloads_parses_it(text: Any) -> None:
    # (before: a str was "top level is a str value", bytes "a bytes value", never parsed)
    result = validate_payload(text, source="answer")
    assert (result.source, result.schema, result.valid, result.findings) == (
        "answer",
        "runai-error",
        True,
        (),
    )
    assert validate_payloads([("answer", text)]).results == (result,)


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "code": 404,\n  "message": 5\n}',
        '{"code": 404,\n "code": 405, "message": "x"}',
        "{nope",
        "\ufeff" + '{"code": "404"}',
    ],
    ids=["type", "duplicate-key", "parse-error", "bom"],
)
def test_json_text_has_the_findings_of_a_file_of_those_bytes(text: str, tmp_path: Path) -> None:
    path = tmp_path / "answer.json"
    path.write_bytes(text.encode("utf-8"))
    [from_file] = validate_paths([path]).results
    placed = [(f.pointer, f.line, f.column, f.rule, f.message) for f in from_file.findings]
    for given in (text, text.encode("utf-8")):
        result = validate_payload(given, source=str(path))
        assert [(f.pointer, f.line, f.column, f.rule, f.message) for f in result.findings] == placed
    assert placed and all(line is not None for _, line, *_ in placed)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([1, 2], "top level is an array, not a JSON object; no schema fits"),
        ({"hello": "world"}, "no bundled schema fits ("),
        ("hello", "invalid JSON: "),
        ("", "file is empty"),
    ],
)
def test_a_payload_of_no_known_shape_is_a_finding_not_an_exception(value: Any, message: str) -> None:
    result = validate_payload(value)
    assert not result.valid and result.schema == ""
    assert len(result.findings) == 1 and result.findings[0].message.startswith(message)


def test_results_are_the_same_call_after_call() -> None:
    payload = json.loads(WORKLOAD.read_text(encoding="utf-8"))
    payload["desiredPhase"] = "Paused"
    first = validate_payload(payload, strict=True)
    assert all(validate_payload(payload, strict=True) == first for _ in range(3))
    assert repr(validate_payload(json.dumps(payload), strict=True)).count("Paused") == 1


# --- the lifecycle map on bad data ---------------------------------------------------------------


@pytest.mark.parametrize(
    "phase", [None, 5, 2.5, True, ["Running"], {"phase": "Running"}, "running", "RUNNING"]
)
@pytest.mark.parametrize("api", ["runai", "aihc", "pod"])
def test_a_phase_no_map_knows_is_unknown_whatever_its_type(api: str, phase: Any) -> None:
    # (before: a list or a dict, as a broken capture holds, raised "unhashable type")
    if api in lifecycle.CASE_INSENSITIVE and isinstance(phase, str):  # (round 12: AIHC in any case)
        assert state_of(api, phase) is observe(api, phase, since_submit=3.0) is State.RUNNING
        return
    assert state_of(api, phase) is State.UNKNOWN
    # (no phase yet is transient near submit; a value no map knows is unknown at any time)
    assert observe(api, phase, since_submit=3.0) is (State.WAITING if phase is None else State.UNKNOWN)
    assert observe(api, phase, since_submit=600.0) is State.UNKNOWN


@pytest.mark.parametrize("call", [state_of, lifecycle.is_terminal, lambda api, _: terminal_values(api)])
@pytest.mark.parametrize("api", ["k8s", "RUNAI", None, 3])
def test_an_api_no_map_is_for_is_a_value_error_naming_the_maps(call: Any, api: Any) -> None:
    # (before: KeyError: 'k8s')
    with pytest.raises(ValueError, match=r"^api: expected one of 'runai', 'aihc', 'pod', not "):
        call(api, "Running")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"status": "503"}, "status: expected an HTTP status code (int), not str"),
        ({"status": None}, "status: expected an HTTP status code (int), not NoneType"),
        ({"since_submit": "3"}, "since_submit: expected seconds (a number) or None, not str"),
    ],
)
def test_an_observation_of_the_wrong_type_is_named(options: dict[str, Any], message: str) -> None:
    # (before: "503" was a transient answer and "3" failed inside a comparison)
    with pytest.raises(TypeError) as raised:
        observe("runai", "Running", **options)
    assert str(raised.value) == message


# --- the pytest plugin's node ids ------------------------------------------------------------------


def _node_ids(pytester: pytest.Pytester, key: str, *args: str) -> list[str]:
    """The node ids of an inner run (in this process) under ``key`` ("": a random key of its own)."""
    from jobschema.secrets.mask import use_mask_key

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JOBSCHEMA_MASK_KEY", key)
        use_mask_key(None)  # (the next mask reads the key anew, or draws a new random one)
        try:
            result = pytester.runpytest("-p", "jobschema.pytest_plugin", "--collect-only", "-q", *args)
        finally:
            use_mask_key(None)
    lines = result.outlines
    return lines[: lines.index("")] if "" in lines else lines


@pytest.fixture
def quiet_pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def _secret_names(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "captures"
    folder.mkdir()
    for token in ("a" * 36, "b" * 36):
        (folder / f"job-ghp_{token}.json").write_text(NOT_FOUND, encoding="utf-8")
    (folder / "plain.json").write_text(NOT_FOUND, encoding="utf-8")


def test_node_ids_are_the_same_in_every_run_under_random_mask_keys(quiet_pytester: pytest.Pytester) -> None:
    # (before: a secret in a file name was in the node id as its mask, which changes with each run's
    # random key: --lf and xdist workers, each drawing its own key, saw different node ids)
    _secret_names(quiet_pytester)
    first = _node_ids(quiet_pytester, "", "--jobschema-payloads", "captures")
    second = _node_ids(quiet_pytester, "", "--jobschema-payloads", "captures")
    assert first == second == ["captures/<secret>.json", "captures/<secret>.json[2]", "captures/plain.json"]


def test_node_ids_under_a_set_mask_key_are_the_sources_validate_shows(
    quiet_pytester: pytest.Pytester,
) -> None:
    _secret_names(quiet_pytester)
    ids = _node_ids(quiet_pytester, "a key", "--jobschema-payloads", "captures")
    with pytest.MonkeyPatch.context() as patch:
        from jobschema.secrets.mask import use_mask_key

        patch.setenv("JOBSCHEMA_MASK_KEY", "a key")
        use_mask_key(None)
        try:
            shown = [named(result.source) for result in validate_paths(["captures"]).results]
        finally:
            use_mask_key(None)
    assert ids == shown and len(set(ids)) == 3 and all("ghp_" not in line for line in ids)


def test_node_ids_are_relative_to_the_root_however_the_path_is_spelled(
    quiet_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (before: "../root/captures/a.json" run from a sibling folder was the node id as spelled)
    root = quiet_pytester.path
    (root / "captures").mkdir()
    (root / "captures" / "a.json").write_text(NOT_FOUND, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "elsewhere").mkdir()
    monkeypatch.chdir(root / "elsewhere")
    spelled = f"../../{root.name}/../{root.name}/./captures/a.json"
    outside = _node_ids(quiet_pytester, "k", "--rootdir", str(root), "--jobschema-payloads", spelled)
    assert outside == ["captures/a.json"]


# --- Dask: the options and arguments of the local functions -------------------------------------


def test_dask_files_take_one_path_and_api_versions_as_the_local_run_does() -> None:
    # (before: a str was read a character at a time; api_versions was not an argument)
    with dask.config.set(scheduler="sync"):
        remote = on_dask.validate_files(str(ERROR), api_versions={"runai": "2.19"})
        bag = on_dask.validate_bag(db.from_sequence([NOT_FOUND], npartitions=1), api_versions="runai=2.19")
    assert remote == validate_paths(str(ERROR), api_versions={"runai": "2.19"})
    assert {result.version for result in remote.results} == {"2.19"}
    assert bag.results == validate_payloads([NOT_FOUND], api_versions={"runai": "2.19"}).results


CLIENT = "client: expected a distributed.Client"
#: id -> (call, how the message of its TypeError begins)
DASK_WRONG_TYPES: dict[str, tuple[Any, str]] = {
    "list-bag": (lambda: on_dask.validate_bag([NOT_FOUND]), "bag: expected a Dask bag"),
    "str-bag": (lambda: on_dask.validate_path_bag(str(ERROR)), "bag: expected a Dask bag"),
    "address-client": (lambda: on_dask.validate_files([ERROR], client="tcp://127.0.0.1:8786"), CLIENT),
    "object-client": (lambda: on_dask.validate_bag(db.from_sequence([1]), client=object()), CLIENT),
    "None-inputs": (lambda: on_dask.validate_files(None), "inputs: expected a path or an iterable of paths"),
    "None-name": (lambda: on_dask.validate_bag(db.from_sequence([1]), name=None), "name: expected a str"),
    "list-frame": (lambda: on_dask.validate_dataframe([], "body"), "frame: expected a Dask dataframe"),
    "int-address": (lambda: on_dask.connect(8786), "address: expected a str"),
    "str-timeout": (
        lambda: on_dask.connect("tcp://127.0.0.1:1", "10"),
        "timeout: expected a number of seconds",
    ),
}


@pytest.mark.parametrize(("call", "message"), DASK_WRONG_TYPES.values(), ids=DASK_WRONG_TYPES.keys())
def test_dask_arguments_of_the_wrong_type_are_named(call: Any, message: str) -> None:
    # (before: AttributeError: 'list' object has no attribute 'to_delayed', 'str' ... 'nthreads')
    with pytest.raises(TypeError) as raised:
        call()
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    ("count", "error", "message"),
    [
        (0, ValueError, "files_per_task: expected 1 or more, not 0"),
        (-3, ValueError, "files_per_task: expected 1 or more, not -3"),
        ("4", TypeError, "files_per_task: expected an int or None, not str"),
    ],
)
def test_files_per_task_out_of_range_is_named(count: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        on_dask.validate_files(ERROR, files_per_task=count)
    assert str(raised.value) == message


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), 0, -1.5])
def test_a_dask_timeout_that_bounds_no_wait_is_one_line(timeout: Any) -> None:
    with pytest.raises(on_dask.DaskError) as raised:
        on_dask.connect("tcp://127.0.0.1:1", timeout=timeout)
    assert str(raised.value) == f"the Dask timeout must be a number of seconds above 0, not {timeout!r}"


@pytest.mark.parametrize("timeout", ["nan", "inf", "1e400"])
def test_validate_dask_timeout_nan_or_inf_is_exit_2_not_an_internal_error(run_cli, timeout: str) -> None:
    # (before: "internal error: KeyError: 'Invalid time unit: nan...'"; then refused only when
    # connecting, after the inputs were read: now the option's type refuses it, as serve's timeouts)
    result = run_cli(
        ["validate", "--dask", "tcp://127.0.0.1:1", "--dask-timeout", timeout, str(ERROR)], code=2
    )
    assert (
        result.stderr
        == f"Error: Invalid value for '--dask-timeout': {timeout!r} is not a finite number of seconds\n"
    )


def test_an_in_process_scheduler_can_be_connected_to() -> None:
    # (before: "'inproc://…' is not a Dask scheduler address": it has no port to check)
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("inproc://")
        client = on_dask.connect(cluster.scheduler_address, timeout=60)
        try:
            assert on_dask.validate_files([ERROR], client=client) == validate_paths([ERROR])
        finally:
            client.close()


# --- the pages' examples ---------------------------------------------------------------------------

#: A python block, and the text block that says what it prints when one follows it ("prints").
_EXAMPLE = re.compile(r"```python\n(?P<code>.*?)```\n(?:\nprints\n\n```text\n(?P<out>.*?)```)?", re.DOTALL)


@pytest.mark.parametrize("page", ["library.md", "lifecycle.md"])
def test_the_pages_examples_run_and_print_what_they_say(
    page: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPO)  # (the examples name the repository's files)
    examples = list(_EXAMPLE.finditer((REPO / "docs" / page).read_text(encoding="utf-8")))
    assert examples
    for example in examples:
        capsys.readouterr()
        exec(compile(example["code"], f"docs/{page}", "exec"), {})
        if example["out"] is not None:
            assert capsys.readouterr().out == example["out"]


def test_dir_of_the_package_lists_its_lazy_exports_without_loading_them() -> None:
    # (before: dir(jobschema) had none of them, so completion offered none)
    code = (
        "import sys, jobschema; names = dir(jobschema); "
        "print(set(jobschema.__all__) <= set(names), 'jobschema.validate' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "True False\n"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda t: t.payloads("runai-error", version=2.19),
            "version: expected a str such as '2.19', or None",
        ),
        (lambda t: t.payloads(3), "schema_name: expected a bundled schema's name (str), not int"),
        (
            lambda t: t.invalid_payloads(None),
            "schema_name: expected a bundled schema's name (str), not NoneType",
        ),
        (
            lambda t: t.from_schema('{"type": "object"}'),
            "document: expected a parsed JSON Schema (a dict), not str",
        ),
    ],
    ids=["version-float", "name-int", "name-None", "document-text"],
)
def test_the_testing_kit_names_an_argument_of_the_wrong_type(call: Any, message: str) -> None:
    # (before: "runai-error: no version 2.19 (known: 2.18, 2.19, ...)"; "'str' object has no attribute 'get'")
    import jobschema.testing

    with pytest.raises(TypeError) as raised:
        call(jobschema.testing)
    assert str(raised.value).startswith(message)
