"""The README and the documentation site (docs/) are part of the test suite: every console example
prints exactly what it shows, the README stays short and starts with the two set-up commands, every
command is documented with its help, and every link of the README leads to a file."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from jobschema.cli import COMMANDS, main
from tests.support import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
CONSOLE = re.compile(r"```console\n\$ (jobschema [^\n]*)\n(.*?)```", flags=re.DOTALL)
#: The width help is wrapped at in an 80-column terminal or a pipe (click: the terminal's columns
#: less 2; click's test runner would force 80, which no terminal prints).
HELP_WIDTH = 78
BLOCKS = [
    (page.relative_to(REPO).as_posix(), command, shown)
    for page in PAGES
    for command, shown in CONSOLE.findall(page.read_text(encoding="utf-8"))
]


def test_readme_starts_with_the_two_setup_commands() -> None:
    first = re.search(r"```bash\n(.*?)```", README, flags=re.DOTALL)
    assert first is not None
    assert first.group(1).splitlines() == [
        "pip install -e . && jobschema validate schemas/examples",
        'pip install -e ".[test]" && python -m pytest -n auto',
    ]


def test_readme_is_short() -> None:
    assert len(README.splitlines()) < 150


@pytest.mark.parametrize(("page", "command", "expected"), BLOCKS, ids=[f"{p}: {c}" for p, c, _ in BLOCKS])
def test_console_example_prints_what_the_page_shows(
    monkeypatch: pytest.MonkeyPatch, update_golden: bool, page: str, command: str, expected: str
) -> None:
    """(``pytest --update-golden`` writes what the command prints now into the page instead.)"""
    monkeypatch.chdir(REPO)
    args = shlex.split(command)[1:]
    runner = CliRunner()
    result = runner.invoke(
        main, args, prog_name="jobschema", catch_exceptions=False, terminal_width=HELP_WIDTH
    )
    if update_golden and result.stdout != expected:
        path = REPO / page
        old = f"```console\n$ {command}\n{expected}```"
        path.write_text(
            path.read_text(encoding="utf-8").replace(old, f"```console\n$ {command}\n{result.stdout}```")
        )
        return
    assert result.stdout == expected


def test_every_page_with_examples_has_some() -> None:
    assert {page for page, _, _ in BLOCKS} >= {"README.md", "docs/getting-started.md", "docs/cli.md"}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_a_help_block_in_the_reference(name: str) -> None:
    command = main.get_command(click.Context(main), name)
    assert command is not None
    assert (command.help or "").strip()
    assert any(page == "docs/cli.md" and c == f"jobschema {name} --help" for page, c, _ in BLOCKS)


def test_every_docs_page_is_in_the_table_of_contents() -> None:
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"(?m)^([a-z0-9-]+)$", index))
    pages = {path.stem for path in (REPO / "docs").glob("*.md")} - {"index"}
    assert pages <= listed


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target or target.startswith("mailto:"):
            continue
        assert (page.parent / target).exists(), f"{page.name}: {target}"


def test_the_library_example_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (REPO / "docs" / "library.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n(.*?)```", page, flags=re.DOTALL)
    assert example is not None
    monkeypatch.chdir(REPO)
    exec(compile(example.group(1), "docs/library.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed and all(line.startswith("schemas/examples/") for line in printed)


def test_the_site_builds_without_a_warning(tmp_path: Path) -> None:
    """As .ci/run builds it (the docs extra; skipped without it)."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed: pip install -e '.[docs]'")
    pytest.importorskip("myst_parser", reason="the docs extra is not installed: pip install -e '.[docs]'")
    import subprocess
    import sys

    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "docs", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (build.returncode, build.stderr) == (0, "")
    assert (tmp_path / "library.html").read_text(encoding="utf-8").count('id="jobschema.') > 20
