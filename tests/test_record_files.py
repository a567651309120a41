"""A full disk mid-write leaves every recording file whole: the write is rolled back (the file cut to
where it began, the HAR's closing brackets restored) before the error is reported, so the HAR still
parses, the NDJSON holds whole lines only, and the next run resumes both.

The disk fills by a stand-in for the write system calls that writes part of what it is given, then
fails with ENOSPC, as a real write does when the disk fills part way."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jobschema.record import files
from jobschema.record.files import OutputError
from jobschema.record.guard import Guard
from jobschema.record.har import TRAILER, HarWriter
from jobschema.record.ndjson import Line, NdjsonWriter
from jobschema.record.transport import Call, Exchange

NO_SPACE = "No space left on device"


class DiskFills:
    """A disk that holds ``room`` more bytes than each file has now: a write that passes that writes
    what fits, the next one fails with ENOSPC (as the kernel does); cutting a file frees its space.
    With ``broken``, every write after the first failure fails (a disk that went away)."""

    def __init__(self, room: int, broken: bool = False) -> None:
        self.room = room
        self.broken = broken
        self.limits: dict[int, int] = {}
        self.failed = False

    def _fits(self, fd: int, data: bytes, offset: int) -> bytes:
        limit = self.limits.setdefault(fd, os.fstat(fd).st_size + self.room)
        part = data[: max(0, limit - offset)]
        if (not part and data) or (self.broken and self.failed):
            self.failed = True
            raise OSError(errno.ENOSPC, NO_SPACE)
        return part

    def write(self, fd: int, data: bytes) -> int:
        return os.write(fd, self._fits(fd, data, os.fstat(fd).st_size))

    def pwrite(self, fd: int, data: bytes, offset: int) -> int:
        return os.pwrite(fd, self._fits(fd, data, offset), offset)


def _fill(monkeypatch: pytest.MonkeyPatch, room: int, broken: bool = False) -> Callable[[], None]:
    disk = DiskFills(room, broken)
    monkeypatch.setattr(files, "_write", disk.write)
    monkeypatch.setattr(files, "_pwrite", disk.pwrite)
    return monkeypatch.undo


def _exchange(n: int) -> Exchange:
    return Exchange(
        Call("job", "w"), "GET", f"https://h/api/{n}", [], b"", 1.7e9, status=200, body=b'{"n": 1}'
    )


def _job(value: Any) -> str | None:
    return value.get("id") if isinstance(value, dict) else None


@pytest.mark.parametrize("room", [0, 1, 7, 100])
def test_a_har_entry_the_disk_cannot_hold_is_rolled_back(tmp_path: Path, monkeypatch, room):
    path = tmp_path / "r.har"
    writer = HarWriter.open(path, Guard())
    writer.add(_exchange(1), Guard())
    before = path.read_bytes()
    free = _fill(monkeypatch, room)
    with pytest.raises(OutputError, match=f"^{path}: cannot write: {NO_SPACE}; the file is left as it was$"):
        writer.add(_exchange(2), Guard())
    free()
    assert path.read_bytes() == before and before.endswith(TRAILER)
    writer.add(_exchange(3), Guard())  # the same writer goes on where it was
    writer.close()
    urls = [entry["request"]["url"] for entry in json.loads(path.read_text())["log"]["entries"]]
    assert urls == ["https://h/api/1", "https://h/api/3"]
    again = HarWriter.open(path, Guard())  # and a later run resumes it
    assert again.entries == 2
    again.close()


@pytest.mark.parametrize("room", [0, 1, 9])
def test_an_ndjson_line_the_disk_cannot_hold_is_rolled_back(tmp_path: Path, monkeypatch, room):
    path = tmp_path / "r.ndjson"
    writer = NdjsonWriter.open(path, _job)
    writer.append(Line('{"id":"a","n":1}', {"id": "a", "n": 1}))
    free = _fill(monkeypatch, room)
    with pytest.raises(OutputError, match=f"^{path}: cannot write: {NO_SPACE}; the file is left as it was$"):
        writer.append(Line('{"id":"a","n":2,"pad":"' + "p" * 50 + '"}', {}))
    free()
    assert path.read_bytes() == b'{"id":"a","n":1}\n' and writer.lines == 1
    writer.close()
    again = NdjsonWriter.open(path, _job)  # resumed without a note: nothing was torn
    assert again.notes == [] and again.lines == 1 and again.last == {"a": {"id": "a", "n": 1}}
    again.close()


def test_a_fresh_har_the_disk_cannot_hold_is_left_empty_and_taken_up_again(tmp_path: Path, monkeypatch):
    path = tmp_path / "r.har"
    free = _fill(monkeypatch, 10)
    with pytest.raises(OutputError, match="the file is left as it was"):
        HarWriter.open(path, Guard())
    free()
    assert path.read_bytes() == b""
    writer = HarWriter.open(path, Guard())
    writer.close()
    assert json.loads(path.read_text())["log"]["entries"] == []


def test_a_roll_back_that_fails_too_says_so(tmp_path: Path, monkeypatch):
    path = tmp_path / "r.har"
    writer = HarWriter.open(path, Guard())
    _fill(monkeypatch, 3, broken=True)
    with pytest.raises(OutputError, match=f"cannot write: {NO_SPACE}; and cannot restore it: {NO_SPACE}$"):
        writer.add(_exchange(1), Guard())
    writer.close()
