"""``Finding.placed`` builds the placed finding from a copy of the finding's attributes (not through
the frozen dataclass's ``__init__``): it must equal the finding the constructor builds, field for
field, and what the copy carries over (the remembered pointer) must never be stale."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.findings import Finding, problem
from jobschema.pointer import from_path

TOKENS = st.lists(st.one_of(st.text(max_size=6), st.integers(0, 20)), max_size=5).map(tuple)
LINE = st.one_of(st.none(), st.integers(1, 10**6))


@settings(derandomize=True, database=None, deadline=None, max_examples=200)
@given(
    tokens=TOKENS,
    message=st.text(max_size=20),
    severity=st.sampled_from(["error", "warning"]),
    schema_tokens=st.one_of(st.none(), TOKENS),
    details=st.lists(st.text(max_size=8), max_size=3).map(tuple),
    read_first=st.booleans(),
    where=st.tuples(LINE, LINE),
    path=st.one_of(st.none(), st.text(max_size=10)),
)
def test_placed_equals_the_finding_the_constructor_builds(
    tokens: tuple[str | int, ...],
    message: str,
    severity: str,
    schema_tokens: tuple[str | int, ...] | None,
    details: tuple[str, ...],
    read_first: bool,
    where: tuple[int | None, int | None],
    path: str | None,
) -> None:
    found = problem(tokens, message, "rule", severity, schema_tokens, details)  # type: ignore[arg-type]
    if read_first:  # (what the finding remembered is carried over)
        assert found.pointer == from_path(tokens)
        _ = found.schema_pointer
    tied = found.placed("source", "schema", path, where)
    built = Finding(
        "source", tokens, message, "rule", severity, "schema", where[0], where[1],  # type: ignore[arg-type]
        schema_tokens, path, details,
    )  # fmt: skip
    assert tied == built
    assert hash(tied) == hash(built)
    assert type(tied) is Finding
    assert (tied.details, tied.pointer, tied.schema_pointer) == (details, built.pointer, built.schema_pointer)
    assert tied.sort_key() == built.sort_key()
    assert (found.source, found.line, found.column, found.path) == ("", None, None, None)  # (left as it was)


def test_a_pointer_read_before_a_finding_moves_under_a_document_is_not_carried_over() -> None:
    inner = problem(("password",), "embedded", "rule")
    assert inner.pointer == "/password"
    moved = inner.under(("spec", "raw", 0)).placed("s", "x", "p", (3, 4))
    assert moved.pointer == "/spec/raw/0/password"
    assert inner.placed("s", "x", "p", (1, 1)).pointer == "/password"
