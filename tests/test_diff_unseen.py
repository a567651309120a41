"""Laws of ``jobschema diff`` a user relies on, on inputs the other diff tests do not build: a
history recorded as a HAR (``record --har``), one job or several interleaved, with unreadable bodies;
an NDJSON history with unreadable lines, read on past them; and a set list holding an argument pair
(``["--token", SECRET]``), masked in the report as the patch masks it."""

from __future__ import annotations

import base64
import copy
import itertools
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.diff import diff_documents
from jobschema.diff.history import diff_history, job_key, read_history
from jobschema.diff.patch import document_patch
from jobschema.diff.render import render
from tests.support import CAPTURES, REPO, load_json

TWO_JOBS = REPO / "tests" / "fixtures" / "record" / "two-jobs.ndjson"
BASE = "https://tenant.example.run.ai"
SECRET = "Sup3rS3cretValue9"


def _lines() -> list[str]:
    return TWO_JOBS.read_text(encoding="utf-8").splitlines()


def _workload_url(document: dict[str, Any]) -> str:
    return f"{BASE}/api/v1/workloads/distributed/{document['workloadId']}"


def _entry(url: str, status: int, text: str | None, *, base64_body: bool = False) -> dict[str, Any]:
    content: dict[str, Any] = {"mimeType": "application/json", "size": len(text or "")}
    if text is not None:
        content["text"] = base64.b64encode(text.encode()).decode() if base64_body else text
        if base64_body:
            content["encoding"] = "base64"
    return {
        "startedDateTime": "2025-11-29T17:03:00.000Z",
        "time": 1,
        "request": {"method": "GET", "url": url, "headers": [], "httpVersion": "HTTP/1.1"},
        "response": {"status": status, "statusText": "", "headers": [], "content": content},
    }


def _har(entries: list[dict[str, Any]]) -> str:
    return json.dumps({"log": {"version": "1.2", "creator": {"name": "t"}, "entries": entries}}, indent=2)


def _two_jobs_har(*, broken: int | None = None) -> str:
    """The six answers of two-jobs.ndjson as a HAR, in its order (the two jobs interleaved), with a
    token request first, a 404 of a third workload, the third answer base64 encoded, and the answer
    ``broken`` (an index) cut off mid-body."""
    entries = [_entry(f"{BASE}/api/v1/token", 200, '{"accessToken": "x"}')]
    for index, line in enumerate(_lines()):
        text = line[: len(line) // 2] if index == broken else line
        entries.append(_entry(_workload_url(json.loads(line)), 200, text, base64_body=index == 2))
        if index == 3:
            entries.append(_entry(f"{BASE}/api/v1/workloads/distributed/nope", 404, '{"message": "no"}'))
    return _har(entries)


# ------------------------------------------------------------------------------------ HAR histories

HAR_TWO_JOBS = """\
job 7d4f2c1a-5b3e-4e8f-9a61-2c0d8b7e4f13 (runai-distributed-workload)
h.har#1 → h.har#3
  ± actualPhase: "Pending" → "Running"
h.har#3 → h.har#7
  ± actualPhase: "Running" → "Completed"
job c3e1f0a2-6b7d-4e8f-a9b0-1c2d3e4f5a6b (runai-distributed-workload)
h.har#2 → h.har#4
  ± actualPhase: "Creating" → "Running"
h.har#4 → h.har#6
  ± actualPhase: "Running" → "Failed"
different (runai-distributed-workload, history): 4 changed, 0 added, 0 removed
"""


def test_a_har_of_interleaved_jobs_is_each_jobs_history_in_entry_order(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("h.har").write_text(_two_jobs_har(), encoding="utf-8")
    assert run_cli(["diff", "--history", "h.har"], code=1).stdout == HAR_TWO_JOBS
    ndjson = run_cli(["diff", "--history", "-f", "json", str(TWO_JOBS)], code=1)
    har = run_cli(["diff", "--history", "-f", "json", "h.har"], code=1)
    assert json.loads(har.stdout)["changes"] == json.loads(ndjson.stdout)["changes"]
    assert json.loads(har.stdout)["jobs"] == json.loads(ndjson.stdout)["jobs"]


def test_a_har_of_one_job_unchanged_is_exit_0(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    line = _lines()[0]
    url = _workload_url(json.loads(line))
    Path("h.har").write_text(_har([_entry(url, 200, line), _entry(url, 200, line)]), encoding="utf-8")
    assert run_cli(["diff", "--history", "h.har"], code=0).stdout == (
        "h.har#0 → h.har#1: same\nsame (runai-distributed-workload, history)\n"
    )


def test_a_har_body_that_cannot_be_read_is_one_line_and_exit_2(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Named on stderr, one line; the other answers are still compared (as timeline reads on)."""
    monkeypatch.chdir(tmp_path)
    Path("h.har").write_text(_two_jobs_har(broken=4), encoding="utf-8")
    result = run_cli(["diff", "--history", "h.har"], code=2)
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("Error: h.har#6: ")
    warning = result.stderr.removeprefix("Error: ").rstrip("\n")
    assert f"warning: {warning}" in result.stdout.splitlines()


# ----------------------------------------------------------- reading on past unreadable snapshots


def test_unreadable_snapshots_are_named_and_the_others_still_compared(tmp_path: Path) -> None:
    lines = _lines()
    history = tmp_path / "h.ndjson"
    history.write_text("\n".join([*lines[:2], "{bad", *lines[2:], lines[0][:40]]) + "\n", encoding="utf-8")
    snapshots = read_history(str(history), skip_unreadable=True)
    assert snapshots.unreadable == (
        f"{history}:3:2: invalid JSON: Expecting property name enclosed in double quotes",
        f"{history}:8:38: invalid JSON: Unterminated string starting at",
    )
    result = diff_history(snapshots)
    assert [
        (pair.job[:8], pair.left[len(str(history)) :], pair.right[len(str(history)) :])
        for pair in result.pairs
    ] == [
        ("7d4f2c1a", ":1", ":4"),
        ("7d4f2c1a", ":4", ":7"),
        ("c3e1f0a2", ":2", ":5"),
        ("c3e1f0a2", ":5", ":6"),
    ]
    assert result.warnings == snapshots.unreadable
    assert render(result, "text").endswith(
        f"warning: {history}:3:2: invalid JSON: Expecting property name enclosed in double quotes\n"
        f"warning: {history}:8:38: invalid JSON: Unterminated string starting at\n"
        "different (runai-distributed-workload, history): 4 changed, 0 added, 0 removed\n"
    )


@settings(max_examples=30, deadline=None, database=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.sampled_from(["{bad", "[1,", '"open', "\x00"]), max_size=3))
def test_each_jobs_changes_come_in_its_order_whatever_the_interleaving_and_bad_lines(
    seed: int, bad: list[str]
) -> None:
    rnd = random.Random(seed)
    first = load_json(CAPTURES / "runai-distributed-workload" / "seed.json")
    second = copy.deepcopy(first)
    second["workloadId"] = "00000000-0000-4000-8000-000000000002"
    jobs = {
        job_key(doc): [_phase(doc, phase) for phase in ("Pending", "Running", "Completed")]
        for doc in (first, second)
    }
    order = [key for key, docs in jobs.items() for _ in docs]
    rnd.shuffle(order)
    taken = dict.fromkeys(jobs, 0)
    rows: list[str] = []
    for key in order:
        rows.append(json.dumps(jobs[key][taken[key]]))
        taken[key] += 1
    for junk in bad:
        rows.insert(rnd.randint(0, len(rows)), junk)
    lines = list(enumerate(rows, start=1))
    snapshots = [(f"h:{n}", json.loads(row)) for n, row in lines if row not in bad]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "h.ndjson"
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        read = read_history(str(path), skip_unreadable=True)
    assert len(read.unreadable) == len(bad)
    assert [value for _, value in read] == [value for _, value in snapshots]
    result = diff_history(read)
    phases = [(pair.job, [(c.old, c.new) for c in pair.changes]) for pair in result.pairs]
    assert phases == [
        (key, [(old, new)]) for key in dict.fromkeys(order) for old, new in itertools.pairwise(PHASES)
    ]


PHASES = ("Pending", "Running", "Completed")


def _phase(document: dict[str, Any], phase: str) -> dict[str, Any]:
    out = copy.deepcopy(document)
    out["actualPhase"] = phase
    return out


# ------------------------------------------------------------- a credential in a set list's members


def test_an_argument_pair_in_a_set_list_is_masked_in_every_format_as_in_the_patch() -> None:
    left = load_json(CAPTURES / "runai-distributed-workload" / "pytorch-master-differs.json")
    right = copy.deepcopy(left)
    right["masterSpec"].setdefault("security", {}).setdefault("capabilities", []).extend(["--token", SECRET])
    assert SECRET not in json.dumps(document_patch(left, right))
    for a, b in ((left, right), (right, left)):
        result = diff_documents(a, b)
        for fmt in ("text", "json", "markdown"):
            assert SECRET not in render(result, fmt), fmt
    text = render(diff_documents(left, right), "text")
    assert text == (
        "masterSpec\n"
        '  + masterSpec.security.capabilities[="<secret:fab33b01>"]: "<secret:fab33b01>"\n'
        '  + masterSpec.security.capabilities[=--token]: "--token"\n'
        "different (runai-distributed-workload, snapshot): 0 changed, 2 added, 0 removed\n"
    )
