"""Benchmark 7: what the progress display costs: the same run with stderr on a pseudo-terminal (as a
person at a terminal has it, where a bar is drawn) and on a pipe (CI logs, where nothing is)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.benchmarks import contenders as c
from tests.benchmarks import tables
from tests.benchmarks.common import Config, Section, Target, log, ratio
from tests.benchmarks.corpus import cached_files
from tests.benchmarks.measure import Results, interleave

TTY_ONE, PIPE_ONE, TTY, PIPE = "tty-one", "pipe-one", "tty", "pipe"
#: Variables that tell progress libraries (rich, tqdm, click) they are in CI or must stay quiet.
QUIET = ("CI", "GITHUB_ACTIONS", "NO_COLOR", "TERM", "JOBSCHEMA_NO_PROGRESS")


def run(config: Config, workdir: Path) -> Section:
    """``jobschema validate`` of the smallest file corpus, stderr a terminal vs a pipe, interleaved."""
    corpus = cached_files(workdir, config.files[0], config.seed)
    root = str(corpus.root)
    env = {k: v for k, v in os.environ.items() if k not in QUIET}
    env["TERM"] = "xterm-256color"
    one = ("validate", "--jobs", "1", root)
    items = [
        c.jobschema(
            TTY_ONE, "`jobschema validate --jobs 1 FOLDER`, stderr a terminal", *one, env=env, stderr_pty=True
        ),
        c.jobschema(PIPE_ONE, "`jobschema validate --jobs 1 FOLDER`, stderr a pipe", *one, env=env),
        c.jobschema(
            TTY, "`jobschema validate FOLDER`, stderr a terminal", "validate", root, env=env, stderr_pty=True
        ),
        c.jobschema(PIPE, "`jobschema validate FOLDER`, stderr a pipe", "validate", root, env=env),
    ]
    log(f"progress: {corpus.count:,} files, terminal vs pipe, {config.reps} rounds")
    results = interleave(items, config.reps)
    drawn = _bytes(results, TTY_ONE)
    piped = _bytes(results, PIPE_ONE)
    cost = tables.quotient(results, TTY_ONE, PIPE_ONE)
    frame = _frame(results)
    if not frame:
        status = "not measured"
        detail = f"nothing visible was drawn on the terminal ({drawn:,} bytes of control sequences at most)"
    else:
        status = "met" if piped == 0 else "missed"
        detail = (
            f"terminal ÷ pipe {ratio(cost) if cost else '-'} in one process, "
            f"{tables.relative(results, TTY, PIPE)} by default; {drawn:,} bytes drawn on the terminal "
            f"per run, {piped:,} on the pipe (nothing is the goal); its last frame: `{frame}`"
        )
    return Section(
        key="progress",
        title="7. Progress display: terminal against pipe",
        intro=(
            f"{corpus.count:,} files (the corpus of section 1). The same command with stderr on a "
            "pseudo-terminal (100x24, `TERM=xterm-256color`, CI variables unset) and on a pipe; stdout goes "
            f"to a file in both. {config.reps} interleaved rounds after one untimed run of each. The "
            "difference is what drawing the progress display costs; the bytes say whether one was drawn."
        ),
        headers=[*tables.HEADERS, "stderr bytes (last run)", "÷ pipe"],
        rows=[
            [*row[:-1], f"{_bytes(results, item.key):,}", row[-1]]
            for pair, reference in ((items[:2], PIPE_ONE), (items[2:], PIPE))
            for row, item in zip(tables.rows(pair, results, [reference]), pair, strict=True)
        ],
        notes=[
            "Round by round: terminal ÷ pipe "
            f"{tables.pairwise_text(results, TTY_ONE, PIPE_ONE)} (`--jobs 1`), "
            f"{tables.pairwise_text(results, TTY, PIPE)} (default)."
        ],
        targets=[Target("progress display: on a terminal only, its cost measured", status, detail, 13)],
        data={"cost": cost, "drawn": drawn, "piped": piped},
    )


def _frame(results: Results) -> str:
    """The last thing drawn on the terminal that is not a blank line (control sequences dropped)."""
    import re

    runs = results.runs.get(TTY_ONE, [])
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", runs[-1].stderr if runs else "")
    frames = [part.strip() for part in re.split(r"[\r\n]", text) if part.strip()]
    return frames[-1][:120].replace("`", "'") if frames else ""


def _bytes(results: Results, key: str) -> int:
    runs = results.runs.get(key, [])
    return runs[-1].stderr_bytes if runs else 0
