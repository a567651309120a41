"""Round 7 of the review of ``jobschema generate``, ``jobschema schemas``/``schemas show``,
``jobschema rules`` and the generated models: cases no earlier review listed.

Classes found and fixed here:

- **one bad file stops the others** (generate): the first module that could not be written, the
  first module the generator did not write and the first broken schema were the only ones named,
  and every stale module after the first unwritable one was left stale. Now each is named, one line
  each, and every module that can be written is (exit 2 all the same).
- **stale detection read loosely**: a module was read as text with newlines translated, so one with
  CRLF line ends passed ``--check`` and was never rewritten (the models are promised byte for
  byte), and one that is not UTF-8 was diffed as if it were missing. Now the bytes are compared, a
  missing module says ``(missing)``, the diff names the folder compared, and ``--check`` says of a
  module the generator did not write that it must be moved out (``generate`` refuses it).
- **the schemas folder read beyond its schemas**: every ``*.json`` in it was read for the memo key,
  so a FIFO beside the schemas hung the run and a link loop or a folder named ``x.json`` failed it;
  a schema that is a FIFO was "not found". Now only the schemas the models are written from are
  read, each through the one reader of side files.
- **what the generator cannot be given**: a ``$ref`` to another document made the generator fetch
  a URL (the models would depend on the network) or name a temporary path; now refused before it
  runs. A schema whose model does not import (a ``pattern`` Pydantic cannot compile) was written
  with exit 0; now each such schema is named and nothing is written.
- **schemas show**: printed a schema file with its line ends translated (not "exactly as stored");
  an unknown name's error left out the report schemas ``show`` prints, and said nothing of a name
  that differs from a bundled one only by case or spelling; and ``-o FILE``, which every other
  printing command takes, was refused.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.schemas import codegen
from tests.support import BUNDLED, CAPTURES, REPO, ROOT_CLASSES, SCHEMAS, SHARED_SEEDS, files_under, load_json

MODELS = REPO / "generated" / "jobschema" / "models"

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _needs_codegen() -> None:
    pytest.importorskip("datamodel_code_generator")


@pytest.fixture
def models(tmp_path: Path) -> Path:
    _needs_codegen()
    out = tmp_path / "models"
    shutil.copytree(MODELS, out, ignore=shutil.ignore_patterns("__pycache__"))
    return out


def _schemas(tmp_path: Path) -> Path:
    folder = tmp_path / "schemas"
    shutil.copytree(SCHEMAS, folder, ignore=shutil.ignore_patterns("examples", "official", "README.md"))
    return folder


def _edit(path: Path, change: Any) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")


# --- stale detection reads bytes -------------------------------------------------------------------


def test_a_model_with_crlf_line_ends_is_stale_and_rewritten(run_cli, models: Path) -> None:
    path = models / "runai_error.py"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    check = run_cli(["generate", "--check", "--output-dir", str(models)], code=1)
    assert check.stdout == f"stale: {path}\n"
    assert run_cli(["generate", "--output-dir", str(models)], code=0).stdout == f"wrote {path}\n"
    assert path.read_bytes() == (MODELS / "runai_error.py").read_bytes()


def test_a_model_that_is_not_utf8_is_diffed_line_by_line(run_cli, models: Path) -> None:
    path = models / "aihc_error.py"
    lines = path.read_bytes().split(b"\n")
    lines[3] += b" \xff"
    path.write_bytes(b"\n".join(lines))
    check = run_cli(["generate", "--check", "--diff", "--output-dir", str(models)], code=1)
    removed = [
        line for line in check.stdout.splitlines() if line.startswith("-") and not line.startswith("---")
    ]
    assert removed == [f"-{lines[3].decode('utf-8', 'replace')}"]


@pytest.mark.parametrize("tail", [b" ", b"\n", b"# edited\n"], ids=["space", "blank-line", "comment"])
def test_any_byte_added_by_hand_is_stale(run_cli, models: Path, tail: bytes) -> None:
    path = models / "aihc_v2_job.py"
    path.write_bytes(path.read_bytes() + tail)
    assert run_cli(["generate", "--check", "--output-dir", str(models)], code=1).stdout == f"stale: {path}\n"


def test_a_missing_module_is_said_to_be_missing(run_cli, models: Path) -> None:
    (models / "aihc_error.py").unlink()
    (models / "_missing.py").unlink()
    check = run_cli(["generate", "--check", "--output-dir", str(models)], code=1)
    assert check.stdout == f"stale: {models}/_missing.py (missing)\nstale: {models}/aihc_error.py (missing)\n"


def test_the_diff_names_the_folder_compared(run_cli, models: Path) -> None:
    (models / "runai_error.py").write_text("# edited\n", encoding="utf-8")
    check = run_cli(["generate", "--check", "--diff", "--output-dir", str(models)], code=1)
    assert f"--- {models}/runai_error.py\n" in check.stdout
    assert f"+++ {models}/runai_error.py (from schemas)\n" in check.stdout


def test_the_library_diff_names_the_checkouts_folder_by_default(models: Path) -> None:
    (models / "runai_error.py").write_text("# edited\n", encoding="utf-8")
    [stale] = codegen.stale_files(SCHEMAS, models)
    assert stale.diff.startswith(f"--- {codegen.SHOWN}/runai_error.py\n")


def test_check_says_a_module_the_generator_did_not_write_must_be_moved_out(run_cli, models: Path) -> None:
    (models / "helpers.py").write_text("def helper() -> None: ...\n", encoding="utf-8")
    check = run_cli(["generate", "--check", "--output-dir", str(models)], code=1)
    assert check.stdout == (
        f"stale: {models}/helpers.py (no schema writes it, and datamodel-codegen did not write it: "
        "move it out of the folder)\n"
    )
    assert check.stderr == (
        "1 generated file(s) out of date; move out the modules datamodel-codegen did not write, "
        "then run 'jobschema generate'\n"
    )


# --- one bad file never stops the others -----------------------------------------------------------


def test_every_module_that_cannot_be_written_is_named_and_the_others_are_written(
    run_cli, models: Path
) -> None:
    for name in ("aihc_error.py", "runai_error.py"):
        (models / name).unlink()
        (models / name).mkdir()
    for name in ("aihc_v2_job.py", "runai_distributed_workload.py"):
        (models / name).write_text("# edited\n", encoding="utf-8")
    result = run_cli(["generate", "--output-dir", str(models)], code=2)
    assert result.stderr == (
        f"Error: {models}/aihc_error.py: cannot write: is a folder\n"
        f"Error: {models}/runai_error.py: cannot write: is a folder\n"
    )
    assert result.stdout == f"wrote {models}/aihc_v2_job.py\nwrote {models}/runai_distributed_workload.py\n"
    for name in ("aihc_v2_job.py", "runai_distributed_workload.py"):
        assert (models / name).read_bytes() == (MODELS / name).read_bytes()


def test_every_module_the_generator_did_not_write_is_named_and_nothing_is_written(
    run_cli, models: Path
) -> None:
    for name in ("a_helper.py", "z_helper.py"):
        (models / name).write_text("x = 1\n", encoding="utf-8")
    (models / "runai_error.py").write_text("# edited\n", encoding="utf-8")
    result = run_cli(["generate", "--output-dir", str(models)], code=2)
    assert result.stderr == "".join(
        f"Error: {models}/{name}: no schema writes this module and datamodel-codegen did not write it; "
        "move it out of the folder of generated models\n"
        for name in ("a_helper.py", "z_helper.py")
    )
    assert (models / "runai_error.py").read_text(encoding="utf-8") == "# edited\n"


def test_every_broken_schema_is_named(run_cli, tmp_path: Path) -> None:
    _needs_codegen()
    schemas = _schemas(tmp_path)
    (schemas / "aihc-error.schema.json").write_text("{bad", encoding="utf-8")
    (schemas / "runai-error.schema.json").write_text('{"type": 5}', encoding="utf-8")
    (schemas / "aihc-v2-job.schema.json").unlink()
    result = run_cli(
        ["generate", "--check", "--schemas-dir", str(schemas), "--output-dir", str(MODELS)], code=2
    )
    lines = result.stderr.splitlines()
    assert [line.split(": ", 2)[1].split(":")[0] for line in lines] == [
        str(schemas / "aihc-error.schema.json"),
        str(schemas / "aihc-v2-job.schema.json"),
        str(schemas / "runai-error.schema.json"),
    ]
    assert lines[1] == f"Error: {schemas / 'aihc-v2-job.schema.json'}: schema file not found"
    assert result.stdout == ""


# --- the schemas folder ---------------------------------------------------------------------------


def _subprocess(
    args: list[str], cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jobschema", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_files_beside_the_schemas_are_never_read(tmp_path: Path) -> None:
    _needs_codegen()
    schemas = _schemas(tmp_path)
    os.mkfifo(schemas / "pipe.json")
    (schemas / "loop.json").symlink_to("loop.json")
    (schemas / "folder.json").mkdir()
    (schemas / "notes.json").write_bytes(b"\xff not json")
    done = _subprocess(["generate", "--check", "--schemas-dir", str(schemas), "--output-dir", str(MODELS)])
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize("kind", ["fifo", "folder", "loop"])
def test_a_schema_that_is_no_regular_file_is_named_with_what_it_is(tmp_path: Path, kind: str) -> None:
    _needs_codegen()
    schemas = _schemas(tmp_path)
    path = schemas / "runai-error.schema.json"
    path.unlink()
    {"fifo": lambda: os.mkfifo(path), "folder": path.mkdir, "loop": lambda: path.symlink_to(path.name)}[
        kind
    ]()
    done = _subprocess(["generate", "--check", "--schemas-dir", str(schemas), "--output-dir", str(MODELS)])
    assert done.returncode == 2
    assert done.stderr.startswith(f"Error: {path}: cannot read the schema: ")
    assert done.stderr.count("\n") == 1 and "not found" not in done.stderr


# --- what the generator cannot be given ------------------------------------------------------------


@pytest.mark.parametrize(
    "ref",
    [
        "aihc-error.schema.json",
        "https://json-schema.org/draft/2020-12/schema",
        "urn:example:x",
        "other.json#/a",
    ],
    ids=["sibling-file", "url", "urn", "file-pointer"],
)
def test_a_ref_to_another_document_is_refused_before_the_generator_runs(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ref: str
) -> None:
    _needs_codegen()
    schemas = _schemas(tmp_path)
    path = schemas / "runai-error.schema.json"
    _edit(path, lambda d: d["properties"].__setitem__("details", {"$ref": ref}))

    def never(*args: object) -> str:
        raise AssertionError("the generator ran on a $ref to another document")

    monkeypatch.setattr(codegen, "generate_module", never)
    monkeypatch.setattr(codegen, "_MEMO", {})
    result = run_cli(
        ["generate", "--schemas-dir", str(schemas), "--output-dir", str(tmp_path / "out")], code=2
    )
    assert result.stderr == (
        f'Error: {path}: $ref "{ref}" at /properties/details: a $ref to another document is not '
        "followed (the models are written from each schema alone)\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_property_named_ref_and_a_ref_in_an_example_are_no_refs(run_cli, tmp_path: Path) -> None:
    _needs_codegen()
    schemas = _schemas(tmp_path)
    path = schemas / "runai-error.schema.json"

    def change(document: dict[str, Any]) -> None:
        document["properties"]["details"] = {
            "type": "object",
            "properties": {"$ref": {"type": "string"}},
            "examples": [{"$ref": "other.json"}],
        }

    _edit(path, change)
    run_cli(["generate", "--schemas-dir", str(schemas), "--output-dir", str(tmp_path / "out")], code=0)


@pytest.mark.parametrize("pattern", ["^(?!tmp-)[a-z]+$", "(?<=a)b", "(?<n>a)"])
def test_a_pattern_the_models_can_hold_is_written(run_cli, tmp_path: Path, pattern: str) -> None:
    _needs_codegen()
    schemas = _schemas(tmp_path)
    _edit(
        schemas / "runai-error.schema.json",
        lambda d: d["properties"]["message"].__setitem__("pattern", pattern),
    )
    run_cli(["generate", "--schemas-dir", str(schemas), "--output-dir", str(tmp_path / "out")], code=0)


def test_a_ref_cycle_writes_a_recursive_model(run_cli, tmp_path: Path) -> None:
    _needs_codegen()
    schemas = _schemas(tmp_path)
    _edit(
        schemas / "runai-error.schema.json", lambda d: d["properties"].__setitem__("details", {"$ref": "#"})
    )
    out = tmp_path / "models"
    run_cli(["generate", "--schemas-dir", str(schemas), "--output-dir", str(out)], code=0)
    assert "details: RunaiError | MISSING = MISSING" in (out / "runai_error.py").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "pattern",
    ["^(?!tmp-)\\p{L}+$", "a{2,1}", "(unclosed"],
    ids=["lookahead-and-unicode-class", "inverted-repeat", "unclosed-group"],
)
def test_a_schema_whose_model_does_not_import_is_named_and_nothing_is_written(
    run_cli, tmp_path: Path, pattern: str
) -> None:
    _needs_codegen()
    schemas = _schemas(tmp_path)
    path = schemas / "runai-error.schema.json"
    _edit(path, lambda d: d["properties"]["message"].__setitem__("pattern", pattern))
    out = tmp_path / "out"
    result = run_cli(["generate", "--schemas-dir", str(schemas), "--output-dir", str(out)], code=2)
    assert result.stderr.startswith(f"Error: {path.name}: the model written from it does not import: ")
    assert 'Field "message"' in result.stderr and result.stderr.count("\n") == 1
    assert not out.exists()
    check = run_cli(
        ["generate", "--check", "--schemas-dir", str(schemas), "--output-dir", str(MODELS)], code=2
    )
    assert check.stderr == result.stderr


# --- read-only trees, other places, other settings ---------------------------------------------------


def _read_only(root: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run jobschema with ``root`` mounted read-only (root: a private bind mount; others: no write bits)."""
    command = [sys.executable, "-m", "jobschema", *args]
    if os.geteuid() != 0:
        for path in [root, *root.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        try:
            return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
        finally:
            for path in [root, *root.rglob("*")]:
                path.chmod(path.stat().st_mode | 0o200)
    if shutil.which("unshare") is None:
        pytest.skip("no unshare to mount a read-only tree as root")
    script = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && shift && exec "$@"'
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", str(root), *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if "mount" in done.stderr and "permission denied" in done.stderr.lower():
        pytest.skip("cannot mount a read-only tree here")
    return done


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    _schemas(tree)
    shutil.copytree(MODELS, tree / "models", ignore=shutil.ignore_patterns("__pycache__"))
    return tree


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_read_only_tree_is_checked_and_left_as_it_is(tmp_path: Path) -> None:
    _needs_codegen()
    tree = _tree(tmp_path)
    before = _snapshot(tree)
    args = ["generate", "--schemas-dir", "schemas", "--output-dir", "models"]
    check = _read_only(tree, [args[0], "--check", *args[1:]], tree)
    assert (check.returncode, check.stdout, check.stderr) == (0, "models/ is up to date with schemas/\n", "")
    up_to_date = _read_only(tree, args, tree)
    assert (up_to_date.returncode, up_to_date.stderr) == (0, "")
    assert _snapshot(tree) == before


def test_a_read_only_tree_with_stale_modules_names_each_and_changes_nothing(tmp_path: Path) -> None:
    _needs_codegen()
    tree = _tree(tmp_path)
    for name in ("aihc_error.py", "runai_error.py"):
        (tree / "models" / name).write_text("# edited\n", encoding="utf-8")
    before = _snapshot(tree)
    done = _read_only(tree, ["generate", "--schemas-dir", "schemas", "--output-dir", "models"], tree)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert [line.split(": cannot write: ")[0] for line in lines] == [
        "Error: models/aihc_error.py",
        "Error: models/runai_error.py",
    ]
    assert _snapshot(tree) == before


def test_check_from_a_folder_outside_the_checkout_names_both_folders(tmp_path: Path) -> None:
    _needs_codegen()
    done = _subprocess(["generate", "--check"], cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{MODELS.resolve()}/ is up to date with {SCHEMAS.resolve()}/\n"


@pytest.mark.parametrize(
    "env",
    [
        {"PYTHONHASHSEED": "0", "TZ": "Pacific/Chatham", "LC_ALL": "C", "LANG": "C"},
        {"PYTHONHASHSEED": "4242", "TZ": "America/St_Johns", "LC_ALL": "C.UTF-8", "LANGUAGE": "tr"},
    ],
    ids=["seed-0-chatham-C", "seed-4242-st-johns-utf8"],
)
def test_check_and_diff_are_the_same_bytes_in_any_setting(tmp_path: Path, env: dict[str, str]) -> None:
    _needs_codegen()
    out = tmp_path / "models"
    shutil.copytree(MODELS, out, ignore=shutil.ignore_patterns("__pycache__"))
    (out / "runai_error.py").write_text("# edited\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    args = [sys.executable, "-m", "jobschema", "generate", "--check", "--diff", "--output-dir", str(out)]
    runs = [  # (the folders are named whole from both: neither is inside either working directory)
        subprocess.run(
            args, cwd=cwd, env={**os.environ, **setting}, capture_output=True, timeout=300, check=False
        )
        for cwd, setting in ((REPO, {}), (elsewhere, env))
    ]
    assert [run.returncode for run in runs] == [1, 1]
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stderr == runs[1].stderr


# --- the generated models ---------------------------------------------------------------------------


def _model(name: str) -> Any:
    import importlib

    module, cls = ROOT_CLASSES[name]
    return getattr(importlib.import_module(module), cls)


def _examples() -> Iterator[tuple[str, str, Any]]:
    for name in BUNDLED:
        document = load_json(SCHEMAS / f"{name}.schema.json")
        for index, example in enumerate(document.get("examples", [])):
            yield name, f"{name}#examples/{index}", example
        for path in files_under(CAPTURES / name):
            yield name, f"{name}/{path.name}", load_json(path)


EXAMPLES = list(_examples())


@pytest.mark.parametrize(("name", "where", "payload"), EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_every_capture_and_schema_example_parses_from_json_text_and_dumps_back(
    name: str, where: str, payload: Any
) -> None:
    model = _model(name)
    parsed = model.model_validate_json(json.dumps(payload))
    assert json.loads(parsed.model_dump_json(by_alias=True, exclude_unset=True)) == payload
    assert parsed == model.model_validate(payload)


def _seed(file_name: str) -> Any:
    from tests.test_schemas import _seed_json

    return _seed_json(file_name)


@pytest.mark.skipif(not SHARED_SEEDS.is_dir(), reason="../shared/seeds is not beside this checkout")
@pytest.mark.parametrize(
    ("name", "file_name"),
    [
        ("runai-distributed-workload", "000_f2c9fa3ff1f6f424.txt"),
        ("aihc-job-detail", "003_a713d26c2d9ee5e5.txt"),
    ],
)
def test_the_shared_seeds_parse_with_the_models_and_dump_back(name: str, file_name: str) -> None:
    seed = _seed(file_name)
    parsed = _model(name).model_validate(seed)
    assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == seed


@pytest.mark.skipif(not SHARED_SEEDS.is_dir(), reason="../shared/seeds is not beside this checkout")
def test_the_seeds_embedded_raw_request_parses_with_its_own_model() -> None:
    seed = _seed("003_a713d26c2d9ee5e5.txt")
    text = seed["result"]["podList"]["pods"][0]["objectMeta"]["annotations"][
        "aijob.cce.baidubce.com/raw-request"
    ]
    parsed = _model("aihc-raw-request").model_validate_json(text)
    assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == json.loads(text)


_RESERVED = ["model_config", "model_dump", "model_fields", "__class__", "__dict__", "dict", "json", "copy"]


@pytest.mark.parametrize(
    "key", ["x-trace-id", "a.b/c", "camelCaseExtra", "snake_case_extra", "ÄÖ", "", *_RESERVED]
)
def test_an_extra_key_of_any_spelling_is_kept_and_dumped_back(key: str) -> None:
    payload = {"requestId": "r-1", "code": "NotFound", "message": "m", key: {"nested": [1, None]}}
    parsed = _model("aihc-error").model_validate(payload)
    assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == payload
    assert parsed.request_id == "r-1"


def test_a_key_spelled_as_the_field_name_is_an_extra_key_not_the_field() -> None:
    import pydantic

    with pytest.raises(pydantic.ValidationError, match="requestId"):
        _model("aihc-error").model_validate({"request_id": "r", "code": "c", "message": "m"})
    both = {"requestId": "r", "request_id": "other", "code": "c", "message": "m"}
    parsed = _model("aihc-error").model_validate(both)
    assert parsed.request_id == "r"
    assert parsed.model_dump(by_alias=True, exclude_unset=True) == both


def test_dashed_and_dotted_keys_of_a_map_are_kept_exactly() -> None:
    payload = load_json(CAPTURES / "aihc-job-detail" / "seed.json")
    annotations = payload["result"]["podList"]["pods"][0]["objectMeta"]["annotations"]
    annotations["x-y.z/w-1"] = "v"
    annotations["UPPER_and-lower.Dots"] = "w"
    parsed = _model("aihc-job-detail").model_validate(payload)
    assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == payload


_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=8,
)


@settings(
    max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
@given(extra=st.dictionaries(_KEYS, _JSON, max_size=4))
def test_extra_keys_at_the_root_of_every_model_are_kept_as_they_came(extra: dict[str, Any]) -> None:
    for name in ("runai-error", "aihc-error", "runai-distributed-workload"):
        payload = load_json(files_under(CAPTURES / name)[0])
        added = {
            key: value for key, value in extra.items() if key not in payload and not _declared(name, key)
        }
        mixed = {**payload, **added}
        dumped = _model(name).model_validate(mixed).model_dump(mode="json", by_alias=True, exclude_unset=True)
        assert dumped == mixed


def _declared(name: str, key: str) -> bool:
    return key in load_json(SCHEMAS / f"{name}.schema.json").get("properties", {})


# --- schemas show -----------------------------------------------------------------------------------


def test_show_prints_a_schema_file_exactly_as_stored(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "crlf.json"
    data = b'{\r\n  "type": "object",\r\n  "title": "caf\xc3\xa9"\r\n}\r\n'
    path.write_bytes(data)
    assert run_cli(["schemas", "show", str(path)], code=0).stdout_bytes == data


SCHEMA_SECRETS = [
    (
        "default",
        {"properties": {"password": {"type": "string", "default": "Hunter2Secret!x"}}},
        "Hunter2Secret!x",
    ),
    ("example URL", {"examples": ["https://bob:s3cr3tPassw0rdX@db.example.com/x"]}, "s3cr3tPassw0rdX"),
    ("token shape", {"description": "e.g. ghp_" + "a1B2c3D4" * 4 + "zzzz"}, "ghp_" + "a1B2c3D4" * 4 + "zzzz"),
    (
        "const header",
        {"const": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abcdefghijkl"},
        "eyJhbGciOiJIUzI1NiJ9",
    ),
]


@pytest.mark.parametrize(
    ("schema", "secret"), [case[1:] for case in SCHEMA_SECRETS], ids=[c[0] for c in SCHEMA_SECRETS]
)
def test_show_masks_a_credential_in_a_schema_file_and_keeps_every_other_byte(
    run_cli, tmp_path: Path, schema: dict[str, Any], secret: str
) -> None:
    """Every output goes through the secret policy: a default or an example in a user's schema file is
    printed masked, as redact masks it (the rest byte for byte), and stderr says so."""
    path = tmp_path / "mine.json"
    text = json.dumps({"type": "object", **schema}, indent=3) + "\r\n"
    path.write_bytes(text.encode("utf-8"))
    result = run_cli(["schemas", "show", str(path)], code=0)
    shown = result.stdout_bytes.decode("utf-8")
    assert secret not in shown and "<secret:" in shown
    assert shown.replace("\r\n", "\n").count("\n") == text.count("\n") and shown.endswith("\r\n")
    assert result.stderr.startswith(f"note: {path}: ") and "masked" in result.stderr
    out = tmp_path / "out.json"
    run_cli(["schemas", "show", str(path), "-o", str(out)], code=0)
    assert out.read_bytes() == result.stdout_bytes


@pytest.mark.parametrize("name", ["runai-error", "validate-report"])
def test_show_prints_a_bundled_schema_byte_for_byte(run_cli, name: str) -> None:
    assert (
        run_cli(["schemas", "show", name], code=0).stdout_bytes
        == (SCHEMAS / f"{name}.schema.json").read_bytes()
    )


def test_an_unknown_name_lists_the_report_schemas_show_prints_too(
    run_cli, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli(["schemas", "show", "nosuch"], code=2)
    assert result.stderr.count("\n") == 1
    for name in (*BUNDLED, "validate-report", "versions-report", "changes-report", "timeline-report"):
        assert name in result.stderr


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("RUNAI-ERROR", "runai-error"),
        ("Runai-Distributed-Workload", "runai-distributed-workload"),
        ("aihc_job_detail", "aihc-job-detail"),
        ("aihc-error.schema.json", "aihc-error"),
        ("Validate-Report", "validate-report"),
    ],
)
def test_a_name_that_differs_by_case_or_spelling_is_named_with_the_bundled_one(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str, meant: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli(["schemas", "show", given], code=2)
    assert result.stderr.startswith(f"Error: {given}: no such schema; did you mean {meant}? ")
    assert result.stderr.count("\n") == 1


def test_a_file_of_that_spelling_is_read_not_corrected(run_cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "RUNAI-ERROR").write_text('{"type": "string"}', encoding="utf-8")
    assert run_cli(["schemas", "show", "RUNAI-ERROR"], code=0).stdout == '{"type": "string"}'


def test_the_other_commands_suggest_the_bundled_name_too(run_cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    capture = str(CAPTURES / "runai-error" / "not-found.json")
    for args in (["validate", "-s", "RUNAI-ERROR", capture], ["coverage", "-s", "RUNAI-ERROR", capture]):
        result = run_cli(args, code=2)
        assert "did you mean runai-error?" in result.stderr, args


def test_show_writes_to_o_exactly_and_o_dash_is_stdout(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "report.schema.json"
    result = run_cli(["schemas", "show", "validate-report", "-o", str(out)], code=0)
    assert result.stdout == ""
    assert out.read_bytes() == (SCHEMAS / "validate-report.schema.json").read_bytes()
    dashed = run_cli(["schemas", "show", "runai-error", "-o", "-"], code=0)
    assert dashed.stdout_bytes == (SCHEMAS / "runai-error.schema.json").read_bytes()


def test_show_o_never_overwrites_the_schema_it_prints(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text('{"type": "object"}\n', encoding="utf-8")
    result = run_cli(["schemas", "show", str(path), "-o", str(path)], code=2)
    assert result.stderr == f"Error: {path}: -o/--output is one of the inputs; choose another file\n"
    assert path.read_text(encoding="utf-8") == '{"type": "object"}\n'
    bundled = SCHEMAS / "runai-error.schema.json"
    before = bundled.read_bytes()
    run_cli(["schemas", "show", "runai-error", "-o", str(bundled)], code=2)
    assert bundled.read_bytes() == before


@pytest.mark.parametrize("bad", ["", str(Path("/nonexistent-folder") / "x.json")], ids=["empty", "no-folder"])
def test_show_o_that_cannot_be_written_is_one_line(run_cli, bad: str) -> None:
    result = run_cli(["schemas", "show", "runai-error", "-o", bad], code=2)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: ")
    assert result.stdout == ""


# --- rules --------------------------------------------------------------------------------------------


def test_rules_are_sorted_one_line_each_and_the_same_bytes_in_any_setting(run_cli) -> None:
    out = run_cli(["rules"], code=0).stdout
    rows = [line.split()[:3] for line in out.splitlines()]
    order = [(schema != "(any)", schema, rule) for rule, _, schema in rows]
    assert order == sorted(order) and len({rule for rule, _, _ in rows}) == len(rows)
    args = [sys.executable, "-m", "jobschema", "rules"]
    env = {**os.environ, "PYTHONHASHSEED": "77", "TZ": "Asia/Kolkata", "LC_ALL": "C", "COLUMNS": "40"}
    other = subprocess.run(args, cwd="/", env=env, capture_output=True, text=True, timeout=60, check=False)
    assert (other.returncode, other.stdout) == (0, out)


@pytest.mark.parametrize("name", BUNDLED)
def test_rules_of_a_schema_are_the_generic_ones_and_its_own(run_cli, name: str) -> None:
    every = set(run_cli(["rules"], code=0).stdout.splitlines())
    mine = run_cli(["rules", "-s", name], code=0).stdout.splitlines()
    assert set(mine) <= every
    assert all(line.split()[2] in ("(any)", name) for line in mine)


@pytest.mark.parametrize("name", ["RUNAI-ERROR", "validate-report", "nosuch", ""])
def test_rules_of_no_bundled_schema_is_one_line(run_cli, name: str) -> None:
    result = run_cli(["rules", "-s", name], code=2)
    assert result.stderr.count("\n") == 1 and result.stdout == ""
