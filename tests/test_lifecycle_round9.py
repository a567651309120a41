"""jobschema.lifecycle, round 9: which transitions the model calls impossible (a job that succeeded or
failed does not wait, start, run or end again; a stopped one may be resumed), and which answers say
nothing of a job (1xx, 3xx, 401, 403, 407: the client's own business). Values no schema's enum holds
(``Preempted``, ``Suspended``) stay unknown: a preempted job is drawn going back to pending, which is
possible, never flagged. The enums themselves are walked by tests/test_lifecycle_round8.py (a value
added to any fails it)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.lifecycle import (
    ENDED,
    MAPS,
    ORDER,
    TERMINAL,
    State,
    impossible,
    is_transient,
    says_nothing,
    state_of,
)

#: Every (before, after) the model calls impossible, written out: the rule in words, not in code.
IMPOSSIBLE = {
    (ended, after)
    for ended in (State.SUCCEEDED, State.FAILED)
    for after in (State.WAITING, State.STARTING, State.RUNNING, State.SUCCEEDED, State.FAILED, State.STOPPED)
    if after is not ended
}


@pytest.mark.parametrize(("before", "after"), list(itertools.product(ORDER, ORDER)))
def test_a_transition_is_impossible_exactly_when_a_job_that_ended_goes_on(
    before: State, after: State
) -> None:
    assert impossible(before, after) is ((before, after) in IMPOSSIBLE)


def test_what_may_follow_an_end_deleting_an_answer_that_does_not_say_and_a_resume() -> None:
    assert {State.SUCCEEDED, State.FAILED} == ENDED and ENDED < TERMINAL
    completed, deleting, unknown = (state_of("runai", p) for p in ("Completed", "Deleting", "Unknown"))
    assert not impossible(completed, deleting) and not impossible(completed, unknown)
    assert not impossible(state_of("runai", "Stopped"), state_of("runai", "Resuming"))  # (Run:ai resume)
    assert impossible(state_of("aihc", "Succeeded"), state_of("aihc", "Restarting"))
    assert impossible(state_of("aihc", "Failed"), state_of("aihc", "FaultTolerantStart"))
    assert impossible(state_of("runai", "Failed"), state_of("runai", "Completed"))
    assert impossible(state_of("pod", "Succeed"), state_of("pod", "Running"))


@pytest.mark.parametrize("value", ["Preempted", "Suspended", "Queued", "Evicted"])
def test_a_value_no_enum_holds_is_unknown_for_every_api(value: str) -> None:
    for api in MAPS:
        assert state_of(api, value) is State.UNKNOWN and not is_transient(api, value)


def test_a_preempted_job_going_back_to_pending_is_possible() -> None:
    steps = ["Running", "Degraded", "Pending", "Initializing", "Running", "Completed"]
    states = [state_of("runai", p) for p in steps]
    assert not any(impossible(a, b) for a, b in itertools.pairwise(states))


@pytest.mark.parametrize(
    ("status", "silent"),
    [(100, True), (101, True), (199, True), (200, False), (204, False), (299, False), (300, True),
     (301, True), (302, True), (304, True), (307, True), (308, True), (399, True), (400, False), (401, True),
     (403, True), (404, False), (407, True), (429, False), (500, False), (503, False), (0, False)],
)  # fmt: skip
def test_answers_that_say_nothing_of_the_job(status: int, silent: bool) -> None:
    assert says_nothing(status) is silent


@settings(database=None, derandomize=True, max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(ORDER), min_size=2, max_size=8))
def test_once_a_job_ended_every_later_state_but_its_own_stopping_and_unknown_is_impossible(
    states: list[State],
) -> None:
    ended = next((s for s in states if s in ENDED), None)
    if ended is None:
        assert not any(impossible(a, b) for a, b in itertools.pairwise(states))
        return
    after = states[states.index(ended) + 1 :]
    assert [impossible(ended, s) for s in after] == [
        s not in (ended, State.STOPPING, State.UNKNOWN) for s in after
    ]
