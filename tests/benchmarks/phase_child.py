"""One process's pass over a folder of captures, phase by phase (benchmark 1b's child).

    python tests/benchmarks/phase_child.py phases|whole FOLDER

``phases``: each step of ``jobschema validate --jobs 1`` as one loop over every file, in the order a
run takes them (read, parse, detect, the schema and warn-only checks, the rules, placing findings,
rendering the text report), and the practical limit's steps (``orjson.loads``, jsonschema-rs
``is_valid``) beside them. Each loop runs once, in a new process: the caches a run fills (the secret
policy's readings of a message or a path, the report's anchors) are as cold as in a run, and each
phase finds them as warm as the phases before it left them, as in a run.

``whole``: the loop ``jobschema validate --jobs 1`` runs (check, place, render the sections, assemble),
in a process of its own, imports done first.

Prints one JSON object: seconds per phase, the number of files and of findings.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def phases(paths: list[str]) -> dict[str, Any]:
    """Seconds of each phase over ``paths``: the files taken :data:`CHUNK` at a time (so what is held
    stays as small as in a run), each phase one loop over a chunk, its times summed."""
    from jobschema.report import RenderOptions, assemble
    from jobschema.validate.session import Session, Settings

    session = Session(Settings())
    times: dict[str, float] = {}
    sections: list[Any] = []
    steps = _Steps(session, RenderOptions())
    findings = 0
    _warm(paths[:CHUNK])
    for at in range(0, len(paths), CHUNK):
        section, found = steps.chunk(paths[at : at + CHUNK], times)
        sections.append(section)
        findings += found
    _add(times, "render", lambda: assemble(sections, "text", steps.options))
    return {"seconds": times, "files": len(paths), "findings": findings}


#: Files a phase loops over at a time.
CHUNK = 100


def _warm(paths: list[str]) -> None:
    """Parse the first files once, untimed: the process's first parse also grows its heap, a cost
    of whichever phase comes first (the limit's ``orjson.loads``) that no later chunk pays."""
    import orjson

    for path in paths:
        orjson.loads(Path(path).read_bytes())


class _Steps:
    """The phases of one chunk of files, with what they share (the session, the limit's validators)."""

    def __init__(self, session: Any, options: Any) -> None:
        self.session = session
        self.options = options
        self.limits: dict[str, Any] = {}

    def chunk(self, paths: list[str], times: dict[str, float]) -> tuple[Any, int]:
        import orjson

        from jobschema.findings import Report
        from jobschema.inputs.files import read_bytes
        from jobschema.inputs.read import document
        from jobschema.report import render_section
        from jobschema.schemas.detect import detect
        from jobschema.validate import rules
        from jobschema.validate.session import payload_findings, payload_result

        session = self.session
        datas = _add(times, "read", lambda: [read_bytes(path) for path in paths])
        _add(times, "loads", lambda: [orjson.loads(data) for data in datas])
        loaded = _add(times, "parse", lambda: [document(p, p, d) for p, d in zip(paths, datas, strict=True)])
        names = _add(times, "detect", lambda: [detect(payload.value).schema or "" for payload in loaded])
        pairs = [(name, payload.value) for name, payload in zip(names, loaded, strict=True)]
        checkers, limits = self._built({name for name, _ in pairs}, pairs)
        _add(times, "limit", lambda: [limits[name].is_valid(value) for name, value in pairs])
        _add(times, "ladder", lambda: [checkers[name].ladder(value) for name, value in pairs])
        _add(times, "rules", lambda: [list(rules.run(name, value)) for name, value in pairs])
        found = _add(times, "check", lambda: [payload_findings(session, payload) for payload in loaded])
        results = _add(
            times,
            "place",
            lambda: [
                payload_result(session, payload, name, problems)
                for payload, (name, problems) in zip(loaded, found, strict=True)
                if problems
            ],
        )
        report = Report(tuple(results), 0, len(paths) - len(results))
        section = _add(times, "render", lambda: render_section(report, "text", self.options))
        return section, sum(len(result.findings) for result in results)

    def _built(self, names: set[str], pairs: list[tuple[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The checkers and the limit's validators of ``names``, each built (and its compiled
        shortcuts with it) before any phase is timed."""
        import jsonschema_rs
        import orjson

        checkers = {name: self.session.checker(name) for name in names}
        for name in names - self.limits.keys():
            self.limits[name] = _limit_validator(jsonschema_rs, orjson, name)
            for other, value in pairs:
                if other == name:
                    checkers[name].ladder(value)
                    break
        return checkers, self.limits


def _add(times: dict[str, float], key: str, work: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = work()
    times[key] = times.get(key, 0.0) + time.perf_counter() - start
    return result


def whole(paths: list[str]) -> dict[str, Any]:
    """Seconds of the loop ``jobschema validate --jobs 1`` runs over ``paths`` (imports first)."""
    from jobschema.report import RenderOptions, Section, assemble, render_section
    from jobschema.validate.run import tally_expanded
    from jobschema.validate.session import Settings
    from jobschema.validate.tally import Tally

    options = RenderOptions()

    def finish(tally: Tally) -> Section:
        return render_section(tally.report(), "text", options)

    times: dict[str, float] = {}
    _add(
        times,
        "whole",
        lambda: assemble(
            tally_expanded(paths, Settings(keep_clean=False), finish, jobs=1),
            "text",
            options,
        ),
    )
    return {"seconds": times, "files": len(paths)}


def _limit_validator(jsonschema_rs: Any, orjson: Any, name: str) -> Any:
    document = orjson.loads((SCHEMAS / f"{name}.schema.json").read_bytes())
    return jsonschema_rs.validator_for(document, validate_formats=True)


def main(argv: list[str]) -> int:
    import gc

    from jobschema.cli import YOUNG_OBJECTS

    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])  # (as the command line sets it)
    mode, folder = argv
    paths = sorted(str(path) for path in Path(folder).rglob("*.json"))
    print(json.dumps(phases(paths) if mode == "phases" else whole(paths)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
