"""The command group: version, help, schema catalog, and one-line errors."""

from __future__ import annotations

import json

import pytest

from tests.support import BUNDLED, SCHEMAS


def test_version(run_cli) -> None:
    assert run_cli(["--version"], code=0).stdout == "jobschema, version 0.1.0\n"


def test_short_help_lists_exit_codes(run_cli) -> None:
    out = run_cli(["-h"], code=0).stdout
    assert "Exit codes (every command):" in out
    assert "generate" in out and "schemas" in out


def test_schemas_lists_every_bundled_schema(run_cli) -> None:
    lines = run_cli(["schemas"], code=0).stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(BUNDLED)


def test_schemas_show_prints_the_file(run_cli) -> None:
    out = run_cli(["schemas", "show", "aihc-error"], code=0).stdout
    assert out == (SCHEMAS / "aihc-error.schema.json").read_text(encoding="utf-8")
    assert json.loads(out)["$id"] == "urn:jobschema:schema:aihc-error"


def test_schemas_show_accepts_a_path(run_cli) -> None:
    path = SCHEMAS / "runai-error.schema.json"
    assert run_cli(["schemas", "show", str(path)], code=0).stdout == path.read_text(encoding="utf-8")


def test_unknown_schema_is_a_one_line_error(run_cli) -> None:
    result = run_cli(["schemas", "show", "nope"], code=2)
    assert result.stdout == ""
    assert result.stderr == (
        "Error: nope: no such schema (bundled schemas: runai-distributed-workload, runai-error, "
        "aihc-job-detail, aihc-raw-request, aihc-error, aihc-v2-job, validate-report, versions-report, "
        "changes-report, timeline-report; or give a schema file's path)\n"
    )


def test_unreadable_schema_file_is_a_one_line_error(run_cli, tmp_path) -> None:
    bad = tmp_path / "bad.schema.json"
    bad.write_text('{"type": ', encoding="utf-8")
    result = run_cli(["schemas", "show", str(bad)], code=2)
    assert result.stderr == f"Error: {bad.resolve()}:1:10: schema is not valid JSON: Expecting value\n"


def test_top_level_help_lists_every_command_whole_without_importing_one(run_cli) -> None:
    import importlib
    import inspect
    import re

    from jobschema.cli import COMMANDS

    out = run_cli(["--help"], code=0).stdout
    listed = out[out.index("Commands:") :]
    assert "..." not in listed and "…" not in listed
    flat = " ".join(listed.split())
    for name, (module, attribute, summary) in COMMANDS.items():
        assert f"{name} {summary}" in flat
        command = getattr(importlib.import_module(module), attribute)
        first = re.split(r"(?<=\.)\s", " ".join(inspect.cleandoc(command.help or "").split()), maxsplit=1)[0]
        assert first == summary, name  # the summary is the first sentence of the command's own help


def test_top_level_help_names_every_exit_code_and_variable(run_cli) -> None:
    out = run_cli(["--help"], code=0).stdout
    for text in ("0    success", "1    findings", "2    usage error", "130  interrupted", "143 terminated"):
        assert text in out
    for variable in ("JOBSCHEMA_MASK_KEY", "NO_COLOR", "JOBSCHEMA_TRACEBACK", "_JOBSCHEMA_COMPLETE"):
        assert variable in out


@pytest.mark.parametrize("command", ["validate", "diff", "redact"])
def test_commands_that_print_masks_name_the_mask_key(run_cli, command: str) -> None:
    assert "JOBSCHEMA_MASK_KEY" in run_cli([command, "--help"], code=0).stdout


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_shell_completion_as_the_help_says(shell: str) -> None:
    from click.testing import CliRunner

    from jobschema.cli import main

    script = CliRunner().invoke(
        main, [], prog_name="jobschema", env={"_JOBSCHEMA_COMPLETE": f"{shell}_source"}
    )
    assert script.exit_code == 0
    assert "_JOBSCHEMA_COMPLETE" in script.stdout
    words = CliRunner().invoke(
        main,
        [],
        prog_name="jobschema",
        env={"_JOBSCHEMA_COMPLETE": "bash_complete", "COMP_WORDS": "jobschema dif", "COMP_CWORD": "1"},
    )
    assert words.stdout.split() == ["plain,diff"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bogus"], "Error: No such option '--bogus'."),
        (["valdate"], "Error: No such command 'valdate'. Did you mean 'validate'?"),
        (["validate", "-f", "bogus", "x.json"], "Error: Invalid value for '-f' / '--format': 'bogus'"),
        (["validate", "-j", "abc", "x.json"], "Error: Invalid value for '-j' / '--jobs': 'abc'"),
        (["validate", "--api-version", "runai=9.99", "x.json"], "Error: Invalid value for '--api-version'"),
        (["validate"], "Error: Missing argument 'PATH...'."),
        (["diff", "--nope", "a", "b"], "Error: No such option '--nope'."),
        (["serve", "--port", "70000", "x.json"], "Error: Invalid value for '--port': 70000"),
        (["record", "runai", "--count", "-1"], "Error: Invalid value for '--count'"),
        (["changes", "--fail-on", "sometimes", "a", "b"], "Error: Invalid value for '--fail-on'"),
        (["redact", "--check", "--in-place", "x.json"], "Error: "),
    ],
)
def test_a_usage_error_is_one_line(run_cli, args: list[str], message: str) -> None:
    """click prints the usage and a hint above a usage error; jobschema prints the error alone, one
    line, as it does every other error (exit 2)."""
    result = run_cli(args, code=2)
    assert result.stderr.startswith(message), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stdout == ""
