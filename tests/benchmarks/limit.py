"""The practical limit of a Python validator, and the floor under it (issue #13).

    python tests/benchmarks/limit.py [--parse-only] [--parser orjson|json] [--part K/N] PATH...

The *practical limit*: one Python process reads every input, parses each payload with orjson and asks
jsonschema-rs ``is_valid`` (formats on), with one validator per schema built once, the first time a
payload needs it. The schema is picked per payload by its top-level keys, the way
``jobschema.schemas.detect`` does (HAR entries by their URL and status, as ``jobschema.inputs.har``
does). It reports nothing but counts: no error messages, no rules, no embedded documents, no
duplicate keys, no line numbers.

The *floor* (``--parse-only``): the same reading and parsing, nothing else; ``--parser json`` parses
with the standard library instead of orjson (the floor BENCHMARKS.md used before issue #13).

Inputs are files and folders (recursive: ``*.json``, ``*.ndjson``, ``*.jsonl``, ``*.har``, sorted),
as ``jobschema validate`` takes them; NDJSON files are streamed line by line. ``--part K/N`` reads
only the lines of an NDJSON file that start in its K-th of N equal byte ranges (each cut moved to
the next line start, as jobschema cuts a large file): ``limit_parallel.py`` runs the N parts at once.
Prints one summary line (``N payloads: V valid, I invalid``) and exits 0 when every payload is
valid (or parsed), else 1. Start-up is part of what is measured, so this imports only what it uses.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing would add to the start-up measured
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

SUFFIXES = (".json", ".ndjson", ".jsonl", ".har")
LINES = (".ndjson", ".jsonl")
LINE_BUFFER = 2**20
# os.path, not pathlib: importing pathlib would add to the start-up measured.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # noqa: PTH100, PTH120
SCHEMAS = os.path.join(_ROOT, "schemas")  # noqa: PTH118
#: HAR URL paths of the job endpoints -> (schema of a 2xx body, schema of a 4xx/5xx body)
ROUTES = (
    (r"^/api/v1/workloads/distributed/[^/]+/?$", "runai-distributed-workload", "runai-error"),
    (r"^/api/v1/aijobs/[^/]+/?$", "aihc-job-detail", "aihc-error"),
)


def _aihc_v2_job(value: dict[str, Any], result: Any, code: Any, spec: Any) -> bool:
    if "requestId" not in value or result is not None or "result" in value or isinstance(code, str):
        return False
    if isinstance(value.get("job"), dict):
        return True
    return ("jobId" in value or "jobid" in value) and ("status" in value or spec is not None)


def detect(value: Any) -> str | None:
    """The bundled schema a payload fits by its top-level keys (None: none or several)."""
    if not isinstance(value, dict):
        return None
    result = value.get("result")
    code = value.get("code")
    spec = value.get("jobSpec")
    fits = [
        name
        for name, ok in (
            (
                "runai-distributed-workload",
                "workloadId" in value or ("desiredPhase" in value and ("spec" in value or "name" in value)),
            ),
            ("runai-error", type(code) is int and "message" in value and "requestId" not in value),
            ("aihc-job-detail", isinstance(result, dict) and ("jobId" in result or "podList" in result)),
            ("aihc-error", isinstance(code, str) and "requestId" in value and "result" not in value),
            (
                "aihc-raw-request",
                isinstance(spec, dict)
                and "name" in value
                and "result" not in value
                and "requestId" not in value,
            ),
            ("aihc-v2-job", _aihc_v2_job(value, result, code, spec)),
        )
        if ok
    ]
    return fits[0] if len(fits) == 1 else None


def inputs(paths: list[str]) -> list[str]:
    """The files to read: files as given, folders walked for the suffixes jobschema reads, sorted."""
    found = []
    for path in paths:
        if os.path.isdir(path):  # noqa: PTH112
            for folder, _dirs, names in os.walk(path):
                found += [os.path.join(folder, n) for n in names if n.endswith(SUFFIXES)]  # noqa: PTH118
        else:
            found.append(path)
    return sorted(found)


#: What :func:`payloads` yields for a payload that does not parse.
UNPARSABLE = object()


def payloads(
    path: str, parse: Callable[[bytes | str], Any], part: tuple[int, int] = (0, 1)
) -> Iterator[tuple[Any, str | None]]:
    """``(value, schema)`` of every payload in the file ``path``: the schema is known for HAR entries
    (from the URL), else None (to detect); an unparsable payload's value is :data:`UNPARSABLE`.
    ``part`` ``(K, N)``: of an NDJSON file, only the lines that start in its K-th byte range of N."""
    if path.endswith(LINES):
        start, end = _line_range(path, *part)
        # The read buffer jobschema streams NDJSON with (jobschema.inputs.read.LINE_BUFFER).
        with open(path, "rb", buffering=LINE_BUFFER) as handle:  # noqa: PTH123
            handle.seek(start)
            at = start
            for line in handle:
                if at >= end:
                    break
                at += len(line)
                if line.strip():
                    yield _parsed(parse, line)
        return
    with open(path, "rb") as handle:  # noqa: PTH123
        data = handle.read()
    if path.endswith(".har"):
        yield from _har(parse, data)
        return
    yield _parsed(parse, data)


def _line_range(path: str, part: int, parts: int) -> tuple[int, int]:
    """The bytes of the ``part``-th of ``parts`` ranges of the file, each cut at a line start."""
    size = os.path.getsize(path)  # noqa: PTH202

    def cut(k: int) -> int:
        if k <= 0:
            return 0
        if k >= parts:
            return size
        with open(path, "rb") as handle:  # noqa: PTH123
            handle.seek(size * k // parts - 1)
            handle.readline()  # (to the end of the line that holds the cut: the next one starts there)
            return handle.tell()

    return cut(part), cut(part + 1)


def _parsed(
    parse: Callable[[bytes | str], Any], data: bytes | str, schema: str | None = None
) -> tuple[Any, str | None]:
    try:
        return parse(data), schema
    except ValueError:
        return UNPARSABLE, None


def _har(parse: Callable[[bytes | str], Any], data: bytes) -> Iterator[tuple[Any, str | None]]:
    import re
    from urllib.parse import urlsplit

    routes = [(re.compile(pattern), ok, error) for pattern, ok, error in ROUTES]
    for entry in parse(data)["log"]["entries"]:
        url_path = urlsplit(entry["request"]["url"]).path
        status = entry["response"]["status"]
        for pattern, ok, error in routes:
            if pattern.match(url_path):
                text = entry["response"]["content"].get("text")
                if text is not None:
                    yield _parsed(parse, text, error if status >= 400 else ok)
                break


class Validators:
    """One jsonschema-rs validator per bundled schema, built the first time a payload needs it."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.built: dict[str, Any] = {}

    def is_valid(self, value: Any, schema: str) -> bool:
        """Whether ``value`` is an instance of the bundled schema ``schema``."""
        validator = self.built.get(schema)
        if validator is None:
            validator = self.built[schema] = self._build(schema)
        return bool(validator.is_valid(value))

    def _build(self, schema: str) -> Any:
        import jsonschema_rs
        import orjson

        with open(os.path.join(self.folder, f"{schema}.schema.json"), "rb") as handle:  # noqa: PTH118, PTH123
            document = orjson.loads(handle.read())
        return jsonschema_rs.validator_for(document, validate_formats=True)


def main(argv: list[str]) -> int:
    """Parse (and unless ``--parse-only`` validate) every payload; print the counts."""
    parse_only = "--parse-only" in argv
    parser = "orjson"
    args = [arg for arg in argv if arg != "--parse-only"]
    if "--parser" in args:
        at = args.index("--parser")
        parser = args[at + 1]
        del args[at : at + 2]
    part = (0, 1)
    if "--part" in args:
        at = args.index("--part")
        number, count = args[at + 1].split("/")
        part = (int(number), int(count))
        del args[at : at + 2]
    if parser == "orjson":
        import orjson

        parse: Callable[[bytes | str], Any] = orjson.loads
    else:
        import json

        parse = json.loads
    validators = Validators(SCHEMAS)
    total = valid = broken = 0
    for path in inputs(args):
        for value, known in payloads(path, parse, part):
            total += 1
            if value is UNPARSABLE:
                broken += 1
            elif parse_only:
                continue
            else:
                schema = known or detect(value)
                valid += schema is not None and validators.is_valid(value, schema)
    if parse_only:
        print(f"{total} payloads parsed, {broken} unparsable")
        return 0 if broken == 0 else 1
    print(f"{total} payloads: {valid} valid, {total - valid} invalid")
    return 0 if valid == total else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
