"""``jobschema timeline``: a job's recorded history as states over time, in four formats."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from jobschema.cli.options import (
    echo_error,
    format_option,
    output_option,
    read_inputs,
    write_output,
)

_EPILOG = """\b
Inputs: a recording's NDJSON (jobschema record -o), its HAR (--har: every answer with the time it
came, error answers included), JSON snapshots, or folders of them; several jobs in one input are
followed apart, by the id each answer names (workloadId, result.jobId), as diff --history does.

\b
States are jobschema's lifecycle for both platforms (waiting, starting, running, stopping, succeeded,
failed, stopped, unknown): every Run:ai phase and AIHC status is mapped (docs/lifecycle.md). An
Unknown phase, a 404 or a 5xx within 120 s of submit is waiting, never failed. Times come from the
payloads' own timestamps (createdAt; AIHC scheduledAt, runningAt, finishedAt, pod creation and end:
whole seconds), else from the HAR's capture times; without either a duration is "?" (NDJSON alone).

\b
Per job: each state with its start and duration, time waiting (waiting and starting) against
running, GPU-hours (GPUs requested x running time; Run:ai gpuDevicesRequest or portion, master plus
numWorkers workers; AIHC GPU resources x replicas), pods with restarts and replacements (the same
name, a new pod), the final state and its reason, and the changes between answers (as diff prints
them, volatile fields left out). Strings pass the secret policy in every format.

\b
Formats: text (default), json (schemas/timeline-report.schema.json), markdown, html (one
self-contained page: a lane per job and per pod, hover for exact times, each lane's states as a
table for screen readers, the changes beside each job; no script, no network, and a
Content-Security-Policy that forbids both; prints, and follows the system's dark mode).

\b
Bad inputs: each input that is missing, cannot be read, is not valid JSON (NaN, 1e400, nesting too
deep, not UTF-8 included) or holds no Run:ai workload or AIHC job answer is named on stderr, one line
in validate's words (an NDJSON line or a HAR entry on its own line); the timelines of all the other
inputs are still written, exactly as without it, and the run exits 2. Other payloads inside an
input that holds jobs (a HAR's other endpoints) are passed over.

\b
Exit codes:
  0  the timelines were written
  2  an input was missing, could not be read, held invalid JSON or no job answer (the others'
     timelines are written); -o naming an input
  130  interrupted (Ctrl-C); SIGTERM exits 143
"""


@click.command(epilog=_EPILOG)
@click.argument("captures", nargs=-1, required=True, metavar="CAPTURES...")
@format_option(("text", "json", "markdown", "html"), "Report format.")
@output_option
def timeline(captures: tuple[str, ...], fmt: str, output: Path | None) -> None:
    """Draw each recorded job's history as a timeline: states, durations, restarts, GPU-hours."""
    from jobschema import __version__
    from jobschema.timeline import drawn, read_captures
    from jobschema.timeline.render import report

    expansion, floor = read_inputs(captures, output)
    read = read_captures(expansion.files)
    for problem in read.problems:
        echo_error(problem)
    if read.observations:
        write_output(_rendered(report(drawn(read.observations), __version__), fmt), output)
    sys.exit(2 if floor or read.problems or not read.observations else 0)


def _rendered(document: dict[str, Any], fmt: str) -> str:
    from jobschema.timeline.render import render_json, render_markdown, render_text

    if fmt == "html":
        from jobschema.timeline.html import render_html

        return render_html(document)
    return {"text": render_text, "json": render_json, "markdown": render_markdown}[fmt](document)
