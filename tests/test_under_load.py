"""The suite and the product under a machine's load: every condition a busy machine brings (a slow
draw, a server descheduled past a deadline while the peer's bytes were already there) is forced here
deterministically — a clock that jumps, an event loop whose time is moved — never waited for.

No test here reads a clock or sleeps."""

from __future__ import annotations

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
