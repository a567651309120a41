"""The scripted behaviour of ``jobschema serve``: lifecycles of submitted jobs and injected faults.

A config file is TOML (read with the standard library's ``tomllib``) or JSON (``.json``) with the
same keys, read as every side file is (:mod:`jobschema.inputs.side`)::

    seed = 7                          # --seed overrides it

    [runai]
    lifecycle = ["Creating", {phase = "Pending", polls = 2}, {phase = "Running", seconds = 30}, "Completed"]
    fail_rate = 0.25                  # this share of submitted jobs ends in fail_phase instead
    fail_phase = "Failed"
    unknown_after_submit = 1          # GETs answering actualPhase Unknown right after submit
    not_found_after_submit = 0        # GETs answering 404 right after submit (the job is not visible yet)
    token_expiry = 3600               # seconds an access token lives

    [aihc]
    lifecycle = ["Pending", "Running", "Succeeded"]

    [[faults]]
    route = "runai.get"               # see ROUTES; "*" is every route
    rate = 0.2                        # share of requests answered with an error instead
    status = [429, 503]               # the error statuses, drawn in turn from the seeded generator
    retry_after = 2                   # seconds, sent as Retry-After with every injected error
    latency = 0.05                    # seconds added before every answer of the route

A lifecycle step is a phase name (it lasts one poll) or a table with ``phase`` and either ``polls``
(GETs of the job served in that phase) or ``seconds``; the last step is terminal and repeats.
Phases are read by the one lifecycle model (:mod:`jobschema.lifecycle`): each must be one it knows
for the API, the last step's terminal and no earlier one's (a client stops polling at the first
terminal phase), and ``fail_phase`` a failed one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobschema.errors import ToolkitError
from jobschema.lifecycle import MAPS, TERMINAL, State

#: Route names faults can name: API, then the operation.
ROUTES = (
    "runai.token",
    "runai.get",
    "runai.cluster",
    "runai.submit",
    "runai.suspend",
    "runai.resume",
    "runai.delete",
    "aihc.get",
    "aihc.submit",
    "aihc.stop",
    "aihc.delete",
    "aihc.update",
)
ANY_ROUTE = "*"
#: Statuses a fault may answer with: each has an error body of both APIs.
FAULT_STATUSES = (403, 404, 429, 500, 502, 503, 504)


#: What each API calls the value a lifecycle step names, in errors.
PHASE_NAMES = {"runai": "Run:ai phase", "aihc": "AIHC status"}
_ARTICLES = {"runai": "a", "aihc": "an"}


def known_phases(api: str, states: frozenset[State] | None = None) -> tuple[str, ...]:
    """The values of ``api`` the lifecycle model knows (those in ``states``, if given), in its order."""
    return tuple(value for value, state in MAPS[api].items() if states is None or state in states)


class ConfigError(ToolkitError):
    """A config file that cannot be read or says something jobschema serve cannot do (exit 2)."""


@dataclass(frozen=True)
class Step:
    """One phase of a lifecycle and how long it lasts: ``polls`` GETs, or ``seconds`` (one of them)."""

    phase: str
    polls: int | None = 1
    seconds: float | None = None
    #: From this step on, every pod's container has restarted this many times more (AIHC pods).
    restarts: int = 0
    #: From this step on, this many pods (the first ones) are new pods under the same names: a new
    #: uid and creation time, their restart counts from zero (AIHC pods).
    replace: int = 0


@dataclass(frozen=True)
class Lifecycle:
    """The phases a submitted job walks, the last one terminal; ``fail_rate`` of the jobs (drawn from
    the seed) end in ``fail_phase`` instead of the last step."""

    steps: tuple[Step, ...]
    fail_rate: float = 0.0
    fail_phase: str = "Failed"

    @property
    def phases(self) -> tuple[str, ...]:
        """The phase names, in order."""
        return tuple(step.phase for step in self.steps)


def phases(*names: str) -> Lifecycle:
    """A lifecycle of one poll per phase."""
    return Lifecycle(tuple(Step(name) for name in names))


RUNAI_LIFECYCLE = phases("Creating", "Pending", "Running", "Completed")
AIHC_LIFECYCLE = phases("Pending", "Running", "Succeeded")


@dataclass(frozen=True)
class RouteFault:
    """Faults on one route (or ``*``): a ``rate`` of error answers and added ``latency``."""

    route: str
    rate: float = 0.0
    status: tuple[int, ...] = (503,)
    retry_after: int | None = 1
    latency: float = 0.0


@dataclass(frozen=True)
class ApiBehaviour:
    """How one API behaves beyond its lifecycle: what a client sees right after submit, token life."""

    lifecycle: Lifecycle
    unknown_after_submit: int = 0
    not_found_after_submit: int = 0
    token_expiry: float = 3600.0


@dataclass(frozen=True)
class ServeConfig:
    """Everything scripted: both APIs' behaviour, the faults, and the seed that makes them repeat."""

    runai: ApiBehaviour = field(default_factory=lambda: ApiBehaviour(RUNAI_LIFECYCLE))
    aihc: ApiBehaviour = field(default_factory=lambda: ApiBehaviour(AIHC_LIFECYCLE))
    faults: tuple[RouteFault, ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        """A config built in code is held to what a file is: its lifecycles read by the model."""
        for api in PHASE_NAMES:
            found = lifecycle_problem(api, getattr(self, api).lifecycle)
            if found is not None:
                raise ConfigError(f"{api}.{found[0]}: {found[1]}")


def load_config(path: str | Path) -> ServeConfig:
    """Read a TOML (``.toml``) or JSON config file; any problem is a :class:`ConfigError` naming it."""
    return parse_config(read_config(path), str(path))


def read_config(path: str | Path) -> dict[str, Any]:
    """The parsed (not yet checked) content of a TOML or JSON (``.json``) config file, read by the
    one reader of side files (:mod:`jobschema.inputs.side`)."""
    from jobschema.inputs.side import SideFile, load_json, load_toml

    side = SideFile(path, "the config file", ConfigError)
    data = load_json(side) if Path(path).suffix.lower() == ".json" else load_toml(side)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: (top level): must be a table (an object)")
    return data


def parse_config(data: Any, source: str = "<config>") -> ServeConfig:
    """A :class:`ServeConfig` from the parsed file (``source`` names it in errors)."""
    root = _Reader(source, "")
    table = root.table(data)
    root.known(table, {"seed", "runai", "aihc", "faults"})
    runai = _behaviour(root.child("runai"), table.get("runai", {}), RUNAI_LIFECYCLE, "runai")
    aihc = _behaviour(root.child("aihc"), table.get("aihc", {}), AIHC_LIFECYCLE, "aihc")
    faults = tuple(
        _fault(root.child(f"faults[{i}]"), item)
        for i, item in enumerate(root.array(table.get("faults", []), "faults"))
    )
    return ServeConfig(runai, aihc, faults, root.integer(table.get("seed", 0), "seed", minimum=0))


def _behaviour(at: _Reader, data: Any, default: Lifecycle, api: str) -> ApiBehaviour:
    table = at.table(data)
    at.known(
        table,
        {
            "lifecycle",
            "fail_rate",
            "fail_phase",
            "unknown_after_submit",
            "not_found_after_submit",
            "token_expiry",
        },
    )
    steps = default.steps
    if "lifecycle" in table:
        items = at.array(table["lifecycle"], "lifecycle")
        if not items:
            raise at.error("lifecycle", "needs at least one phase")
        steps = tuple(_step(at.child(f"lifecycle[{i}]"), item, api) for i, item in enumerate(items))
    fail_phase = at.string(table.get("fail_phase", default.fail_phase), "fail_phase")
    lifecycle = Lifecycle(steps, at.rate(table.get("fail_rate", 0.0), "fail_rate"), fail_phase)
    found = lifecycle_problem(api, lifecycle)
    if found is not None:
        raise at.error(*found)
    return ApiBehaviour(
        lifecycle,
        at.integer(table.get("unknown_after_submit", 0), "unknown_after_submit", minimum=0),
        at.integer(table.get("not_found_after_submit", 0), "not_found_after_submit", minimum=0),
        at.number(table.get("token_expiry", 3600.0), "token_expiry", positive=True),
    )


def _step(at: _Reader, item: Any, api: str) -> Step:
    if isinstance(item, str):
        _known_phase(at, item, api)
        return Step(item)
    table = at.table(item)
    at.known(table, {"phase", "polls", "seconds", "restarts", "replace"})
    phase = at.string(table.get("phase"), "phase")
    _known_phase(at, phase, api)
    if "polls" in table and "seconds" in table:
        raise at.error("", "give polls or seconds, not both")
    restarts = at.integer(table.get("restarts", 0), "restarts", minimum=0)
    replace = at.integer(table.get("replace", 0), "replace", minimum=0)
    if "seconds" in table:
        seconds = at.number(table["seconds"], "seconds", positive=False)
        return Step(phase, None, seconds, restarts=restarts, replace=replace)
    polls = at.integer(table.get("polls", 1), "polls", minimum=1)
    return Step(phase, polls, restarts=restarts, replace=replace)


def _known_phase(at: _Reader, phase: str, api: str) -> None:
    problem = phase_problem(api, phase)
    if problem is not None:
        raise at.error("phase", problem)


def phase_problem(api: str, phase: str) -> str | None:
    """Why ``phase`` is no step of ``api`` (the lifecycle model does not know it); None when it is."""
    if not phase:
        return "must not be empty"
    if phase in MAPS[api]:
        return None
    return f"{phase!r} is not {_ARTICLES[api]} {PHASE_NAMES[api]}{_spelled(api, phase, known_phases(api))}"


def _spelled(api: str, phase: str, values: tuple[str, ...]) -> str:
    """`` as the API spells it: 'Pending' (...)`` for a value of ``values`` in another ASCII case (the
    lifecycle reads an AIHC status in any case, but serve sends each step as written and the API's
    clients read the API's spelling); `` (one of A, B, ...)`` otherwise."""
    meant = [value for value in values if phase.isascii() and value.lower() == phase.lower()]
    if meant:
        return f" as the API spells it: {meant[0]!r} (serve sends each step as written)"
    return f" (one of {', '.join(values)})"


def lifecycle_problem(api: str, lifecycle: Lifecycle) -> tuple[str, str] | None:
    """The first key of ``api``'s ``lifecycle`` the lifecycle model refuses, and why (None: none): a
    phase it does not know, a terminal phase before the last step (a client stops polling there), a
    last step that is not terminal (a client would poll forever), a ``fail_phase`` that is not failed."""
    if not lifecycle.steps:
        return "lifecycle", "needs at least one phase"
    last = len(lifecycle.steps) - 1
    for index, step in enumerate(lifecycle.steps):
        problem = phase_problem(api, step.phase) or _place_problem(api, step.phase, index == last)
        if problem is not None:
            return f"lifecycle[{index}].phase", problem
    failed = known_phases(api, frozenset({State.FAILED}))
    if lifecycle.fail_phase not in failed:
        kind = f"a failed {PHASE_NAMES[api]}"
        return (
            "fail_phase",
            f"{lifecycle.fail_phase!r} is not {kind}{_spelled(api, lifecycle.fail_phase, failed)}",
        )
    return None


def _place_problem(api: str, phase: str, last: bool) -> str | None:
    """Why a known ``phase`` cannot be where it is: the last step terminal, no other one."""
    if (MAPS[api][phase] in TERMINAL) == last:
        return None
    terminal = ", ".join(known_phases(api, TERMINAL))
    if last:
        return f"{phase!r} is not terminal; the last step must be (one of {terminal})"
    return f"{phase!r} is terminal; only the last step may be (one of {terminal})"


def _fault(at: _Reader, data: Any) -> RouteFault:
    table = at.table(data)
    at.known(table, {"route", "rate", "status", "retry_after", "latency"})
    route = at.string(table.get("route", ANY_ROUTE), "route")
    if route != ANY_ROUTE and route not in ROUTES:
        raise at.error("route", f"{route!r} is not a route (one of {ANY_ROUTE}, {', '.join(ROUTES)})")
    raw = table.get("status", [503])
    statuses = tuple(at.integer(s, "status") for s in (raw if isinstance(raw, list) else [raw]))
    bad = [s for s in statuses if s not in FAULT_STATUSES]
    if not statuses or bad:
        raise at.error("status", f"must list statuses among {', '.join(map(str, FAULT_STATUSES))}")
    retry_after = table.get("retry_after", 1)
    return RouteFault(
        route,
        at.rate(table.get("rate", 0.0), "rate"),
        statuses,
        None if retry_after is None else at.integer(retry_after, "retry_after", minimum=0),
        at.number(table.get("latency", 0.0), "latency", positive=False),
    )


@dataclass(frozen=True)
class _Reader:
    """Type checks that name the file and the key: ``config.toml: runai.lifecycle[2].polls: …``."""

    source: str
    prefix: str

    def child(self, key: str) -> _Reader:
        return _Reader(self.source, f"{self.prefix}.{key}" if self.prefix else key)

    def error(self, key: str, problem: str) -> ConfigError:
        from jobschema.secrets.policy import masked_token

        # (a key is the file's data: read by the secret policy, ``"--password X" = 1`` is masked)
        where = ".".join(masked_token(part) for part in (self.prefix, key) if part)
        return ConfigError(f"{self.source}: {where or '(top level)'}: {problem}")

    def table(self, value: Any) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.error("", "must be a table (an object)")
        return value

    def array(self, value: Any, key: str = "") -> list[Any]:
        if not isinstance(value, list):
            raise self.error(key, "must be an array")
        return value

    def known(self, table: Mapping[str, Any], keys: set[str]) -> None:
        unknown = sorted(set(table) - keys)
        if unknown:
            raise self.error(unknown[0], f"unknown key (known: {', '.join(sorted(keys))})")

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.error(key, "must be a string")
        return value

    def integer(self, value: Any, key: str, minimum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, "must be an integer")
        if minimum is not None and value < minimum:
            raise self.error(key, f"must be at least {minimum}")
        return value

    def number(self, value: Any, key: str, positive: bool) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.error(key, "must be a number")
        if value < 0 or (positive and value == 0):
            raise self.error(key, "must be positive" if positive else "must not be negative")
        return float(value)

    def rate(self, value: Any, key: str) -> float:
        number = self.number(value, key, positive=False)
        if number > 1:
            raise self.error(key, "must be between 0 and 1")
        return number
