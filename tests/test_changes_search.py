"""The witness search (``jobschema.changes.search.smallest``) inside a test that hypothesis runs:
a user's contract test drawing payloads with hypothesis and calling :mod:`jobschema.changes`, or ours.

``hypothesis.find`` ends by raising inside its own search. Inside a hypothesis test, hypothesis
formatted that exception as pytest reports a failure (parsing the source of every frame: nine tenths
of a search's time, 105 s of one test of ours) and hung the search's examples on the running test,
whose failure report would then have suggested them as ``@example`` patches."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.internal.escalation import current_pytest_item

from jobschema.changes.search import NOT_FOUND, smallest


@settings(max_examples=1, database=None, deadline=None, suppress_health_check=[HealthCheck.nested_given])
@given(st.just(None))
def test_a_search_inside_a_hypothesis_test_is_neither_formatted_nor_reported_as_its_failure(
    _: None,
) -> None:
    item: Any = current_pytest_item.value
    assert item is not None  # (the premise: hypothesis knows the running test)
    formatted: list[object] = []
    plain = item.repr_failure
    item.repr_failure = lambda *args, **kwargs: formatted.append(args) or plain(*args, **kwargs)
    try:
        assert smallest(st.integers(min_value=0, max_value=100), lambda value: value > 5, 50) == 6
        assert smallest(st.integers(min_value=0, max_value=3), lambda value: value > 5, 20) is NOT_FOUND
    finally:
        del item.repr_failure
    assert formatted == []
    assert getattr(item, "_hypothesis_failing_examples", None) is None
    assert current_pytest_item.value is item  # (and the running test is known again after it)
