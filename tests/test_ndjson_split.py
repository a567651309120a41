"""A large NDJSON file cut into byte ranges for several processes: the parts tile the file at line
starts, read back as the same payloads, and a run in processes reports what one process does."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from jobschema.findings import Report
from jobschema.inputs import split
from jobschema.inputs.payload import Payload
from jobschema.inputs.read import read_payloads
from jobschema.inputs.split import Part, split_ndjson
from jobschema.validate.parallel import pool
from jobschema.validate.parallel.tickets import batches
from jobschema.validate.run import validate_paths

EXAMPLES = Path(__file__).resolve().parent.parent / "schemas" / "examples"

LINES = st.lists(
    st.one_of(
        st.just(b""),
        st.just(b"  "),
        st.just(b'{"a": 1}'),
        st.just(b'{"a": 1}\r'),
        st.just(b"{bad"),
        st.binary(max_size=30).filter(lambda data: b"\n" not in data),
    ),
    min_size=1,
    max_size=40,
)


def _write(path: Path, lines: list[bytes], final_newline: bool) -> bytes:
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    path.write_bytes(data)
    return data


@given(lines=LINES, final_newline=st.booleans(), jobs=st.integers(1, 4), smallest=st.integers(1, 40))
def test_parts_tile_the_file_at_line_starts(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    final_newline: bool,
    jobs: int,
    smallest: int,
) -> None:
    path = tmp_path_factory.mktemp("split") / "a.ndjson"
    data = _write(path, lines, final_newline)
    pieces = list(split_ndjson(str(path), jobs, smallest))
    if pieces == [str(path)]:
        share = max(smallest, len(data) // (jobs * split.PARTS_PER_JOB))
        assert len(data) < 2 * share or b"\n" not in data[share : len(data) - 1]
        return
    assert all(isinstance(piece, Part) for piece in pieces)
    parts = [piece for piece in pieces if isinstance(piece, Part)]
    assert parts[0].start == 0
    assert parts[-1].end is None
    for before, after in itertools.pairwise(parts):
        assert before.end == after.start
        assert before.start < before.end < len(data)
        assert data[after.start - 1 : after.start] == b"\n"
    for part in parts:
        assert part.first_line == 1 + data.count(b"\n", 0, part.start)


def _seen(files: list[str | Part]) -> list[tuple[str, int, bytes | None, list[str]]]:
    seen = []
    for item in read_payloads(files):
        assert isinstance(item, Payload)
        seen.append((item.source, item.first_line, item.raw, [found.rule for found in item.problems]))
    return seen


@given(lines=LINES, final_newline=st.booleans(), smallest=st.integers(1, 40))
def test_parts_read_as_the_whole_file(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], final_newline: bool, smallest: int
) -> None:
    path = tmp_path_factory.mktemp("split") / "a.ndjson"
    _write(path, lines, final_newline)
    assert _seen(list(split_ndjson(str(path), 2, smallest))) == _seen([str(path)])


def test_lines_longer_than_the_read_buffer_read_whole(tmp_path: Path) -> None:
    from jobschema.inputs.read import LINE_BUFFER

    long = json.dumps({"a": "x" * (2 * LINE_BUFFER + 7)}).encode()
    path = tmp_path / "long.ndjson"
    _write(path, [b'{"a": 1}', long, b"", long + b"\r", b"{bad"], final_newline=False)
    assert _seen([str(path)]) == [
        (f"{path}:1", 1, b'{"a": 1}', []),
        (f"{path}:2", 2, long, []),
        (f"{path}:4", 4, long, []),
        (f"{path}:5", 5, b"{bad", ["parse-error"]),
    ]


def test_a_small_or_unreadable_file_is_not_cut(tmp_path: Path) -> None:
    small = tmp_path / "small.ndjson"
    small.write_bytes(b'{"a": 1}\n' * 10)
    assert list(split_ndjson(str(small), 2)) == [str(small)]
    missing = str(tmp_path / "missing.ndjson")
    assert list(split_ndjson(missing, 2, 1)) == [missing]
    one_line = tmp_path / "one.ndjson"
    one_line.write_bytes(b"x" * 100)  # no newline to cut at
    assert list(split_ndjson(str(one_line), 2, 1)) == [str(one_line)]


def _corpus(path: Path, copies: int) -> None:
    """Valid and invalid payloads of both APIs, blank lines, a CRLF line and one that is not JSON."""
    workload = json.loads((EXAMPLES / "runai-distributed-workload" / "seed.json").read_text())
    job = json.loads((EXAMPLES / "aihc-job-detail" / "multi-pod-pytorch.json").read_text())
    wrong = dict(workload, name=5)
    lines = []
    for index in range(copies):
        lines += [json.dumps(workload), json.dumps(job), "", json.dumps(wrong) + "\r"]
        if index % 7 == 3:
            lines.append('{"name": ')
    path.write_text("\n".join(lines), encoding="utf-8")  # the last line has no newline


def test_processes_report_what_one_process_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "captures.ndjson"
    _corpus(path, 60)
    monkeypatch.setattr(split, "SMALLEST_PART", 4096)
    monkeypatch.setattr(pool, "BYTES_PER_JOB", 4096)
    tasks = list(batches([str(path)], 2, 1))
    assert len(tasks) >= 4
    assert all(len(files) == 1 and isinstance(files[0], Part) for files in tasks)
    one = validate_paths([str(path)], jobs=1)
    two = validate_paths([str(path)], jobs=2)
    assert isinstance(two, Report)
    assert two == one
    assert [result.source for result in one.results][:5] == [f"{path}:{n}" for n in (1, 2, 4, 5, 6)]
    assert sum(1 for result in one.results if not result.valid) == 60 + 9  # the wrong names, the bad JSON


def test_files_around_a_cut_file_keep_their_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "b.ndjson"
    _corpus(big, 30)
    first, last = tmp_path / "a.json", tmp_path / "c.json"
    for small in (first, last):
        small.write_text((EXAMPLES / "runai-error" / "not-found.json").read_text(), encoding="utf-8")
    monkeypatch.setattr(split, "SMALLEST_PART", 2048)
    files = [str(first), str(big), str(last)]
    tasks = list(batches(files, 2, 1))
    assert tasks[0] == [str(first)]
    assert tasks[-1] == [str(last)]
    assert len(tasks) > 3
    assert validate_paths(files, jobs=2) == validate_paths(files, jobs=1)


def test_a_large_ndjson_file_is_worth_processes(tmp_path: Path) -> None:
    for suffix, expected in ((".ndjson", 4), (".jsonl", 4), (".json", 1)):
        path = tmp_path / f"big{suffix}"
        with path.open("wb") as handle:
            handle.truncate(64 * 2**20)  # sparse: no disk used
        assert pool.worth_running(8, [str(path)]) == expected  # 8 parts of 8 MiB make 4 pairs


@example(data=b"\n" * 600, start=0, end=None)  # past the newlines found one by one
@example(data=b"ab\n" * 400, start=5, end=1000)
@given(
    data=st.lists(st.sampled_from([b"\n", b"x", b"\n\n", b"xyz"]), max_size=1500).map(b"".join),
    start=st.integers(0, 4000),
    end=st.one_of(st.none(), st.integers(0, 4000)),
)
def test_newlines_counts_as_bytes_count_does(data: bytes, start: int, end: int | None) -> None:
    assert split.newlines(data, start, end) == data.count(b"\n", start, len(data) if end is None else end)
