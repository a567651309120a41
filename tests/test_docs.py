"""The README is part of the test suite: its console examples print exactly what it shows, and every
command is documented."""

from __future__ import annotations

import re
import shlex

import click
import pytest

from jobschema.cli import COMMANDS, main
from tests.support import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```console\n\$ (jobschema [^\n]*)\n(.*?)```", README, flags=re.DOTALL)


def test_readme_starts_with_the_two_setup_commands() -> None:
    first = re.search(r"```bash\n(.*?)```", README, flags=re.DOTALL)
    assert first is not None
    assert first.group(1).splitlines() == [
        "pip install -e . && jobschema validate schemas/examples",
        'pip install -e ".[test]" && python -m pytest',
    ]


@pytest.mark.parametrize(("command", "expected"), BLOCKS, ids=[c for c, _ in BLOCKS])
def test_console_example_prints_what_the_readme_shows(
    run_cli, monkeypatch: pytest.MonkeyPatch, command: str, expected: str
) -> None:
    monkeypatch.chdir(REPO)
    result = run_cli(shlex.split(command)[1:])
    assert result.stdout == expected


def test_readme_has_console_examples() -> None:
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_is_documented_and_has_help(name: str) -> None:
    command = main.get_command(click.Context(main), name)
    assert command is not None
    assert f"jobschema {name}" in README
    assert (command.help or "").strip()
