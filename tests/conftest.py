"""Shared fixtures: run the CLI in-process with strict failure output, the golden-file switch, and a
job count that does not depend on the machine's load."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterator, Sequence

import pytest
from click.testing import CliRunner, Result

from jobschema.cli import main
from jobschema.secrets.mask import KEY_VARIABLE, use_mask_key

#: The mask key of the whole suite (and of the README's examples, which tests/test_docs.py runs):
#: masks are keyed hashes, byte-stable only under one key. Set here, before anything is masked, and
#: for the subprocesses the tests start.
MASK_KEY = "jobschema-example"
os.environ[KEY_VARIABLE] = MASK_KEY
use_mask_key(None)


def _draws_independent_of_loaded_modules() -> None:
    """Hypothesis mixes constants from the source of every local module loaded so far into its draws,
    so a derandomized test would draw other values whenever another test file imported one more
    module. The suite's draws must not depend on test order: no local constants (hypothesis is
    pinned exactly in the test extra, so this private hook is known)."""
    from hypothesis.internal.conjecture import providers

    none = providers.Constants(
        integers=providers.SortedSet(),
        floats=providers.SortedSet(key=providers.float_to_int),
        bytes=providers.SortedSet(),
        strings=providers.SortedSet(),
    )
    providers._get_local_constants = lambda: none


_draws_independent_of_loaded_modules()


#: The most workers ``-n auto`` starts (README's test command): each holds about 600 MB at its peak,
#: so one per CPU would ask for gigabytes on a many-core CI runner; past four the suite's longest
#: tests, not the workers, set its time.
MOST_WORKERS = 4


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: one worker per CPU this process may run on, at most :data:`MOST_WORKERS`
    (``PYTEST_XDIST_AUTO_NUM_WORKERS`` set: that number, as xdist reads it). The CPUs are the
    logical ones: xdist's own count is of physical cores where psutil is installed (dask installs
    it), which on a runner of two virtual CPUs that are one core's two threads is one."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(usable, MOST_WORKERS))


def _properties_independent_of_load() -> None:
    """No property test fails because the machine is busy: hypothesis's default 200 ms deadline per
    example and its too-slow health check time the examples, so a loaded machine (other test runs,
    CI neighbours) could fail a test whose property holds. Nor does a test depend on earlier runs:
    no example database (``.hypothesis/examples`` in the working folder would replay what another
    run saved there, and a run from another folder would not). Every settings object built after
    this (each test's own, at import) starts from this profile.

    Nor does a run's outcome depend on chance: the profile is derandomized, so every run draws the
    same examples (a random seed once failed a CI run on a case the runs before had not drawn; that
    case is now a test of its own, and a submission must not land or fail by a draw). Searching for
    new cases is a separate, deliberate step: ``python -m pytest --hypothesis-profile=explore``
    draws fresh examples each run (and 1,000 for a test that does not set its own number)."""
    from hypothesis import HealthCheck, settings

    common: dict[str, object] = {
        "deadline": None,
        "suppress_health_check": [HealthCheck.too_slow],
        "database": None,
    }
    settings.register_profile("jobschema", derandomize=True, **common)
    settings.register_profile("explore", derandomize=False, max_examples=1000, **common)
    settings.load_profile("jobschema")


_properties_independent_of_load()


def independent_of_load(test: object) -> None:
    """Keep the profile's promise for a property whose settings replace it: a test naming the health
    checks it suppresses (``suppress_health_check=[HealthCheck.function_scoped_fixture]``) replaces
    the profile's list, turning ``too_slow`` back on (draws that took 30 s, on a machine busy enough,
    fail a property that holds), and one naming a deadline times its examples. Such a test keeps
    everything else it set; ``too_slow`` is suppressed and the deadline is None."""
    from hypothesis import HealthCheck, settings

    test = getattr(test, "__func__", test)  # (a property that is a method of a test class)
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if getattr(test, "hypothesis", None) is None or own is None:
        return
    if own.deadline is None and HealthCheck.too_slow in own.suppress_health_check:
        return
    suppressed = [*own.suppress_health_check, HealthCheck.too_slow]
    kept = settings(own, deadline=None, suppress_health_check=suppressed)
    test._hypothesis_internal_use_settings = kept  # type: ignore[attr-defined]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every property collected is :func:`independent_of_load` (hypothesis reads a test's settings
    when it runs, from this attribute)."""
    for item in items:
        independent_of_load(getattr(item, "obj", None))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="Rewrite the golden files under tests/golden/ from the current output instead of comparing.",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


RunCli = Callable[..., Result]


@pytest.fixture
def run_cli() -> RunCli:
    """Invoke ``jobschema ARGS``; assert the exit code when ``code`` is given, showing both streams."""

    def run(args: Sequence[str], code: int | None = None, input: str | bytes | None = None) -> Result:
        result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
        if code is not None:
            assert result.exit_code == code, (
                f"exit code {result.exit_code}, expected {code}\n"
                f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
            )
        return result

    return run


@pytest.fixture(autouse=True)
def _default_jobs_independent_of_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default job count (``--jobs 0``) leaves out the CPUs other processes are running on (read
    from ``/proc/loadavg``), so an in-process run would check in fewer processes on a busy machine
    (other test runs, CI neighbours) than on an idle one. Here every usable CPU counts as idle;
    ``idle_cpus`` itself is tested on ``loadavg`` files of its own (tests/test_validate_lib.py)."""
    import jobschema.validate.run

    monkeypatch.setattr(jobschema.validate.run, "idle_cpus", lambda cpus: cpus)


@pytest.fixture
def two_jobs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """In-process runs check even small inputs in two processes by default (two usable CPUs, both idle
    whatever the load, each worth starting); the list gets the job count of each run of several."""
    import jobschema.validate.parallel.pool
    import jobschema.validate.run

    monkeypatch.setattr(jobschema.validate.parallel.pool, "BYTES_PER_JOB", 1)
    monkeypatch.setattr(jobschema.validate.run, "usable_cpus", lambda: 2)
    started: list[int] = []
    real = jobschema.validate.run._parallel
    jobs_of = inspect.signature(real).bind

    monkeypatch.setattr(
        jobschema.validate.run,
        "_parallel",
        lambda *args: started.append(jobs_of(*args).arguments["jobs"]) or real(*args),
    )
    yield started
