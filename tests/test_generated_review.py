"""The generated models agree with the schemas they are written from, and generation is reproducible.

Agreement is differential: a payload the schema accepts (formats aside, see below) is one the root model
accepts and dumps back exactly; a payload the schema refuses for a reason a model can hold (a type, an
enum, a required property, a null where none is allowed, a pattern, a bound) is one it refuses. The
payloads are the captures and edge cases (valid and invalid), hypothesis draws of
:mod:`jobschema.testing` (every Run:ai version too), and each valid capture changed at one place in
every way that matters to a model: a null, a number as text, a boolean as a number, a value no
``enum`` lists, an extra key, a big integer. docs/schemas.md lists the differences that are accepted:
a ``format`` is not held by the models, and an integer field refuses ``1.0``.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic.alias_generators import to_snake

from jobschema.schemas import versions
from jobschema.testing import invalid_payloads, payloads

from .support import BUNDLED, REPO, ROOT_CLASSES, SCHEMAS, all_examples, case_id, load_json, valid_cases

MODELS = REPO / "generated" / "jobschema" / "models"
Path_ = tuple[str | int, ...]


@cache
def _structure(name: str) -> Any:
    """The schema's verdict on what a model can hold: every keyword but ``format``."""
    return jsonschema_rs.validator_for(load_json(SCHEMAS / f"{name}.schema.json"), validate_formats=False)


@cache
def _model(name: str) -> type[pydantic.BaseModel]:
    module, cls = ROOT_CLASSES[name]
    model: type[pydantic.BaseModel] = getattr(importlib.import_module(module), cls)
    return model


def _dumped(name: str, payload: Any) -> Any:
    """What the model dumps of ``payload``, or the ``ValidationError`` it raises."""
    try:
        parsed = _model(name).model_validate(payload)
    except pydantic.ValidationError as err:
        return err
    return parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _integral_float_in_integer(name: str, payload: Any) -> bool:
    """The one accepted difference where a model refuses what the schema accepts: ``1.0`` for an
    integer (JSON Schema's integer is any number without a fraction; the models' is an int). The
    model accepts ``payload`` once each such float is written as an int."""
    return not isinstance(_dumped(name, _integral_floats_as_ints(payload)), pydantic.ValidationError)


def _integral_floats_as_ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integral_floats_as_ints(child) for key, child in value.items()}
    if isinstance(value, list):
        return [_integral_floats_as_ints(child) for child in value]
    return value


def assert_agree(name: str, payload: Any, where: str) -> None:
    """Schema and model agree on ``payload``; an accepted one round-trips exactly."""
    schema_ok = _structure(name).is_valid(payload)
    dumped = _dumped(name, payload)
    if not schema_ok:
        assert isinstance(dumped, pydantic.ValidationError), (
            f"{where}: the model accepts what the schema refuses"
        )
        return
    if isinstance(dumped, pydantic.ValidationError):
        assert _integral_float_in_integer(name, payload), (
            f"{where}: the model refuses a valid payload: {dumped}"
        )
        return
    assert json.dumps(dumped, sort_keys=True) == json.dumps(payload, sort_keys=True), f"{where}: round trip"


def _nodes(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every value below the root with its path (keys and indices)."""
    children = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, child in children:
        yield (*path, key), child
        yield from _nodes(child, (*path, key))


def _set(document: Any, path: Path_, value: Any) -> None:
    for key in path[:-1]:
        document = document[key]
    document[path[-1]] = value


#: A key no schema declares (``additionalProperties`` is open at every level but a few maps).
EXTRA_KEY = "zzReviewExtra"


def replacements(value: Any) -> list[Any]:
    """What one value is changed to: each class of disagreement a generator option decides."""
    out: list[Any] = [None]
    if isinstance(value, bool):
        out += [int(value), json.dumps(value)]
    elif isinstance(value, int):
        out += [str(value), value != 0, 2**70, -(2**70)]
    elif isinstance(value, float):
        out += [str(value), 10**300 * 1.0]
    elif isinstance(value, str):
        out += [7, True, "ZzNotAKnownValue", "", f"{value}\n"]  # ($: the end, not a newline before it)
    elif isinstance(value, dict):
        out += [[], "{}", {**value, EXTRA_KEY: {"nested": [1, 2.5, None]}}]
        out.append({to_snake(key): child for key, child in value.items()})  # a field's name for its key
    elif isinstance(value, list):
        out += [{}, "[]", [*value, *value[:1]]]
    return out


def mutations(payload: Any) -> Iterator[tuple[Path_, Any, Any]]:
    """``(path, replacement, payload changed there)`` for every node and every replacement; the payload
    is changed in place and put back before the next."""
    for path, value in list(_nodes(payload)):
        for new in replacements(value):
            _set(payload, path, new)
            yield path, new, payload
        _set(payload, path, value)


# --- examples ------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", all_examples(), ids=case_id)
def test_models_agree_with_the_schema_on_every_example(case: tuple[str, Path]) -> None:
    name, path = case
    assert_agree(name, load_json(path), str(path))


@pytest.mark.parametrize("case", valid_cases(), ids=case_id)
def test_models_agree_with_the_schema_at_every_place_of_a_capture_changed(case: tuple[str, Path]) -> None:
    name, path = case
    for where, new, changed in mutations(load_json(path)):
        assert_agree(name, changed, f"{path} at {list(where)} = {new!r}")


def test_the_classes_of_change_were_met() -> None:
    """The mutations above reach each class: a refused coercion, a refused null, an open value."""
    payload = load_json(SCHEMAS / "examples" / "aihc-job-detail" / "seed.json")
    result = payload["result"]
    for key, value in (("enableRDMA", "false"), ("enableRDMA", 0), ("replicas", "1"), ("replicas", True)):
        assert isinstance(
            _dumped("aihc-job-detail", _with(payload, ("result", key), value)), pydantic.ValidationError
        )
    assert isinstance(
        _dumped("aihc-job-detail", _with(payload, ("result", "name"), None)), pydantic.ValidationError
    )
    assert "status" in result
    error = {"code": "NotFound", "message": "no such job", "request_id": "r-1"}  # requestId missing
    assert isinstance(_dumped("aihc-error", error), pydantic.ValidationError)
    open_value = _with(payload, ("result", "status"), "ZzNotAKnownValue")
    assert _dumped("aihc-job-detail", open_value) == open_value  # medium confidence: a warning, not a refusal


def _with(payload: Any, path: Path_, value: Any) -> Any:
    changed = json.loads(json.dumps(payload))
    _set(changed, path, value)
    return changed


# --- hypothesis -----------------------------------------------------------------------------------

BIG = ("runai-distributed-workload", "aihc-job-detail", "aihc-raw-request", "aihc-v2-job")


def _examples(name: str) -> settings:
    return settings(
        max_examples=15 if name in BIG else 40,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@pytest.mark.parametrize("name", BUNDLED)
def test_models_agree_on_drawn_payloads_valid_and_invalid(name: str) -> None:
    @_examples(name)
    @given(payloads(name), invalid_payloads(name))
    def check(valid: dict[str, Any], invalid: tuple[dict[str, Any], str]) -> None:
        assert_agree(name, valid, "drawn valid payload")
        assert_agree(name, invalid[0], f"drawn invalid payload (broken at {invalid[1]})")

    check()


@pytest.mark.parametrize("version", versions.known("runai"))
def test_one_model_set_reads_every_runai_version(version: str) -> None:
    name = "runai-distributed-workload"

    @_examples(name)
    @given(payloads(name, version=version))
    def check(payload: dict[str, Any]) -> None:
        assert_agree(name, payload, f"drawn {version} payload")

    check()


@pytest.mark.parametrize("name", BUNDLED)
def test_models_agree_on_drawn_payloads_changed_at_one_place(name: str) -> None:
    @_examples(name)
    @given(payloads(name), st.data())
    def check(payload: dict[str, Any], data: st.DataObject) -> None:
        places = list(_nodes(payload))
        path, value = data.draw(st.sampled_from(places), label="place")
        new = data.draw(st.sampled_from(replacements(value)), label="replacement")
        assert_agree(name, _with(payload, path, new), f"at {list(path)} = {new!r}")

    check()


def test_every_model_module_imports_without_a_warning() -> None:
    """Pydantic 2.14 warns at an import of ``MISSING`` from ``pydantic.experimental`` (2.12: only there)."""
    modules = [f"jobschema.models.{path.stem}" for path in sorted(MODELS.glob("*.py"))]
    code = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", code, *modules],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")


# --- determinism ----------------------------------------------------------------------------------


def _generate(out: Path, cwd: Path, env: dict[str, str], python: str = sys.executable) -> None:
    done = subprocess.run(
        [python, "-m", "jobschema", "generate", "--output-dir", str(out)],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_generation_is_the_same_bytes_from_anywhere_in_any_zone_and_locale(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "models"
    env = {"TZ": "Asia/Shanghai", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "12345", "HOME": str(elsewhere)}
    _generate(out, elsewhere, env)
    names = sorted(p.name for p in MODELS.glob("*.py"))
    assert sorted(p.name for p in out.glob("*.py")) == names
    for name in names:
        text = (out / name).read_bytes()
        assert text == (MODELS / name).read_bytes(), name
        for place in (str(REPO), str(tmp_path)):
            assert place.encode() not in text, (name, place)
        assert b"timestamp" not in text.split(b"\n\n", 1)[0], name


def test_check_names_the_one_module_a_changed_schema_makes_stale(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    schemas = tmp_path / "schemas"
    shutil.copytree(SCHEMAS, schemas, ignore=shutil.ignore_patterns("examples", "official"))
    run_cli(["generate", "--check", "--schemas-dir", str(schemas), "--output-dir", str(MODELS)], code=0)
    path = schemas / "runai-error.schema.json"
    document = load_json(path)
    document["properties"]["message"]["description"] = "Changed by a test."
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    result = run_cli(
        ["generate", "--check", "--schemas-dir", str(schemas), "--output-dir", str(MODELS)], code=1
    )
    assert result.stdout == f"stale: {MODELS}/runai_error.py\n"
    assert result.stderr == "1 generated file(s) out of date; run 'jobschema generate'\n"


# --- error paths ----------------------------------------------------------------------------------


def _schemas_copy(tmp_path: Path) -> Path:
    schemas = tmp_path / "schemas"
    shutil.copytree(SCHEMAS, schemas, ignore=shutil.ignore_patterns("examples", "official"))
    return schemas


def test_a_ref_to_nowhere_is_one_line_naming_the_schema_file(run_cli, tmp_path: Path) -> None:
    schemas = _schemas_copy(tmp_path)
    path = schemas / "runai-error.schema.json"
    document = load_json(path)
    document["properties"]["details"] = {"$ref": "#/$defs/Nowhere"}
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    result = run_cli(
        ["generate", "--schemas-dir", str(schemas), "--output-dir", str(tmp_path / "out")], code=2
    )
    assert result.stderr == (
        f"Error: {path.name}: datamodel-codegen failed: Unresolved local $ref targets: "
        "- runai-error.schema.json: #/$defs/Nowhere\n"
    )
    assert not (tmp_path / "out").exists()


def test_an_output_folder_under_a_file_is_one_line(run_cli, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    out = tmp_path / "file" / "models"
    result = run_cli(["generate", "--output-dir", str(out)], code=2)
    assert result.stderr == f"Error: {out}: cannot create the folder: Not a directory\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_output_folder_is_one_line(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "models"
    shutil.copytree(MODELS, out)
    (out / "runai_error.py").write_text("# stale\n", encoding="utf-8")
    out.chmod(0o500)
    try:
        result = run_cli(["generate", "--output-dir", str(out)], code=2)
    finally:
        out.chmod(0o700)
    assert result.stderr.startswith(f"Error: {out}/runai_error.py: cannot write: ")
    assert result.stderr.count("\n") == 1


def test_a_module_that_cannot_be_written_is_one_line_and_the_others_are_kept(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "models"
    shutil.copytree(MODELS, out)
    (out / "runai_error.py").unlink()
    (out / "runai_error.py").mkdir()
    result = run_cli(["generate", "--output-dir", str(out)], code=2)
    assert result.stderr == f"Error: {out}/runai_error.py: cannot write: is a folder\n"
    for path in MODELS.glob("*.py"):
        if path.name != "runai_error.py":
            assert (out / path.name).read_bytes() == path.read_bytes(), path.name


@pytest.mark.parametrize("tool", ["datamodel-code-generator", "ruff"])
def test_another_version_of_a_pinned_tool_is_refused_before_it_writes_other_bytes(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    from jobschema.schemas import codegen

    pins = codegen.pinned_versions()
    assert set(pins) == {"datamodel-code-generator", "ruff"}
    real = codegen.installed_version
    monkeypatch.setattr(codegen, "installed_version", lambda name: "0.0.1" if name == tool else real(name))
    for args in (["generate", "--check"], ["generate", "--output-dir", str(tmp_path / "out")]):
        result = run_cli(args, code=2)
        assert result.stderr == (
            f"Error: {tool} 0.0.1 is installed, but the models are written with {tool} {pins[tool]} "
            "(the codegen extra, pinned: another version writes other bytes); "
            "install it: pip install 'jobschema[codegen]'\n"
        )
    assert not (tmp_path / "out").exists()
