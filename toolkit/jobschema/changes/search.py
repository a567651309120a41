"""The one hypothesis search ``jobschema changes`` makes, for a pattern's witness string and for a
change's witness payload: the smallest value of a strategy that meets a condition, derandomized (the
same value on every run and machine), without hypothesis' example database or its explain phase
(which re-runs the search to say why), every health check off (a search that finds nothing is an
answer here, not a failing test).

Hypothesis keeps a cache (its Unicode tables) in a storage folder, by default ``.hypothesis`` in the
working directory. :func:`cache_home` points it at jobschema's own cache folder for a command's run,
so ``jobschema changes`` never writes into the folder it is started from.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

#: What :func:`smallest` returns when no value meets the condition.
NOT_FOUND: Any = object()


def smallest(strategy: Any, condition: Callable[[Any], bool], examples: int) -> Any:
    """The smallest value of ``strategy`` meeting ``condition`` within ``examples`` tries, or
    :data:`NOT_FOUND`."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    quiet = settings(  # (no deadline: a check slowed by imports or the machine's load is no error)
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=True,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
    )
    try:
        with _outside_pytest():
            return find(strategy, condition, settings=quiet)
    except (NoSuchExample, Unsatisfiable):
        return NOT_FOUND


def _outside_pytest() -> AbstractContextManager[None]:
    """A block in which hypothesis does not know it runs inside a pytest test.

    ``find`` ends by raising inside its own search, and hypothesis formats that exception twice. In a
    pytest test (a contract test calling :mod:`jobschema.changes`, or ours) it formats it as pytest
    reports a failure, parsing the source of every frame: nine tenths of a witness search's time
    (a search of 1 s took 0.1 s without it). Hypothesis would also hang the search's examples on the
    running test as its failing examples. Hypothesis keeps the running test in an internal variable;
    where a release has none, nothing changes but the time."""
    try:
        from hypothesis.internal.escalation import current_pytest_item
    except ImportError:  # pragma: no cover - a hypothesis release without it
        return nullcontext()
    with_value = getattr(current_pytest_item, "with_value", None)
    return with_value(None) if with_value is not None else nullcontext()


@contextmanager
def cache_home() -> Iterator[Path]:
    """Within the block, hypothesis stores its cache in ``$XDG_CACHE_HOME/jobschema/hypothesis``
    (``~/.cache/...``), or, where that cannot be made, in a scratch folder removed afterwards."""
    from hypothesis.configuration import set_hypothesis_home_dir

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    home = base / "jobschema" / "hypothesis"
    scratch: tempfile.TemporaryDirectory[str] | None = None
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError:
        scratch = tempfile.TemporaryDirectory(prefix="jobschema-hypothesis-")
        home = Path(scratch.name)
    set_hypothesis_home_dir(home)
    try:
        yield home
    finally:
        set_hypothesis_home_dir(None)
        if scratch is not None:
            scratch.cleanup()
