"""A HAR body that does not parse is placed where validate places it: at the body's place in the HAR,
with its entry, not at the place inside the body (``file.har:1:7`` named no place in the file),
in coverage's note and in changes' error alike (one function, ``coverage.collect._where``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

URL = "https://h/api/v1/workloads/distributed/abc"


def _har(path: Path, body: str) -> None:
    entry = {
        "startedDateTime": "2026-01-01T00:00:00Z",
        "time": 1,
        "request": {"method": "GET", "url": URL, "httpVersion": "HTTP/1.1", "headers": []},
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/1.1",
            "headers": [],
            "content": {"size": len(body), "mimeType": "application/json", "text": body},
        },
    }
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry]}}, indent=2))


def _validate_place(run_cli: Any, path: Path) -> str:
    line = run_cli(["validate", "--color", "never", str(path)], code=1).stdout.splitlines()[0]
    return line.split(": (root): ")[0]  # FILE:LINE:COLUMN: #0 GET URL


def test_coverage_places_a_har_body_that_does_not_parse_as_validate_does(
    run_cli: Any, tmp_path: Path
) -> None:
    path = tmp_path / "b.har"
    _har(path, '{"a": }')
    place = _validate_place(run_cli, path)
    assert place.startswith(f"{path}:") and place.endswith(f": #0 GET {URL}")
    assert place != f"{path}:1:7"
    note = run_cli(["coverage", str(path)]).stderr.splitlines()
    assert note == [f"note: {place}: invalid JSON: Expecting value (counted as unrecognised)"]


def test_changes_places_it_alike(run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "b.har"
    _har(path, '{\n  "a": }')
    place = _validate_place(run_cli, path)
    result = run_cli(["changes", "runai@2.18", "runai@2.19", str(path)])
    assert f"{place}: invalid JSON: Expecting value" in result.stderr
