"""The command group: version, help, schema catalog, and one-line errors."""

from __future__ import annotations

import json

from tests.support import BUNDLED, SCHEMAS


def test_version(run_cli) -> None:
    assert run_cli(["--version"], code=0).stdout == "jobschema, version 0.1.0\n"


def test_short_help_lists_exit_codes(run_cli) -> None:
    out = run_cli(["-h"], code=0).stdout
    assert "Exit codes:" in out
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
        "aihc-job-detail, aihc-raw-request, aihc-error; or give a schema file's path)\n"
    )


def test_unreadable_schema_file_is_a_one_line_error(run_cli, tmp_path) -> None:
    bad = tmp_path / "bad.schema.json"
    bad.write_text('{"type": ', encoding="utf-8")
    result = run_cli(["schemas", "show", str(bad)], code=2)
    assert result.stderr == f"Error: {bad.resolve()}:1:10: schema is not valid JSON: Expecting value\n"
