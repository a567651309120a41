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
from contextlib import contextmanager
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
        return find(strategy, condition, settings=quiet)
    except (NoSuchExample, Unsatisfiable):
        return NOT_FOUND


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
