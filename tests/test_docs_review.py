"""The documentation's shown commands, run as a newcomer runs them: in a shell, by the installed
``jobschema`` command, with standard error visible.

tests/test_docs.py runs the ```console blocks in-process through click's test runner; that runner
formats help at a fixed width of 80, which no terminal gives (an 80-column terminal, or a pipe,
gets 78), and it hides standard error. Here the same blocks, and the blocks that show a command
with its output in other forms (the set-up command's last lines, the getting-started stub server,
the pytest plugin's failing item, the wheel-install command), are run for real (masks are the
suite's: tests/conftest.py sets JOBSCHEMA_MASK_KEY for subprocesses too). Beside them, what the
pages name must exist: every link to a heading, every ``jobschema.*`` Python name, every option of a
shown ``jobschema`` command line, a help block for every subcommand, every part of the package in
the architecture's tree.

Covered elsewhere and not run here: the README's and docs/serve.md's consumer tests and serve
example (tests/test_serve_cli.py), docs/library.md's and docs/lifecycle.md's Python examples
(tests/test_library_unseen.py), docs/dask.md (needs a Dask scheduler; tests/test_dask.py), and the
commands that take minutes or write to the checkout (``python -m pytest``, ``jobschema generate``,
``python -m tests.benchmarks``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jobschema.secrets.mask import KEY_VARIABLE
from tests.support import REPO

JOBSCHEMA = shutil.which("jobschema", path=str(Path(sys.executable).parent)) or shutil.which("jobschema")
#: The pages whose console blocks must print only what they show (the others' pages have their own
#: reviews: docs/changes.md shows its standard error in a block of its own).
OTHERS = {"record", "serve", "timeline", "changes", "api-versions"}
PAGES = sorted((REPO / "docs").glob("*.md"))
OWN_PAGES = ["README.md", *(f"docs/{page.name}" for page in PAGES if page.stem not in OTHERS)]
CONSOLE = re.compile(r"```console\n\$ (jobschema [^\n]*)\n(.*?)```", flags=re.DOTALL)


def _blocks(pages: list[str]) -> list[tuple[str, str, str]]:
    return [
        (page, command, shown)
        for page in pages
        for command, shown in CONSOLE.findall((REPO / page).read_text(encoding="utf-8"))
    ]


# What a user's plain terminal has, and nothing of the machine the tests run on: no COLUMNS, no
# CI=true (pytest prints whole summary lines on CI; before, the CI run failed on exactly that), no
# PYTEST_ADDOPTS, no NO_COLOR.
PLAIN_TERMINAL = frozenset({"PATH", "HOME", "TMPDIR", "LANG", "VIRTUAL_ENV", "PYTHONPATH", "SYSTEMROOT"})


def _shell(command: str, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``command`` run by bash as typed, its output to a pipe (the installed command first on PATH)."""
    assert JOBSCHEMA is not None, "the jobschema command is not installed"
    env = {k: v for k, v in os.environ.items() if k in PLAIN_TERMINAL or k.startswith("LC_")}
    env[KEY_VARIABLE] = os.environ[KEY_VARIABLE]  # the pages name the suite's key (tests/conftest.py)
    env["PATH"] = f"{Path(JOBSCHEMA).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


HELP = [block for block in _blocks(["docs/cli.md"]) if block[1].endswith("--help")]
SHOWN = [block for block in _blocks(OWN_PAGES) if not block[1].endswith("--help")]


@pytest.mark.parametrize(("page", "command", "shown"), HELP, ids=[c for _, c, _ in HELP])
def test_a_help_block_is_what_the_command_prints_in_a_terminal(page: str, command: str, shown: str) -> None:
    # (before: the blocks were click's test runner's width, 80; `jobschema diff --help` wraps at 78)
    result = _shell(command)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == shown


@pytest.mark.parametrize(("page", "command", "shown"), SHOWN, ids=[f"{p}: {c}" for p, c, _ in SHOWN])
def test_a_console_block_is_all_a_shell_shows(page: str, command: str, shown: str) -> None:
    """Standard output as shown, and nothing on standard error that the page would hide."""
    result = _shell(command)
    assert result.returncode in (0, 1), result.stderr
    assert (result.stdout, result.stderr) == (shown, "")


def _setup_blocks(page: str) -> tuple[str, list[str]]:
    text = (REPO / page).read_text(encoding="utf-8")
    setup = r"```bash\n(pip install -e \. && jobschema [^\n]*)\n.*?```\n.*?```text\n(.*?)```"
    found = re.search(setup, text, re.DOTALL)
    assert found is not None, f"{page}: no set-up command followed by its output"
    return found.group(1), found.group(2).splitlines()


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_the_set_up_command_ends_as_the_page_shows(page: str) -> None:
    command, shown = _setup_blocks(page)
    assert shown[0] == "…"
    result = _shell(command.split(" && ", 1)[1])
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[-(len(shown) - 1) :] == shown[1:]


def test_the_wheel_install_command_validates_the_bundled_examples_from_anywhere(tmp_path: Path) -> None:
    text = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    [command] = [b for b in re.findall(r"```bash\n(.*?)\n```", text, re.DOTALL) if "schemas_dir()" in b]
    result = _shell(command, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.endswith("21 payloads: 21 valid, 0 invalid; 0 errors, 23 warnings; 0 skipped\n")


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_getting_started_stub_server_prints_what_the_page_shows(tmp_path: Path) -> None:
    """The bash block of task 4 as written, on a free port instead of 8089 (tests run side by side),
    and waiting for the server's three lines instead of the page's ``sleep 2``, which is there for a
    person at a terminal, not for a loaded test machine."""
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    if shutil.which("curl") is None:
        pytest.skip("the example needs curl")
    text = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    section = text.split("## 4. ", 1)[1].split("## 5. ", 1)[0]
    found = re.search(r"```bash\n(.*?)```\n\n```text\n(.*?)```", section, re.DOTALL)
    assert found is not None
    script, shown = found.group(1), found.group(2)
    assert "sleep 2   # until it prints" in script
    port = str(_free_port())
    output = tmp_path / "out"
    wait = f"until grep -q '^warning: no AIHC' {output}; do sleep 0.1; done"
    script = re.sub(r"(?m)^sleep 2 .*$", wait, script.replace("8089", port))
    script = script.replace(" schemas/examples/", f" {REPO}/schemas/examples/")  # (run in tmp_path)
    # task 7's record command, run against this stub before it stops, as the page says
    seven = text.split("## 7. ", 1)[1]
    record = re.search(r"```bash\n(jobschema record [^\n]*)\n```", seven)
    assert record is not None
    recorded = f"{record.group(1).replace('8089', port)} > {tmp_path / 'record.out'} 2>&1"
    script = script.replace("\nkill %1", f"\n{recorded}\nkill %1")
    result = _shell(f"exec > {output} 2>&1\n{script}\nwait", cwd=tmp_path, timeout=120)
    assert result.returncode == 0, output.read_text(encoding="utf-8")
    assert output.read_text(encoding="utf-8") == shown.replace("8089", port)
    assert "1 poll, 0 changes, 0 errors" in (tmp_path / "record.out").read_text(encoding="utf-8")
    assert len((tmp_path / "job.ndjson").read_text(encoding="utf-8").splitlines()) == 1
    assert (tmp_path / "job.har").stat().st_size > 0


def test_the_pytest_plugins_failing_item_is_what_the_page_shows(tmp_path: Path) -> None:
    text = (REPO / "docs" / "contract-testing.md").read_text(encoding="utf-8")
    found = re.search(r"```text\n\$ (python -m pytest [^\n]*)\n(.*?)```", text, re.DOTALL)
    assert found is not None
    command, shown = found.group(1), found.group(2)
    captures = tmp_path / "captures"
    captures.mkdir()
    shutil.copy(REPO / "tests/fixtures/captures/invalid-workload.json", captures)
    for source in (REPO / "schemas/examples/runai-error").glob("*.json"):
        shutil.copy(source, captures)
    result = _shell(f"{Path(sys.executable).parent}/{command}", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    seconds = re.compile(r" in \d+\.\d\ds$", flags=re.MULTILINE)
    assert seconds.sub(" in Ts", result.stdout) == seconds.sub(" in Ts", shown)


def _anchors(page: Path) -> set[str]:
    """The heading anchors of a Markdown page as GitHub and MyST spell them (with the headings of the
    files it includes: docs/performance.md includes BENCHMARKS.md)."""
    raw = page.read_text(encoding="utf-8")
    included = re.findall(r"```\{include\} (\S+)", raw)
    text = re.sub(r"```.*?```", "", raw, flags=re.DOTALL)
    text += "".join((page.parent / other).read_text(encoding="utf-8") for other in included)
    headings = re.findall(r"(?m)^#{1,6} (.+)$", text)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("page", ["README.md", *(f"docs/{p.name}" for p in PAGES)])
def test_every_link_to_a_heading_finds_it(page: str) -> None:
    path = REPO / page
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", text):
        if "://" in target:
            continue
        linked = path.parent / target if target else path
        assert anchor in _anchors(linked), f"{page}: {target}#{anchor}"


def test_the_architecture_tree_names_every_part_of_the_package() -> None:
    # (before: lifecycle.py, outputs.py, changes/, timeline/ and models/ were missing from it)
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    found = re.search(r"```text\njobschema/\n(.*?)```", page, re.DOTALL)
    assert found is not None
    tree = found.group(1)
    package = REPO / "toolkit" / "jobschema"
    parts = {
        f"{p.name}/" if p.is_dir() else p.name
        for p in package.iterdir()
        if not p.name.startswith(("_", ".")) and (p.is_dir() or p.suffix == ".py")
    }
    parts.add("models/")  # (generated/jobschema/models/, installed into the package)
    assert {part for part in parts if not re.search(rf"(?<![\w/]){re.escape(part)}", tree)} == set()


def _resolves(name: str) -> bool:
    """``name`` (``jobschema.a.b.C``) is a module, or an attribute of the longest module it starts with."""
    import importlib

    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


@pytest.mark.parametrize("page", OWN_PAGES)
def test_every_python_name_a_page_gives_exists(page: str) -> None:
    # (before: docs/library.md named jobschema.errors.UnknownVersion, which is
    # jobschema.schemas.versions.UnknownVersion; install.md named the private module of validate --dask)
    text = (REPO / page).read_text(encoding="utf-8")
    names = set(re.findall(r"`(jobschema(?:\.\w+)+)[`(]", text))
    names |= set(re.findall(r"\.\. auto\w+:: (jobschema(?:\.\w+)+)", text))
    assert sorted(name for name in names if not _resolves(name)) == []


def _options_of(words: list[str]) -> set[str]:
    """The options of the command ``jobschema WORDS...`` names (its subcommand, if it has one)."""
    import click

    from jobschema.cli import main

    command: click.Command = main
    context = click.Context(main)
    for word in words:
        if not isinstance(command, click.Group) or word.startswith("-"):
            break
        sub = command.get_command(context, word)
        if sub is None:
            break
        command, context = sub, click.Context(sub, parent=context)
    return {"-h", "--help"} | {o for p in command.params for o in [*p.opts, *p.secondary_opts]}


@pytest.mark.parametrize("page", ["README.md", *(f"docs/{p.name}" for p in PAGES)])
def test_every_option_a_shown_command_line_gives_exists(page: str) -> None:
    text = (REPO / page).read_text(encoding="utf-8")
    blocks = "\n".join(re.findall(r"```(?:bash|console)\n(.*?)```", text, re.DOTALL))
    lines = re.findall(r"`(jobschema [^`]+)`", text) + re.findall(r"(?m)^(?:\$ )?(jobschema [^\n]+)", blocks)
    wrong = []
    for line in lines:
        words = re.split(r"\||\$\(|#|&&|;", line)[0].split()[1:]
        known = _options_of(words)
        wrong += [(line, w) for w in words if w.startswith("-") and w != "-" and w.split("=")[0] not in known]
    assert wrong == []


def test_every_subcommand_has_a_help_block_in_the_reference() -> None:
    """tests/test_docs.py asks it of the top-level commands; a group's commands (``record runai``,
    ``schemas show``) need one too."""
    import click

    from jobschema.cli import COMMANDS, main

    context = click.Context(main)
    wanted = set()
    for name in COMMANDS:
        command = main.get_command(context, name)
        if isinstance(command, click.Group):
            subs = command.list_commands(click.Context(command))
            wanted |= {f"jobschema {name} {sub} --help" for sub in subs}
    assert wanted - {command for _, command, _ in HELP} == set()
