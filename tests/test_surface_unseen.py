"""The surface a new user and a packager meet: the sdist is the checkout as git tracks it (nothing
from the developer's machine), one version, ``jobschema generate`` as CI uses it (a module no schema
writes is stale; a broken schema is named before the generator runs; what cannot be written is one
line), and the command line's help and options (no help turned into an error line, no option
silently ignored, every help quick to show)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import click
import pytest

import jobschema
from jobschema.schemas import codegen
from tests.support import REPO, SCHEMAS

MODELS = REPO / "generated" / "jobschema" / "models"


# --- packaging ---------------------------------------------------------------------------------


def _tracked() -> list[str]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, text=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (or no git): the sdist is compared with what git tracks")
    return sorted(name for name in out.split("\0") if name and (REPO / name).is_file())


#: What tools leave in a working tree, each where it has been found: the ajv benchmark's npm cache
#: (ignored by tests/benchmarks/.gitignore, which hatchling does not read), byte code, caches, docs.
LITTER = (
    "tests/benchmarks/.cache/ajv/node_modules/ajv/package.json",
    "toolkit/jobschema/__pycache__/cli.cpython-311.pyc",
    "tests/__pycache__/support.cpython-311-pytest-8.pyc",
    ".hypothesis/examples/0123/abcd",
    ".pytest_cache/v/cache/lastfailed",
    ".mypy_cache/3.11/jobschema/cli.meta.json",
    "docs/_build/html/index.html",
    "schemas/examples/.DS_Store",
    "toolkit/jobschema/.ruff_cache/0.17.5/123",
    "toolkit/jobschema/.mypy_cache/3.11/jobschema/cli.meta.json",
    "generated/jobschema/models/__pycache__/runai_error.cpython-311.pyc",
    "schemas/.hypothesis/examples/0123/abcd",
)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A copy of the tracked files, littered as a developer's tree is."""
    pytest.importorskip("hatchling")
    tracked = _tracked()
    root = tmp_path_factory.mktemp("checkout") / "jobschema"
    for name in tracked:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / name)
    for name in LITTER:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("left by a tool\n", encoding="utf-8")
    return root, tracked


def _build(kind: str, source: Path, out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", kind, "-d", str(out)],
        cwd=source,
        capture_output=True,
        check=True,
    )
    return next(out.iterdir())


def test_the_sdist_is_exactly_what_git_tracks(checkout: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, tracked = checkout
    sdist = _build("sdist", root, tmp_path / "sdist")
    prefix = f"jobschema-{jobschema.__version__}/"
    with tarfile.open(sdist) as archive:
        members = sorted(m.name.removeprefix(prefix) for m in archive.getmembers() if m.isfile())
    assert sorted(set(members) - {"PKG-INFO"}) == tracked


def test_a_wheel_rebuilt_from_the_sdist_is_the_wheel_of_the_checkout(
    checkout: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root, _ = checkout
    sdist = _build("sdist", root, tmp_path / "sdist")
    with tarfile.open(sdist) as archive:
        # (extraction filters came with 3.11.4; Debian 12's Python is 3.11.2, and our own sdist)
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(tmp_path / "unpacked", **safe)
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    rebuilt = zipfile.ZipFile(_build("wheel", unpacked, tmp_path / "rebuilt"))
    direct = zipfile.ZipFile(_build("wheel", root, tmp_path / "direct"))
    assert {name: rebuilt.read(name) for name in rebuilt.namelist()} == {
        name: direct.read(name) for name in direct.namelist()
    }
    tracked = set(_tracked())
    sources = {"jobschema/schemas/bundled/": "schemas/", "jobschema/models/": "generated/jobschema/models/"}
    for name in direct.namelist():
        if ".dist-info/" in name:
            continue
        prefix = next((p for p in sources if name.startswith(p)), "jobschema/")
        source = sources.get(prefix, "toolkit/jobschema/") + name.removeprefix(prefix)
        assert source in tracked, name


def test_the_version_is_spelled_once() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project
    assert project["dynamic"] == ["version"]
    metadata = pytest.importorskip("hatchling.metadata.core")
    from hatchling.plugin.manager import PluginManager

    assert metadata.ProjectMetadata(str(REPO), PluginManager()).version == jobschema.__version__


# --- jobschema generate ------------------------------------------------------------------------


def _schemas(tmp_path: Path) -> Path:
    folder = tmp_path / "schemas"
    shutil.copytree(SCHEMAS, folder, ignore=shutil.ignore_patterns("examples", "official", "README.md"))
    return folder


@pytest.fixture
def models(tmp_path: Path) -> Path:
    pytest.importorskip("datamodel_code_generator")
    out = tmp_path / "models"
    shutil.copytree(MODELS, out, ignore=shutil.ignore_patterns("__pycache__"))
    return out


def test_check_names_a_module_no_schema_writes_and_generate_removes_it(run_cli, models: Path) -> None:
    (models / "old_model.py").write_text(f"{codegen.HEADER}\nclass Gone: ...\n", encoding="utf-8")
    (models / "notes.txt").write_text("not a module\n", encoding="utf-8")
    check = run_cli(["generate", "--check", "--output-dir", str(models)], code=1)
    assert check.stdout == f"stale: {models}/old_model.py (no schema writes it)\n"
    assert check.stderr == "1 generated file(s) out of date; run 'jobschema generate'\n"
    assert (models / "old_model.py").exists()
    written = run_cli(["generate", "--output-dir", str(models)], code=0)
    assert written.stdout == f"removed {models}/old_model.py\n"
    assert sorted(p.name for p in models.iterdir() if p.is_file()) == sorted(
        [*(p.name for p in MODELS.glob("*.py")), "notes.txt"]
    )
    run_cli(["generate", "--check", "--output-dir", str(models)], code=0)


def test_a_module_the_generator_did_not_write_is_never_removed(run_cli, models: Path) -> None:
    mine = models / "helpers.py"
    mine.write_text("def helper() -> None: ...\n", encoding="utf-8")
    (models / "runai_error.py").write_text("# edited by hand\n", encoding="utf-8")
    check = run_cli(["generate", "--check", "--output-dir", str(models)], code=1)
    assert check.stdout == (
        f"stale: {models}/helpers.py (no schema writes it, and datamodel-codegen did not write it: "
        f"move it out of the folder)\nstale: {models}/runai_error.py\n"
    )
    refused = run_cli(["generate", "--output-dir", str(models)], code=2)
    assert refused.stderr == (
        f"Error: {mine}: no schema writes this module and datamodel-codegen did not write it; "
        "move it out of the folder of generated models\n"
    )
    assert mine.read_text(encoding="utf-8") == "def helper() -> None: ...\n"
    assert (models / "runai_error.py").read_text(encoding="utf-8") == "# edited by hand\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '{"type": "object",\n',
            ":2:1: schema is not valid JSON: Expecting property name enclosed in double quotes",
        ),
        (
            '{"type": 12}',
            ": not a valid JSON Schema at /type: 12 is not valid under any of the given schemas",
        ),
        ("[]", ": a schema must be a JSON object, not list"),
    ],
    ids=["not-json", "not-a-json-schema", "not-an-object"],
)
def test_a_broken_schema_is_named_before_the_generator_runs(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, problem: str
) -> None:
    schemas = _schemas(tmp_path)
    broken = schemas / "runai-error.schema.json"
    broken.write_text(text, encoding="utf-8")

    def never(*args: object) -> str:
        raise AssertionError("the generator ran on a broken schema")

    monkeypatch.setattr(codegen, "generate_module", never)
    result = run_cli(
        ["generate", "--schemas-dir", str(schemas), "--output-dir", str(tmp_path / "out")], code=2
    )
    assert result.stdout == ""
    assert result.stderr == f"Error: {broken}{problem}\n"
    assert not (tmp_path / "out").exists()


def test_a_dangling_ref_fails_generation_instead_of_becoming_any(run_cli, tmp_path: Path) -> None:
    pytest.importorskip("datamodel_code_generator")
    schemas = _schemas(tmp_path)
    path = schemas / "aihc-error.schema.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["properties"]["code"] = {"$ref": "#/$defs/missing"}
    path.write_text(json.dumps(document), encoding="utf-8")
    result = run_cli(
        ["generate", "--schemas-dir", str(schemas), "--output-dir", str(tmp_path / "out")], code=2
    )
    assert result.stderr == (
        "Error: aihc-error.schema.json: datamodel-codegen failed: "
        "Unresolved local $ref targets: - aihc-error.schema.json: #/$defs/missing\n"
    )


def test_without_the_codegen_extra_check_fails_even_after_a_run_with_it(
    run_cli, models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_cli(["generate", "--check", "--output-dir", str(models)], code=0)  # (memoises the models)
    monkeypatch.setitem(sys.modules, "datamodel_code_generator", None)
    result = run_cli(["generate", "--check", "--output-dir", str(models)], code=2)
    assert result.stderr.startswith("Error: datamodel-code-generator is not installed (")


def test_a_folder_that_cannot_be_written_is_one_line(run_cli, tmp_path: Path) -> None:
    pytest.importorskip("datamodel_code_generator")
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    result = run_cli(["generate", "--output-dir", str(blocker / "models")], code=2)
    assert result.stderr == f"Error: {blocker}/models: cannot create the folder: Not a directory\n"


def test_generated_modules_are_written_whole_keeping_their_mode(run_cli, models: Path) -> None:
    stale = models / "runai_error.py"
    stale.write_text("# edited by hand\n", encoding="utf-8")
    stale.chmod(0o640)
    assert run_cli(["generate", "--output-dir", str(models)], code=0).stdout == f"wrote {stale}\n"
    assert stale.read_bytes() == (MODELS / "runai_error.py").read_bytes()
    assert stale.stat().st_mode & 0o777 == 0o640
    assert not [p.name for p in models.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        (
            "/usr/lib/python3.11/site-packages/datamodel_code_generator/__main__.py:12: "
            "FutureWarning: Default formatters will change\n  warn_deprecated(\n"
            "Unresolved local $ref targets:\n- a.schema.json: #/x\n",
            "Unresolved local $ref targets: - a.schema.json: #/x",
        ),
        (
            'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
            "    boom()\nValueError: the schema says nothing\n\n",
            "ValueError: the schema says nothing",
        ),
        ("", ""),
        ("x" * 400, "x" * 299 + "…"),
    ],
    ids=["warnings-left-out", "traceback", "silent", "long"],
)
def test_the_generators_failure_is_one_line(output: str, reason: str) -> None:
    assert codegen.failure_reason(output) == reason


# --- the command line ----------------------------------------------------------------------------


@pytest.mark.parametrize("args", [[], ["record"]], ids=["jobschema", "record"])
def test_a_group_run_bare_shows_its_help_not_an_error_line(run_cli, args: list[str]) -> None:
    result = run_cli(args, code=2)
    assert result.stdout == ""
    first = result.stderr.splitlines()[0]  # (the program is "main" in click's test runner)
    assert first == " ".join(["Usage: main", *args, "[OPTIONS] COMMAND [ARGS]..."])
    assert "Commands:" in result.stderr


def _one_payload(tmp_path: Path) -> str:
    path = tmp_path / "one.json"
    path.write_text('{"code": 404, "message": "not found"}', encoding="utf-8")
    return str(path)


#: Every option whose help says "With --X:", run without X: refused, never ignored.
ALONE = {
    "--dask-timeout": (["validate", "--dask-timeout", "3", "{payload}"], "--dask"),
    "--diff": (["generate", "--diff"], "--check"),
    "--spec": (["schemas", "annotate-versions", "--spec", "{payload}"], "--add"),
    "--commit": (["schemas", "annotate-versions", "--commit", "abc"], "--add"),
    "--client": (["schemas", "annotate-versions", "--client", "1.2"], "--add"),
}


@pytest.mark.parametrize("option", sorted(ALONE))
def test_an_option_that_needs_another_is_refused_alone(run_cli, tmp_path: Path, option: str) -> None:
    args, needed = ALONE[option]
    result = run_cli([arg.format(payload=_one_payload(tmp_path)) for arg in args], code=2)
    assert result.stdout == ""
    assert result.stderr == f"Error: {option} works only with {needed}\n"


def _commands() -> list[tuple[list[str], click.Command]]:
    from jobschema.cli import main

    ctx = click.Context(main)
    found: list[tuple[list[str], click.Command]] = []

    def walk(command: click.Command, path: list[str]) -> None:
        found.append((path, command))
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                walk(sub, [*path, name])

    walk(main, [])
    return found


def test_every_with_option_is_in_the_list_of_those_refused_alone() -> None:
    dependent = {
        max(param.opts, key=len)
        for _, command in _commands()
        for param in command.params
        if isinstance(param, click.Option) and (param.help or "").startswith("With --")
    }
    # redact -f is checked by redact itself ("the format of --check's report; add --check")
    assert dependent - {"--format"} == set(ALONE)


def test_a_mode_that_takes_nothing_else_refuses_what_it_would_ignore(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "rules.txt"
    result = run_cli(["changes", "--rules", "-o", str(out), "runai@2.19"], code=2)
    assert result.stderr == "Error: --rules takes nothing else; OLD, --output given with it\n"
    assert not out.exists()
    assert run_cli(["changes", "--rules"], code=0).stdout.startswith("breaking  ")


def test_every_help_lists_exit_codes_and_shows_every_default(run_cli) -> None:
    for path, command in _commands():
        text = run_cli([*path, "--help"], code=0).stdout
        assert "Exit codes" in text, path
        if isinstance(command, click.Group):  # (no summary cut short)
            assert "..." not in text.split("Commands:")[1].split("\n\n")[0], path
        for param in command.params:
            if not isinstance(param, click.Option) or param.hidden or param.is_flag or param.count:
                continue
            default = param.default
            if default is None or default in ((), "") or "UNSET" in repr(default):
                continue
            assert param.show_default, (path, param.opts)


def test_schemas_show_prints_a_report_formats_schema(run_cli) -> None:
    for name in ("validate-report", "versions-report", "changes-report", "timeline-report"):
        out = run_cli(["schemas", "show", name], code=0).stdout
        assert out == (SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8")


#: Modules no --help needs; each costs start-up (tens of milliseconds to seconds).
HEAVY = (
    "jsonschema",
    "jsonschema_rs",
    "pydantic",
    "deepdiff",
    "hypothesis",
    "starlette",
    "uvicorn",
    "httpx",
    "dask",
    "distributed",
    "detect_secrets",
    "yaml",
    "baidubce",
    "jwt",
    "datamodel_code_generator",
)


def test_no_help_imports_a_heavy_module() -> None:
    paths = [path for path, _ in _commands()]
    code = (
        "import contextlib, io, sys\n"
        "from jobschema.cli import main\n"
        f"for path in {paths!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        try:\n"
        "            main.main([*path, '--help'], prog_name='jobschema')\n"
        "        except SystemExit:\n"
        "            pass\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n", out.stderr
