"""Benchmark 6: the process-pool default against one process, on an idle machine and on one loaded
by background CPU burners (issue #13: the default must never be slower than one process)."""

from __future__ import annotations

from pathlib import Path

from tests.benchmarks import contenders as c
from tests.benchmarks import tables
from tests.benchmarks.common import Config, Section, Target, log, ratio, verdict
from tests.benchmarks.corpus import FileCorpus, cached_files
from tests.benchmarks.measure import Contender, Results, burner, cpus, interleave

OURS, ONE, LIMIT, FLOOR = "ours", "one", "limit", "floor"


#: "Not slower" allows this much: two runs of the same command differ by more round by round here.
NOISE = 1.05

#: Rounds per condition, as a multiple of ``config.reps``: the verdict is a median of paired ratios.
ROUNDS = 4


def run(config: Config, workdir: Path) -> Section:
    """Default ``--jobs`` vs ``--jobs 1`` on the smallest file corpus: idle, then with one burner per
    CPU but one (so the pool competes for the CPUs it counted), then one per CPU."""
    corpus = cached_files(workdir, config.files[0], config.seed)
    available = cpus()
    log(f"pool: CPUs {available.describe()}")
    conditions: dict[str, tuple[list[Contender], Results]] = {}
    loads = [0, max(1, available.affinity - 1), available.affinity]
    for burners in dict.fromkeys(loads):
        items = _contenders(corpus, burners)
        name = "idle" if burners == 0 else f"{burners} CPU burner{'s' if burners > 1 else ''}"
        log(f"pool: {config.files[0]:,} files, {name}, {config.reps * ROUNDS} rounds")
        with burner(burners, config.burn_limit):
            conditions[name] = (items, interleave(items, config.reps * ROUNDS, timeout=config.burn_limit / 2))
    return _section(config, corpus, available.describe(), conditions)


def _contenders(corpus: FileCorpus, burners: int) -> list[Contender]:
    root = str(corpus.root)
    tag = "" if burners == 0 else f" ({burners} busy)"
    return [
        c.jobschema(OURS, f"`jobschema validate FOLDER` (default `--jobs`){tag}", "validate", root),
        c.jobschema(ONE, f"`jobschema validate --jobs 1 FOLDER`{tag}", "validate", "--jobs", "1", root),
        c.limit(LIMIT, [root], label=f"practical limit (`limit.py`){tag}"),
        c.floor(FLOOR, [root], label=f"floor (`limit.py --parse-only`){tag}"),
    ]


def _section(
    config: Config, corpus: FileCorpus, described: str, conditions: dict[str, tuple[list[Contender], Results]]
) -> Section:
    rows, parts, ok, measured = [], [], True, False
    for name, (items, results) in conditions.items():
        rows += tables.rows(items, results, [ONE, LIMIT, FLOOR], label_prefix=f"{name}: ")
        value, paired = tables.quotient(results, OURS, ONE), tables.pairwise(results, OURS, ONE)
        if value is not None and paired is not None:
            measured = True
            ok = ok and paired[1] <= NOISE
            parts.append(f"{name}: {tables.pairwise_text(results, OURS, ONE)}, medians {ratio(value)}")
    workers = _workers(corpus)
    return Section(
        key="pool",
        title="6. The process pool on a loaded machine",
        intro=(
            f"{corpus.count:,} files ({corpus.size / 1e6:,.0f} MB, the corpus of section 1). The default "
            f"`--jobs` ({workers}) against `--jobs 1`, {config.reps * ROUNDS} interleaved rounds each, first "
            "on the idle machine, then while background processes keep CPUs busy (each a Python loop "
            f"that ends by itself after {config.burn_limit:.0f} s at most, and is killed when its part "
            "ends). CPUs here: "
            f'{described}. "Never slower" means that the median of the round-by-round ratios (each '
            "round runs both commands back to back, so a drift of the machine's speed between rounds "
            f"cancels out) is at most {NOISE:.2f}x: when the default picks one process, both rows run "
            "the same code, and their ratio is the machine's noise."
        ),
        headers=[*tables.HEADERS, "÷ --jobs 1", "÷ limit", "÷ floor"],
        rows=rows,
        targets=[
            Target(
                "the process-pool default is never slower than one process (idle and loaded)",
                verdict(ok) if measured else "not measured",
                "default ÷ `--jobs 1`: " + "; ".join(parts),
                13,
            )
        ],
        data={name: tables.quotient(results, OURS, ONE) for name, (_items, results) in conditions.items()},
    )


def _workers(corpus: FileCorpus) -> str:
    """How many processes the default picks for the corpus, as the product computes it (when the
    product still has the function this asks: it is an internal)."""
    try:
        from jobschema.validate.parallel.pool import usable_cpus, worth_running
    except ImportError:
        try:
            from jobschema.validate.run import usable_cpus, worth_running  # before the pool module
        except ImportError:
            return "as many processes as the product picks"
    files = [str(p) for paths in corpus.files.values() for p in paths]
    picked = worth_running(usable_cpus(), files)
    return f"{picked} process{'es' if picked != 1 else ''} here"
