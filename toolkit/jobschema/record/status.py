"""The status line of each job, on stderr: phase, polls, changes, errors, and why polling ended.

On a terminal the lines stay at the bottom and are redrawn in place after every poll (finding lines
printed on stdout scroll above them). Anywhere else (a pipe, a CI log) a job's line is printed
whenever its phase, changes, errors or end change — not on every poll, so a job that runs for hours
writes a handful of lines::

    runai 7d4f2c1a-5b3e-4e8f-9a61-2c0d8b7e4f13: Running; 3 polls, 2 changes, 1 error (503)
    runai 7d4f2c1a-5b3e-4e8f-9a61-2c0d8b7e4f13: Completed (terminal); 5 polls, 3 changes, 1 error (503)

When the API names its version (a Run:ai cluster's answer), the line ends with it:
``…; 1 error (503); cluster 2.19.3`` (``cluster 2.26.0, not a known version`` when jobschema has no
schema of that version, so the snapshots are checked against every version).
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from jobschema.record.api import ApiVersion
from jobschema.text import log_safe, plural, visible


@dataclass
class JobState:
    """Where one job's recording stands."""

    api: str
    job: str
    polls: int = 0
    changes: int = 0
    recorded: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    phase: str | None = None
    last: Any = None  # the last snapshot recorded (or found in the file resumed)
    done: str | None = None  # terminal, gone, count, unreachable, redirected, duration, interrupted
    version: ApiVersion | None = None  # what the API said its version is for this job

    def line(self) -> str:
        """The status line (control characters in ids and phases escaped, no CI runner's command)."""
        if self.phase is not None:
            phase = self.phase or '""'
        else:
            phase = "(no snapshot yet)" if self.done is None else "(no snapshot)"
        end = f" ({self.done})" if self.done else ""
        count = sum(self.errors.values())
        kinds = f" ({', '.join(sorted(self.errors))})" if count else ""
        text = (
            f"{self.api} {self.job}: {phase}{end}; {plural(self.polls, 'poll')}, "
            f"{plural(self.changes, 'change')}, {plural(count, 'error')}{kinds}{self._version()}"
        )
        return log_safe(visible(text))

    def _version(self) -> str:
        text = self.version.text if self.version else None
        if text is None:
            return ""
        from jobschema.schemas.versions import resolve

        return f"; cluster {text}" + ("" if resolve(self.api, text) else ", not a known version")

    def key(self) -> tuple[Any, ...]:
        """What makes a plain line worth printing again (everything but the poll count)."""
        return (self.phase, self.changes, sum(self.errors.values()), self.done, self.version)


class StatusBoard:
    """Shows the jobs' status lines on ``stream`` (redrawn on a terminal, printed lines elsewhere)."""

    def __init__(
        self,
        stream: TextIO,
        jobs: Sequence[JobState],
        tty: bool,
        clean: Callable[[str], str],
        width: Callable[[], int] = lambda: shutil.get_terminal_size().columns,
    ) -> None:
        self.stream = stream
        self.jobs = list(jobs)
        self.tty = tty
        self.clean = clean
        self.width = width
        self._printed: dict[str, tuple[Any, ...]] = {}
        self._drawn = 0

    def update(self) -> None:
        """Show what changed (plain) or redraw every line (terminal)."""
        if self.tty:
            self._redraw()
            return
        for job in self.jobs:
            key = job.key()
            if self._printed.get(job.job) != key:
                self._printed[job.job] = key
                self.stream.write(self.clean(job.line()) + "\n")
        self.stream.flush()

    def above(self, write: Callable[[], None]) -> None:
        """Run ``write`` (output to stdout) with the terminal's status lines out of its way."""
        if not self.tty or not self._drawn:
            write()
            return
        self._erase()
        write()
        self._redraw()

    def finish(self) -> None:
        """The final lines: left in place on a terminal, printed where they changed elsewhere."""
        self.update()
        if self.tty:
            self._drawn = 0

    def _erase(self) -> None:
        self.stream.write(f"\x1b[{self._drawn}F\x1b[J" if self._drawn else "")
        self.stream.flush()
        self._drawn = 0

    def _redraw(self) -> None:
        width = max(20, self.width() - 1)
        lines = [self.clean(job.line()) for job in self.jobs]
        cut = [_cut(line, width) for line in lines]
        back = f"\x1b[{self._drawn}F" if self._drawn else ""
        self.stream.write(back + "".join(f"\x1b[K{line}\n" for line in cut) + "\x1b[J")
        self.stream.flush()
        self._drawn = len(cut)


def _cut(line: str, width: int) -> str:
    """``line`` in at most ``width`` terminal columns (a wide character, as CJK text holds, takes two;
    a combining one none), an ellipsis marking a cut: a line that wrapped would take two rows, and
    redrawing would move up too few of them."""
    import unicodedata

    def columns(char: str) -> int:
        if unicodedata.combining(char):
            return 0
        return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1

    if sum(map(columns, line)) <= width:
        return line
    used = end = 0
    while used + columns(line[end]) <= width - 1:  # (the whole line is wider: this stops within it)
        used += columns(line[end])
        end += 1
    return line[:end] + "…"
