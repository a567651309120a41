"""Paths and loaders shared by the tests."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jobschema.pointer import escape

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO / "schemas"
CAPTURES = SCHEMAS / "examples"
EXAMPLES = REPO / "tests" / "examples"
SHARED_SEEDS = REPO.parent / "shared" / "seeds"

BUNDLED = (
    "runai-distributed-workload",
    "runai-error",
    "aihc-job-detail",
    "aihc-raw-request",
    "aihc-error",
    "aihc-v2-job",
)

ROOT_CLASSES = {
    "runai-distributed-workload": ("jobschema.models.runai_distributed_workload", "DistributedWorkload"),
    "runai-error": ("jobschema.models.runai_error", "RunaiError"),
    "aihc-job-detail": ("jobschema.models.aihc_job_detail", "AIHCJobDetailResponse"),
    "aihc-raw-request": ("jobschema.models.aihc_raw_request", "AIHCRawRequest"),
    "aihc-error": ("jobschema.models.aihc_error", "AIHCError"),
    "aihc-v2-job": ("jobschema.models.aihc_v2_job", "AIHCV2JobResponse"),
}


def schema_nodes(node: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object of a document with its JSON Pointer; examples and literal values skipped."""
    if isinstance(node, dict):
        yield pointer, node
        for key, value in node.items():
            if key not in ("examples", "const", "enum", "default"):
                yield from schema_nodes(value, f"{pointer}/{escape(key)}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from schema_nodes(value, f"{pointer}/{index}")


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def schema_document(name: str) -> dict[str, Any]:
    return load_json(SCHEMAS / f"{name}.schema.json")


def files_under(folder: Path, pattern: str = "*.json") -> list[Path]:
    """Example files in a folder (sidecars ``*.expect.json`` excluded), sorted."""
    return sorted(p for p in folder.glob(pattern) if not p.name.endswith(".expect.json"))


def valid_cases() -> list[tuple[str, Path]]:
    """(schema name, file) of every payload that must validate: captures and valid edge cases."""
    cases = []
    for name in BUNDLED:
        for folder in (CAPTURES / name, EXAMPLES / "valid" / name):
            cases.extend((name, path) for path in files_under(folder))
    return cases


def all_examples() -> list[tuple[str, Path]]:
    """(schema name, file) of every example: captures, valid edge cases and invalid cases."""
    cases = []
    for name in BUNDLED:
        for folder in (CAPTURES / name, EXAMPLES / "valid" / name, EXAMPLES / "invalid" / name):
            cases += [(name, path) for path in files_under(folder)]
    return cases


def case_id(case: tuple[str, Path]) -> str:
    """``schema/origin/file`` where origin is ``examples`` (captures) or ``valid`` (edge cases)."""
    name, path = case
    return f"{name}/{path.parent.parent.name}/{path.name}"


def compare_golden(path: Path, actual: str, update: bool) -> None:
    """Compare ``actual`` with the golden file byte for byte, or rewrite it under ``--update-golden``."""
    import pytest

    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual.encode("utf-8"))
        return
    if not path.is_file():
        pytest.fail(f"golden file {path} is missing: run `python -m pytest --update-golden`")
    expected = path.read_bytes().decode("utf-8")
    assert actual == expected, (
        f"{path.name} differs; if the change is intended, run `python -m pytest --update-golden`"
    )


@contextlib.contextmanager
def counting_server(body: bytes = b'{"type": "string"}') -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server answering every GET with ``body``: ``(its base URL, the paths asked)``,
    for tests that prove nothing was fetched. It stops when the block ends (bounded by its shutdown)."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


def workload_listing(items: list[Any], where: str = "environmentVariables") -> dict[str, Any]:
    """A Run:ai workload capture (``same-as-worker.json``) whose ``spec.WHERE`` list is ``items``:
    the diff rounds' documents of keyed and keyless lists."""
    document = load_json(CAPTURES / "runai-distributed-workload" / "same-as-worker.json")
    document["spec"][where] = items
    return document
