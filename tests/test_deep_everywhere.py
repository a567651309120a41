"""A value nested as deep as the parser takes, at any place a check or the secret policy reads, is an
answer of every command, never an internal error: validate, redact, diff, coverage and timeline on
real captures with a deep list planted under a message, a credential's name, a name whose value
decides (a connection string), a command and a job's name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import REPO

EXAMPLES = REPO / "schemas" / "examples"
ERROR = EXAMPLES / "runai-error" / "not-found.json"
WORKLOAD = EXAMPLES / "runai-distributed-workload" / "completed-job.json"
AIHC = EXAMPLES / "aihc-job-detail" / "multi-pod-pytorch.json"

#: Deep, yet under the parser's limit (deeper is a parse error, tested with the inputs).
DEPTHS = [400, 900]


def _deep(depth: int, leaf: Any = "hunter2-Secret") -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def _planted(source: Path, depth: int, where: str) -> dict[str, Any]:
    document = json.loads(source.read_text())
    deep = _deep(depth)
    if where == "message":
        document["message"] = deep
    elif where == "credential":
        document.setdefault("annotations", []).append({"name": "DB_PASSWORD", "value": deep})
    elif where == "locator":
        document["connectionString"] = deep
    elif where == "command":
        document.setdefault("spec", {})["command"] = deep
    elif where == "name":
        document["result"]["name"] = deep
    return document


SOURCES = {"message": ERROR, "credential": WORKLOAD, "locator": WORKLOAD, "command": WORKLOAD, "name": AIHC}


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("where", list(SOURCES))
def test_a_deep_value_anywhere_is_an_answer_of_every_command(
    run_cli, tmp_path: Path, depth: int, where: str
) -> None:
    source = SOURCES[where]
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(_planted(source, depth, where)))
    commands = {
        "validate": (["validate", str(path)], {0, 1}),
        "redact --check": (["redact", "--check", str(path)], {0, 1}),
        "redact -o": (["redact", str(path), "-o", str(tmp_path / "out.json")], {0, 1}),
        "diff": (["diff", str(source), str(path)], {0, 1}),
        "coverage": (["coverage", str(path)], {0, 1}),
    }
    if where == "name":
        commands["timeline"] = (["timeline", str(path)], {0})
    for name, (args, codes) in commands.items():
        result = run_cli(args)
        assert result.exit_code in codes, f"{name}: {result.exit_code}\n{result.stderr}"
        assert "internal error" not in result.stderr, f"{name}: {result.stderr}"
        if where == "credential":  # (a value under a credential's name is masked however deep)
            assert "hunter2-Secret" not in result.stdout + result.stderr, name
