"""Benchmark 9: beyond one machine: ``jobschema validate --dask ADDRESS`` on a ``distributed.LocalCluster``
of this machine against the local run, over the same folders (valid, and 1 in 10 invalid), whole
processes side by side; and whether the two print the same report."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

from tests.benchmarks import contenders as c
from tests.benchmarks import tables
from tests.benchmarks.common import Config, Section, Target, log, ratio, spread, verdict
from tests.benchmarks.corpus import FileCorpus, cached_files
from tests.benchmarks.measure import Contender, Results, console_script, cpus, interleave, run_process

OURS, ONE, DASK = "ours", "one", "dask"
LOCAL_CALL, DASK_CALL = "local-call", "dask-call"
BAD = "bad-"
#: The mask key of the report comparison (both runs must mask with one key to print the same bytes).
KEY = "bench-dask"


def run(config: Config, workdir: Path) -> Section:
    """Start a loopback cluster (one single-threaded worker process per CPU), then time the local
    default, ``--jobs 1`` and ``--dask`` on the smallest file corpus, valid and 10% invalid."""
    valid = cached_files(workdir, config.files[0], config.seed)
    invalid = cached_files(workdir, config.files[0], config.seed, config.invalid_every)
    workers = cpus().affinity
    with _cluster(workers) as address:
        items = _contenders(valid, invalid, address)
        log(
            f"dask: {valid.count:,} files, {workers} workers, {config.reps} rounds of {len(items)} contenders"
        )
        results = interleave(items, config.reps, timeout=config.timeout)
        log(f"dask: in process, {config.reps} alternating rounds")
        calls = _in_process(valid, address, config.reps)
        same = {
            name: _same_report(corpus, address, workdir)
            for name, corpus in (("valid", valid), ("invalid", invalid))
        }
    return _section(config, valid, workers, address, items, results, same, calls)


@contextlib.contextmanager
def _cluster(workers: int) -> Iterator[str | None]:
    """The address of a running LocalCluster on 127.0.0.1, or None when Dask is not installed."""
    if importlib.util.find_spec("distributed") is None:
        yield None
        return
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
        worker_dashboard_address=":0",
    ) as cluster:
        yield cluster.scheduler_address


def _contenders(valid: FileCorpus, invalid: FileCorpus, address: str | None) -> list[Contender]:
    items = []
    for prefix, corpus, label, expect in (("", valid, "", (0,)), (BAD, invalid, "10% invalid: ", (1,))):
        root = str(corpus.root)
        items += [
            c.jobschema(
                prefix + OURS,
                f"{label}`jobschema validate FOLDER` (default `--jobs`)",
                "validate",
                root,
                expect=expect,
            ),
            c.jobschema(
                prefix + ONE,
                f"{label}`jobschema validate --jobs 1 FOLDER`",
                "validate",
                "--jobs",
                "1",
                root,
                expect=expect,
            ),
            _dask(prefix + DASK, f"{label}`jobschema validate --dask ADDRESS FOLDER`", address, root, expect),
        ]
    return items


def _dask(key: str, label: str, address: str | None, root: str, expect: tuple[int, ...]) -> Contender:
    if address is None:
        return Contender(key, label, None, note="not run: Dask is not installed (pip install -e '.[dask]')")
    return c.jobschema(key, label, "validate", "--dask", address, root, expect=expect)


def _in_process(corpus: FileCorpus, address: str | None, reps: int) -> dict[str, list[float]]:
    """Wall seconds of the library calls in this process, alternating: ``validate_paths(jobs=0)``
    against ``validate_files`` through a client connected once (no start-up, no connecting)."""
    if address is None:
        return {}
    from jobschema.validate import validate_paths
    from jobschema.validate.parallel.dask import connect, validate_files

    root = [str(corpus.root)]
    client = connect(address)
    try:
        work = {
            LOCAL_CALL: lambda: validate_paths(root, jobs=0, keep_clean=False),
            DASK_CALL: lambda: validate_files(root, client=client, keep_clean=False),
        }
        for call in work.values():
            call()  # warm-up
        times: dict[str, list[float]] = {key: [] for key in work}
        for number in range(reps):
            for key in list(work)[number % 2 :] + list(work)[: number % 2]:
                started = time.perf_counter()
                work[key]()
                times[key].append(time.perf_counter() - started)
        return times
    finally:
        client.close()


def _call_rows(calls: dict[str, list[float]]) -> list[list[str]]:
    labels = {
        LOCAL_CALL: "in process: `validate_paths([FOLDER], jobs=0)`",
        DASK_CALL: "in process: `validate_files([FOLDER], client=client)` (client connected once)",
    }
    local = statistics.median(calls[LOCAL_CALL]) if calls.get(LOCAL_CALL) else None
    rows = []
    for key, label in labels.items():
        values = calls.get(key, [])
        mine = statistics.median(values) if values else None
        share = ratio(mine / local) if mine is not None and local else "-"
        rows.append([label, spread(values), "-", str(len(values)), "-", share, "-"])
    return rows


def _same_report(corpus: FileCorpus, address: str | None, workdir: Path) -> bool | None:
    """Whether ``--dask`` writes the bytes the local run writes (``--format json``, one mask key)."""
    if address is None:
        return None
    env = {**os.environ, "JOBSCHEMA_MASK_KEY": KEY}
    outputs = []
    for name, extra in (("local", []), ("dask", ["--dask", address])):
        output = workdir / f"dask-{corpus.root.name}-{name}.json"
        cmd = [*console_script("jobschema"), "validate", *extra, "--format", "json", "-o", str(output)]
        run_process([*cmd, str(corpus.root)], timeout=600, env=env)
        outputs.append(output.read_bytes() if output.is_file() else None)
    return outputs[0] is not None and outputs[0] == outputs[1]


def _section(
    config: Config,
    corpus: FileCorpus,
    workers: int,
    address: str | None,
    items: list[Contender],
    results: Results,
    same: dict[str, bool | None],
    calls: dict[str, list[float]],
) -> Section:
    rows = tables.rows(items[:3], results, [OURS, ONE]) + tables.rows(
        items[3:], results, [BAD + OURS, BAD + ONE]
    )
    rows += _call_rows(calls)
    ratios = {key: tables.quotient(results, key + DASK, key + OURS) for key in ("", BAD)}
    compared = [value for value in same.values() if value is not None]
    status = "not measured" if address is None or not compared else verdict(all(compared))
    detail = "; ".join(
        f"{name}: {'same bytes' if value else 'differ' if value is False else '-'}"
        for name, value in same.items()
    )
    return Section(
        key="dask",
        title="9. Beyond one machine: validate on Dask",
        intro=(
            f"{corpus.count:,} files ({corpus.size / 1e6:,.0f} MB, the corpus of section 1) and the "
            f"same corpus with 1 file in {config.invalid_every} invalid. `jobschema validate --dask "
            "ADDRESS` sends the files to a `distributed.LocalCluster` on 127.0.0.1 of this machine "
            f"({workers} worker processes, one thread each, started once before the rounds: its workers "
            "are warm, as a running cluster's are), against the local run. Whole processes, "
            f"{config.reps} interleaved rounds after one untimed run of each; the cluster's processes "
            "run on the same CPUs. The CPU column counts the command's own process (and its pool), not "
            "the cluster's workers. Last, the library in this process (valid corpus, findings only), "
            "alternating: the local call against the Dask call through a client connected once, which "
            "leaves out the start-up and the connecting (÷ default there: ÷ the local call)."
        ),
        headers=[*tables.HEADERS, "÷ default", "÷ --jobs 1"],
        rows=rows,
        notes=[
            "Dask ÷ local default, round by round: "
            f"{tables.pairwise_text(results, DASK, OURS)} (valid), "
            f"{tables.pairwise_text(results, BAD + DASK, BAD + OURS)} (10% invalid).",
            "On one machine the Dask path cannot be faster than the local pool: it checks the same files "
            "with as many processes, and adds the client's start-up (importing distributed, connecting), "
            "the scheduler's work per task and the results' way back. What it buys is the workers of other "
            "machines; one file (a large NDJSON) is one task, checked by one worker.",
        ],
        targets=[
            Target(
                "the Dask path: the same report as the local run (`--format json` bytes, one mask key)",
                status,
                detail,
                13,
            )
        ],
        data={
            "dask_over_default": ratios[""],
            "invalid_dask_over_default": ratios[BAD],
            "same": same,
            "in_process": calls,
        },
    )
