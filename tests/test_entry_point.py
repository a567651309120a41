"""The console entry point (``jobschema``, ``python -m jobschema``): after validate, diff, rules and
schemas the process ends without the interpreter's teardown, with every byte of output written and
the exit code of the command; ``atexit`` handlers still run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jobschema.cli import QUICK_EXIT, _command
from tests.support import REPO

INVALID = REPO / "tests" / "fixtures" / "captures" / "invalid-workload.json"


def _jobschema(
    *args: str, code: str = "from jobschema.cli import run; run()"
) -> subprocess.CompletedProcess[str]:
    program = f"import sys; sys.argv = ['jobschema', *sys.argv[1:]]; {code}"
    return subprocess.run(
        [sys.executable, "-c", program, *args], capture_output=True, text=True, check=False, timeout=120
    )


def test_a_long_report_is_written_whole_with_the_commands_exit_code(tmp_path: Path, run_cli) -> None:
    lines = tmp_path / "many.ndjson"
    body = json.dumps(json.loads(INVALID.read_text(encoding="utf-8")), separators=(",", ":"))
    lines.write_text((body + "\n") * 3000, encoding="utf-8")
    done = _jobschema("validate", "--format", "json", str(lines))
    expected = run_cli(["validate", "--format", "json", str(lines)], code=1).stdout
    assert (done.returncode, done.stderr) == (1, "")
    assert len(done.stdout) > 2**20 and done.stdout == expected


def test_exit_codes_and_usage_errors_are_those_of_the_command() -> None:
    assert _jobschema("validate", "schemas/examples").returncode == 0
    missing = _jobschema("validate", "no/such/file.json")
    assert missing.returncode == 2 and missing.stderr.startswith("Error: no/such/file.json")
    assert _jobschema("diff", str(INVALID), str(INVALID)).returncode == 0
    usage = _jobschema("validate", "--no-such-option")
    assert usage.returncode == 2 and "No such option" in usage.stderr


def test_atexit_handlers_run_before_the_quick_exit(tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    code = (
        f"import atexit, pathlib; atexit.register(pathlib.Path({str(mark)!r}).touch); "
        "from jobschema.cli import run; run()"
    )
    assert _jobschema("rules", code=code).returncode == 0
    assert mark.exists()


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    program = "import sys; sys.argv = ['jobschema', 'rules']; from jobschema.cli import run; run()"
    reader, writer = os.pipe()
    os.close(reader)  # nobody reads: every write fails
    done = subprocess.run(
        [sys.executable, "-c", program],
        stdout=writer,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        timeout=60,
    )
    os.close(writer)
    assert "Traceback" not in done.stderr and done.returncode == 0


def test_the_command_word_is_the_first_that_is_not_an_option() -> None:
    assert _command(["validate", "-q", "x"]) == "validate"
    assert _command(["--version"]) is None
    assert _command(["record", "runai"]) == "record" and "record" not in QUICK_EXIT
    assert {"validate", "diff"} <= QUICK_EXIT
