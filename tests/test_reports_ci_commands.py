"""No line of a report that shows text from the input (a file name, a key, a payload's value) can be
read as a command by a CI runner, and the text format's escapes are unambiguous.

What each runner reads (their documentation):

- GitHub Actions: a line starting with ``::`` after blanks is a workflow command;
- Azure Pipelines: ``##vso[area.action ...]`` anywhere in a line (the agent searches the line for
  it), and the formatting commands ``##[error]``, ``##[warning]``, ``##[group]``, ``##[section]`` ...
  at a line's start;
- TeamCity: a ``##teamcity[name ...]`` service message in a line;
- GitLab: ``section_start:TIME:NAME`` and ``section_end:`` behind an ``ESC[0K`` and a carriage
  return (both shown as escapes here, so never raw in a line);
- Buildkite: a line starting with ``--- ``, ``+++ ``, ``~~~ `` (a group) or ``^^^ +++``;
- Travis: ``travis_fold:start:NAME`` at a line's start.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.findings import Finding, PayloadResult, Report
from jobschema.report import RenderOptions, render

INVALID = Path(__file__).resolve().parent / "fixtures" / "captures" / "invalid-workload.json"

#: Each runner's command, as a line of a log is read.
_ANYWHERE = re.compile(r"##(vso|teamcity)\[", re.IGNORECASE)
_AT_START = re.compile(
    r"\s*(::|##\[|section_(start|end):|travis_fold:|(---|\+\+\+|~~~)(\s|$)|\^\^\^ \+\+\+)", re.IGNORECASE
)
PREFIXES = [
    "::warning::",
    "::error file=x::",
    "##vso[task.logissue type=error]",
    "##VSO[task.setvariable variable=x]",
    "##[error]",
    "##[warning]",
    "##[group]",
    "##[section]",
    "##teamcity[buildStatus text='x']",
    "section_start:1700000000:x\r\x1b[0K",
    "\x1b[0Ksection_end:1700000000:x",
    "--- ",
    "+++ ",
    "~~~ ",
    "^^^ +++",
    "travis_fold:start:x",
    " ",
    "\t",
    "\n",
    "\u3000",
]


def forged(line: str, *, github_commands: bool = False) -> str | None:
    """The runner that would read ``line`` as a command, or None (our own ``::error``/``::warning``
    commands are no forgery in the github format)."""
    if github_commands and line.startswith(("::error ", "::warning ")):
        line = line.split("::", 2)[2]  # the message: it must hold none of the others
        if _ANYWHERE.search(line):
            return "azure/teamcity"
        return None
    if _ANYWHERE.search(line):
        return "azure/teamcity"
    if _AT_START.match(line):
        return "line start"
    if "\x1b" in line or "\r" in line:
        return "gitlab (raw ESC or CR)"
    return None


def _composed() -> st.SearchStrategy[str]:
    """Texts made of runner prefixes, blanks and plain text, in any order."""
    part = st.one_of(st.sampled_from(PREFIXES), st.text(alphabet="ab:[]#-+ \\n/.", max_size=6))
    return st.lists(part, min_size=1, max_size=4).map("".join)


def _report(source: str, value: str, detail: str) -> Report:
    finding = Finding(
        source=source,
        tokens=("spec", value),
        message=f'"{value}" is not one of "a", "b"',
        rule="enum",
        line=1,
        column=2,
        path=source,
        details=(detail, f"{detail} again"),
    )
    return Report(results=(PayloadResult(source, "runai-distributed-workload", (finding,)),))


@settings(max_examples=50, deadline=None, database=None)
@given(_composed(), _composed(), _composed())
def test_no_line_of_text_or_github_output_is_a_runner_command(source: str, value: str, detail: str) -> None:
    report = _report(source, value, detail)
    for fmt, verbose in (("text", 0), ("text", 1), ("github", 0), ("github", 1)):
        out = render(report, fmt, RenderOptions(verbose=verbose))
        for line in out.split("\n"):
            assert forged(line, github_commands=fmt == "github") is None, (fmt, line)


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("##vso[task.logissue type=error]x.json", "##vso\\x5btask.logissue type=error]x.json"),
        ("##[error]x.json", "./##[error]x.json"),
        ("##[group]x.json", "./##[group]x.json"),
        ("##teamcity[buildStatus text='x']x.json", "##teamcity\\x5bbuildStatus text='x']x.json"),
        ("--- x.json", "./--- x.json"),
        ("+++ x.json", "./+++ x.json"),
        ("section_start:1:x.json", "./section_start:1:x.json"),
    ],
)
def test_a_file_named_as_a_runner_command_is_shown_as_no_command(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, shown: str
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(INVALID, tmp_path / name)
    lines = run_cli(["validate", "--", name], code=1).stdout.splitlines()
    assert lines[0].startswith(f"{shown}:1:1: (root): missing required property"), lines[0]
    assert all(forged(line) is None for line in lines)


def test_a_payload_value_holding_a_command_is_no_command_in_json_output(run_cli, tmp_path: Path) -> None:
    """JSON may spell ``[`` as ``\\u005b``: the same document, no ``##vso[`` in its lines."""
    payload = json.loads(INVALID.read_text())
    payload["desiredPhase"] = "##vso[task.complete result=Succeeded]done"
    (tmp_path / "p.json").write_text(json.dumps(payload))
    for fmt in ("json", "sarif"):
        out = run_cli(["validate", "-f", fmt, str(tmp_path / "p.json")], code=1).stdout
        assert not any(forged(line) for line in out.splitlines()), fmt
        assert "##vso[task.complete result=Succeeded]done" in json.dumps(json.loads(out), ensure_ascii=False)


def test_a_literal_backslash_n_and_a_newline_show_apart(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a\\nb.json", "a\nb.json", "c\\x1b.json", "c\x1b.json", "d\\\\.json", "e\\d.json"):
        shutil.copyfile(INVALID, tmp_path / name)
    out = run_cli(["validate", "."], code=1).stdout
    sources = sorted({line.split(":1:1:")[0] for line in out.splitlines() if ":1:1:" in line})
    expected = ["a\\\\nb.json", "a\\nb.json", "c\\\\x1b.json", "c\\x1b.json", "d\\\\\\.json", "e\\d.json"]
    assert sources == sorted(f"./{name}" for name in expected)


@settings(max_examples=50, deadline=None, database=None)
@given(st.text(alphabet="\\nrtxu0125bfF\n\r\x1b\u2028a[#", max_size=10))
def test_text_escapes_read_back_as_the_text(text: str) -> None:
    """Every shown text reads back as the one it shows: ``\\\\`` a backslash, ``\\n``, ``\\r``,
    ``\\t``, and ``\\xNN``, ``\\uNNNN`` of a character shown escaped that character, any other
    backslash itself (a pattern's ``\\x2F`` is shown as it is)."""
    from jobschema.report.common import visible

    assert _read_back(visible(text)) == text


def _read_back(shown: str) -> str:
    def one(match: re.Match[str]) -> str:
        escape = match.group(0)
        if escape == "\\\\":
            return "\\"
        if escape in ("\\n", "\\r", "\\t"):
            return {"n": "\n", "r": "\r", "t": "\t"}[escape[1]]
        return chr(int(escape[2:], 16))

    escaped = (
        r"\\x(?:[01][0-9a-f]|7f|[89a-f][0-9a-f]|5b|3a|23|2d|2b|7e|5e|73|53|74|54)|\\u(?:202[8-9a-e]|206[6-9])"
    )
    return re.sub(r"\\\\|\\[nrt]|" + escaped, one, shown)
