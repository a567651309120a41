"""The suite and the product under a machine's load: every condition a busy machine brings (a slow
draw, a server descheduled past a deadline while the peer's bytes were already there) is forced here
deterministically — a clock that jumps, an event loop whose time is moved — never waited for.

No test here reads a clock or sleeps."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck
from hypothesis.internal.conjecture import data as conjecture_data

from tests.conftest import independent_of_load

# ------------------------------------------------ hypothesis: a slow draw is no failing health check


class _Jumps:
    """``time`` as hypothesis' draws read it: every ``perf_counter`` call is ``step`` seconds later
    (a draw descheduled for that long on a busy machine)."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now

    def __getattr__(self, name: str) -> Any:
        import time

        return getattr(time, name)


def _property_with_its_own_health_checks() -> Any:
    """A property whose settings name the health checks it suppresses, as a test using a fixture
    does (the list replaces the suite profile's, which suppresses ``too_slow``)."""

    @settings(max_examples=5, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.integers())
    def holds(number: int) -> None:
        assert isinstance(number, int)

    return holds


def test_slow_draws_fail_a_property_that_names_its_own_health_checks(monkeypatch):
    """The condition itself: hypothesis times each draw, and draws a loaded machine slowed past
    30 s (the limit with no deadline) fail ``too_slow`` though the property holds."""
    monkeypatch.setattr(conjecture_data, "time", _Jumps(40.0))
    with pytest.raises(FailedHealthCheck, match="too_slow"):
        _property_with_its_own_health_checks()()


def test_the_suite_keeps_its_properties_independent_of_load_whatever_they_suppress(monkeypatch):
    monkeypatch.setattr(conjecture_data, "time", _Jumps(40.0))
    holds = _property_with_its_own_health_checks()
    independent_of_load(holds)
    holds()  # the draws took "minutes": no failure
    kept = holds._hypothesis_internal_use_settings
    assert HealthCheck.function_scoped_fixture in kept.suppress_health_check  # its own kept
    assert kept.max_examples == 5 and kept.deadline is None


@settings(max_examples=3, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(number=st.integers())
def test_every_collected_property_is_kept_independent_of_load(request, number):
    """The suite applies it to every property it collects (this one names its own health checks)."""
    own = request.node.obj._hypothesis_internal_use_settings
    assert HealthCheck.too_slow in own.suppress_health_check and own.deadline is None
    assert isinstance(number, int)


def test_a_method_property_is_kept_independent_of_load_too():
    class Properties:
        @settings(max_examples=2, deadline=500)
        @given(st.integers())
        def holds(self, number: int) -> None:
            assert isinstance(number, int)

    bound = Properties().holds
    independent_of_load(bound)
    kept = Properties.holds._hypothesis_internal_use_settings
    assert kept.deadline is None and HealthCheck.too_slow in kept.suppress_health_check
    independent_of_load(types.SimpleNamespace())  # not a property: left alone


# ------------------------------------- serve: a body that came in time is served, however late it is read


def _stalled_request(pieces: int, then: str = "arrive") -> tuple[int, bytes]:
    """A request body of ``pieces`` messages through :class:`Guard` (request timeout 1 s), on an event
    loop whose clock the test moves: after the first piece the server is descheduled for 5 s (the
    clock jumps), and the next piece had reached it meanwhile (``then="arrive"``: it is taken in the
    same turn of the loop as the deadline, I/O first, as asyncio orders them) or nothing more came
    (``then="silence"``). The answer's status, and the body the application got."""
    from jobschema.serve.guard import DEADLINE, Guard
    from jobschema.serve.limits import Limits

    clock = [1000.0]
    got: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        got["body"] = (await receive())["body"]
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            got["status"] = message["status"]

    async def run() -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        sent = [0]

        def piece() -> None:  # the server's data_received: one piece of the body is there
            sent[0] += 1
            queue.put_nowait({"type": "http.request", "body": b"x", "more_body": sent[0] < pieces})

        def stall() -> None:  # descheduled: the clock passes the deadline before the next turn
            clock[0] += 5.0
            if then == "arrive":
                loop.call_soon(piece)

        piece()
        loop.call_soon(stall)
        headers = [(b"host", b"127.0.0.1"), (b"content-length", str(pieces).encode())]
        scope = {
            "type": "http",
            "method": "POST",
            "path": "/api/v1/token",
            "raw_path": b"/api/v1/token",
            "query_string": b"",
            "headers": headers,
            "extensions": {DEADLINE: clock[0] + 1.0},
        }
        await Guard(app, Limits(request_timeout=1.0), lambda: "id")(scope, queue.get, send)

    loop = asyncio.new_event_loop()
    loop.time = lambda: clock[0]  # type: ignore[method-assign]
    try:
        loop.run_until_complete(run())
    finally:
        loop.close()
    return got["status"], got.get("body", b"")


def test_a_body_that_reached_a_stalled_server_in_time_is_served_not_408():
    assert _stalled_request(2) == (200, b"xx")


def test_a_body_that_had_not_come_by_the_deadline_is_still_408():
    assert _stalled_request(2, then="silence")[0] == 408


@pytest.mark.parametrize("pieces", [2, 3, 5])
def test_only_what_had_come_is_taken_late_and_the_rest_is_not_waited_for(pieces):
    # the stall lets one more piece in: a body of two is whole, a longer one is 408
    assert _stalled_request(pieces)[0] == (200 if pieces == 2 else 408)


# ------------------------------------------ record: a resolver thread runs when the machine lets it


def test_resolver_threads_that_run_late_are_waited_for_and_counted_in_any_order(monkeypatch):
    """``resolve`` returns once its thread has started, not once it has asked the resolver: on a busy
    machine the threads ask later, and in any order. A test reading what was asked waits (bounded)
    for the asks and does not hold them to an order; here each thread is held until the test lets
    it ask, last first."""
    import threading

    import httpcore

    from jobschema.record import deadline as record_deadline
    from tests.test_record_round5 import GUARD, FakeResolver

    fake = FakeResolver()
    monkeypatch.setattr(record_deadline, "_getaddrinfo", fake)
    hosts = [f"late{n}.test" for n in range(record_deadline.MAX_LOOKUPS)]
    gates = {host: threading.Event() for host in hosts}
    real = record_deadline._look_up

    def descheduled(key: tuple[str, int], lookup: Any) -> None:
        gates[key[0]].wait(GUARD)
        real(key, lookup)

    monkeypatch.setattr(record_deadline, "_look_up", descheduled)
    try:
        for host in hosts:
            with pytest.raises(httpcore.ConnectTimeout):
                record_deadline.resolve(host, 443, 0.01)
        assert fake.asked == []  # every thread started, none has asked yet
        for host in reversed(hosts):
            gates[host].set()
            fake.asked_by(len(hosts) - hosts.index(host))
        assert fake.asked == hosts[::-1]
        assert sorted(fake.asked_by(len(hosts))) == sorted(hosts)
    finally:
        for gate in gates.values():
            gate.set()
        fake.released.set()
        for lookup in list(record_deadline._lookups.values()):
            lookup.done.wait(GUARD)


# --------------------------------- serve --generate: the generator's start-up is no answer's wait


def test_a_generating_server_is_handed_out_once_its_generator_has_started(monkeypatch):
    """The generator process's start-up (importing hypothesis, a first draw: 2 s of CPU, 40 s on a
    machine busy enough) ran beside the server: its first generated answers waited for it, past a
    client's timeout. Here the start-up is held until the server is handed out or waited for: the
    server is handed out only once the generator has started."""
    import io
    import threading

    from jobschema.serve import generated, start

    held = threading.Event()
    real_started = generated.Worker._started

    def slow_start(self: Any) -> Any:
        held.wait(60)  # (the test lets it go at once below; a bound, never reached, against a hang)
        return real_started(self)

    monkeypatch.setattr(generated.Worker, "_started", slow_start)
    real_ready = getattr(generated.Worker, "ready", None)
    if real_ready is not None:  # waiting for it lets the start-up go on

        def waited_for(self: Any) -> None:
            held.set()
            real_ready(self)

        monkeypatch.setattr(generated.Worker, "ready", waited_for)
    server = start(generate=True, log=io.StringIO())
    generator = server.state.generator
    started_when_handed_out = generator._process is not None and not generator._lock.locked()
    held.set()
    server.stop()
    assert started_when_handed_out
