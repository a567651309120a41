"""What a newcomer follows in the README and docs/ must lead somewhere: every relative link and
image finds its file, every ``#anchor`` a heading (one the built site gives an anchor: MyST makes
them for levels 1 to 3, ``myst_heading_anchors`` in docs/conf.py), every ``jobschema COMMAND`` a
command (and a group's subcommand), and every option a command's own page names is that command's.

tests/test_docs.py and tests/test_docs_review.py check the inline links to files, the anchors as
GitHub spells them and the options of whole shown command lines; these add reference-style links,
images, the built site's heading levels, command names anywhere (an unknown one slipped through
there: the option check falls back to the top-level command) and options named alone in prose. Each
check is a function of a page's text, run on every page and on planted mistakes, which it must name.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from jobschema.cli import main
from tests.support import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
IDS = [page.relative_to(REPO).as_posix() for page in PAGES]
#: The heading levels MyST gives an anchor (docs/conf.py: myst_heading_anchors).
ANCHORED_LEVELS = 3
#: The pages that document one command, and that command: an option they name alone is its option.
COMMAND_PAGES = {"docs/validate.md": "validate", "docs/redact.md": "redact", "docs/dask.md": "validate"}

FENCE = re.compile(r"^```.*?^```", flags=re.DOTALL | re.MULTILINE)
CODE_SPAN = re.compile(r"`[^`]*`")
INLINE_LINK = re.compile(r"\]\(\s*([^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"(?m)^ {0,3}\[[^\]]+\]:\s*(\S+)")
SCHEMES = re.compile(r"^[a-z][a-z0-9+.-]*:", flags=re.IGNORECASE)


def _prose(text: str) -> str:
    """The text a reader sees as prose: fenced blocks and code spans taken out."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub and MyST's default slug function spell it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _headings(page: Path) -> dict[str, int]:
    """Each anchor of a Markdown page and its heading's level (with the headings of a file the page
    includes, shifted by its ``:heading-offset:``, as docs/performance.md includes BENCHMARKS.md)."""
    raw = page.read_text(encoding="utf-8")
    found: dict[str, int] = {}
    for marks, heading in re.findall(r"(?m)^(#{1,6}) (.+)$", FENCE.sub("", raw)):
        found.setdefault(_slug(heading), len(marks))
    for other, options in re.findall(r"(?m)^```\{include\} (\S+)\n((?::[^\n]*\n)*)", raw):
        offset = re.search(r":heading-offset: (\d+)", options)
        shift = int(offset.group(1)) if offset else 0
        for anchor, level in _headings(page.parent / other).items():
            found.setdefault(anchor, level + shift)
    return found


def broken_links(page: Path, text: str, site: Path = REPO / "docs") -> list[str]:
    """Every relative link or image of ``text`` (the text of ``page``) that leads nowhere; a page in
    ``site`` is also read in the built site, where deep headings have no anchor (the README is read
    on GitHub only)."""
    prose = _prose(text)
    targets = INLINE_LINK.findall(prose) + REFERENCE_LINK.findall(prose)
    built = page.parent == site
    wrong = []
    for target in targets:
        if SCHEMES.match(target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path) if path else page
        if not linked.exists():
            wrong.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md":
            level = _headings(linked).get(anchor)
            if level is None:
                wrong.append(f"{target}: no such heading")
            elif built and level > ANCHORED_LEVELS:
                wrong.append(f"{target}: a level-{level} heading has no anchor in the built site")
    return wrong


def _command_lines(text: str) -> list[str]:
    """Every ``jobschema ...`` a page names: in a code span, or as a line of a bash/console block."""
    blocks = "\n".join(re.findall(r"```(?:bash|console|sh|shell)\n(.*?)```", text, flags=re.DOTALL))
    lines = re.findall(r"`(jobschema [^`]+)`", text)
    lines += re.findall(r"(?m)^(?:\$ )?(jobschema [^\n]+)", blocks)
    return [re.split(r" \| |\$\(|#|&&|;", line)[0] for line in lines]


def _is_placeholder(word: str) -> bool:
    return word.isupper() or word in {"...", "…"}


def unknown_commands(text: str) -> list[str]:
    """Every ``jobschema WORD [WORD]`` of ``text`` whose command (or a group's subcommand) is none."""
    context = click.Context(main)
    wrong = []
    for line in _command_lines(text):
        words = line.split()[1:]
        if not words or words[0].startswith("-") or _is_placeholder(words[0]):
            continue
        for name in words[0].split("|"):
            command = main.get_command(context, name)
            if command is None:
                wrong.append(f"{line}: no command {name!r}")
                continue
            if isinstance(command, click.Group) and len(words) > 1:
                sub = words[1]
                if sub.startswith("-") or _is_placeholder(sub):
                    continue
                group = click.Context(command, parent=context)
                wrong += [
                    f"{line}: no command {name} {part!r}"
                    for part in sub.split("|")
                    if command.get_command(group, part) is None
                ]
    return wrong


def _options(name: str) -> set[str]:
    command = main.get_command(click.Context(main), name)
    assert command is not None, name
    return {"-h", "--help"} | {o for p in command.params for o in [*p.opts, *p.secondary_opts]}


def unknown_options(text: str, name: str) -> list[str]:
    """Every option a code span of ``text`` names alone (`--jobs N`, `-f github`) that ``jobschema
    NAME`` does not have."""
    known = _options(name)
    spans = re.findall(r"`(-[^`]*)`", FENCE.sub("", text))
    named = [span for span in spans if re.match(r"--?[A-Za-z][\w-]*(?:[ =]|$)", span)]
    return [span for span in named if re.split(r"[ =]", span)[0] not in known]


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_every_link_and_image_of_a_page_leads_somewhere(page: Path) -> None:
    assert broken_links(page, page.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_every_jobschema_command_a_page_names_exists(page: Path) -> None:
    assert unknown_commands(page.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(("page", "name"), sorted(COMMAND_PAGES.items()))
def test_every_option_a_command_page_names_is_the_commands(page: str, name: str) -> None:
    assert unknown_options((REPO / page).read_text(encoding="utf-8"), name) == []


def test_planted_broken_links_are_named() -> None:
    page = REPO / "docs" / "getting-started.md"
    planted = "\n".join(
        [
            "See [validate](validate.md), [nothing](nowhere.md),",
            "[a heading](validate.md#no-such-heading).",
            "![a picture](images/missing.png) and [ok](validate.md#exit-codes)",
            "[included from BENCHMARKS.md](performance.md#machine) [here](#errors-and-warnings)",
            "[gone](#no-such-section) [web](https://example.com/x.md) [mail](mailto:a@b.c)",
            "`[in code](not-a-link.md)`",
            "",
            "[ref]: ../README.md#no-readme-heading",
            "",
            "```text",
            "[in a block](not-a-link-either.md)",
            "```",
        ]
    )
    assert broken_links(page, planted) == [
        "nowhere.md: no such file",
        "validate.md#no-such-heading: no such heading",
        "images/missing.png: no such file",
        "#no-such-section: no such heading",
        "../README.md#no-readme-heading: no such heading",
    ]


def test_a_link_to_a_heading_below_level_three_is_broken_in_the_built_site(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## Two\n\n### Three\n\n#### Four\n", encoding="utf-8")
    text = "[2](other.md#two) [3](other.md#three) [4](other.md#four)\n"
    assert broken_links(tmp_path / "page.md", text, site=tmp_path) == [
        "other.md#four: a level-4 heading has no anchor in the built site"
    ]
    assert broken_links(tmp_path / "page.md", text, site=tmp_path / "elsewhere") == []


def test_planted_unknown_commands_and_options_are_named() -> None:
    planted = "\n".join(
        [
            "Run `jobschema valdiate CAPTURES`, `jobschema record runai --url U`, `jobschema record rnuai`,",
            "`jobschema COMMAND --help`, `jobschema --version` and `jobschema rules | head -1`.",
            "```bash",
            "jobschema redcat x.json",
            "$ jobschema schemas show NAME",
            "jobschema record runai|aihc ...",
            "```",
        ]
    )
    assert unknown_commands(planted) == [
        "jobschema valdiate CAPTURES: no command 'valdiate'",
        "jobschema record rnuai: no command record 'rnuai'",
        "jobschema redcat x.json: no command 'redcat'",
    ]
    page = "`--jobs N`, `-f github`, `--jbos 2`, `-o -`, `--api-version=runai=2.19`, `--check`"
    assert unknown_options(page, "validate") == ["--jbos 2", "--check"]


def test_task_seven_records_what_getting_started_shows(tmp_path: Path) -> None:
    """Task 7's command as written (against a stub of task 4's captures and credentials, on a free
    port), printing the page's two lines: the status line on stderr, the validation on stdout. Its
    ``--count`` is what keeps it from polling a stopped stub for days (before, a reader who ran task
    4's ``kill %1`` first waited on it)."""
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    import os
    import shutil
    import subprocess
    import sys

    from jobschema.serve import Credentials, start

    text = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    seven = text.split("## 7. ", 1)[1]
    found = re.search(r"```bash\n(jobschema record [^\n]*)\n```\n\n```text\n(.*?)```", seven, re.DOTALL)
    assert found is not None
    command, shown = found.group(1), found.group(2).splitlines()
    assert "--count" in command.split()
    credentials = Credentials(runai_client_id="demo", runai_client_secret="demo-secret")
    server = start(
        captures=[str(REPO / "schemas/examples/runai-distributed-workload")], credentials=credentials
    )
    try:
        jobschema = shutil.which("jobschema", path=str(Path(sys.executable).parent)) or "jobschema"
        args = command.replace("http://localhost:8089", server.url).split()[1:]
        env = {**os.environ, "RUNAI_CLIENT_ID": "demo", "RUNAI_CLIENT_SECRET": "demo-secret"}
        result = subprocess.run(
            [jobschema, *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        server.stop()
    assert (result.returncode, result.stderr.splitlines(), result.stdout.splitlines()) == (
        0,
        shown[:1],
        shown[1:],
    )
    assert len((tmp_path / "job.ndjson").read_text(encoding="utf-8").splitlines()) == 1
    assert (tmp_path / "job.har").stat().st_size > 0
