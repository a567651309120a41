"""``diff --format patch``: an RFC 6902 JSON Patch that turns LEFT into RIGHT, proven by applying it
with jsonpatch (an implementation no one here wrote) to random documents and to the diff fixtures;
secrets masked in both sides unless ``--show-secrets``; the modes and options it refuses."""

from __future__ import annotations

import json
from typing import Any

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.diff.patch import apply, json_patch
from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures" / "diff"
CASES = REPO / "tests" / "examples" / "diff"

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(-2, 2, allow_nan=False)
    | st.text("ab/~", max_size=3)
)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text("ab/~", max_size=3), inner, max_size=4)
    ),
    max_leaves=25,
)


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _edited(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with a few random edits: the pairs a diff meets (most of the document the same)."""
    if isinstance(value, list):
        items = [_edited(draw, item) if draw(st.booleans()) else item for item in value]
        if draw(st.booleans()) and items:
            del items[draw(st.integers(0, len(items) - 1))]
        if draw(st.booleans()):
            items.insert(draw(st.integers(0, len(items))), draw(documents))
        return items
    if isinstance(value, dict):
        out = {key: _edited(draw, item) if draw(st.booleans()) else item for key, item in value.items()}
        if draw(st.booleans()):
            out[draw(st.text("abc", max_size=2))] = draw(documents)
        return out
    return draw(documents) if draw(st.booleans()) else value


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    left = draw(documents)
    return left, (_edited(draw, left) if draw(st.booleans()) else draw(documents))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(pairs())
def test_the_patch_turns_left_into_right_exactly(pair: tuple[Any, Any]) -> None:
    left, right = pair
    operations = json_patch(left, right)
    assert _text(jsonpatch.apply_patch(left, operations)) == _text(right)
    assert _text(apply(left, operations)) == _text(right)
    assert (operations == []) == (_text(left) == _text(right))


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ({"a": 1}, {"a": 1.0}),  # the same number to Python, another JSON text
        ({"a": True}, {"a": 1}),
        ([1, 2, 3, 4, 5], [2, 4]),
        ([1, 2, 3], [1, 9, 8, 3, 7]),
        ({"a/b": {"~x": 1}}, {"a/b": {"~x": 2}}),  # escaped pointers
        ([{"n": "a"}, {"n": "b"}], [{"n": "b"}, {"n": "a"}, {"n": "c"}]),  # moved as well as changed
        (1, "x"),  # the whole document replaced
    ],
)
def test_edge_pairs(left: Any, right: Any) -> None:
    operations = json_patch(left, right)
    assert operations
    assert _text(jsonpatch.apply_patch(left, operations)) == _text(right)


def _load(path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


SNAPSHOT_CASES = sorted(case for case in CASES.iterdir() if (case / "left.json").is_file())


@pytest.mark.parametrize("case", SNAPSHOT_CASES, ids=lambda case: case.name)
def test_every_snapshot_case_patches_with_secrets_masked_on_both_sides(run_cli, case) -> None:
    left, right = case / "left.json", case / "right.json"
    result = run_cli(["diff", "-f", "patch", str(left), str(right)])
    if result.exit_code == 2:  # a case of two APIs or a broken side: refused as the diff refuses it
        assert result.stderr.startswith("Error: ")
        return
    operations = json.loads(result.stdout)
    masked_left = _masked(left)
    assert _text(jsonpatch.apply_patch(masked_left, operations)) == _text(_masked(right))
    assert result.exit_code == (0 if not operations else 1)


def _masked(path) -> Any:
    """The document as the patch sees it: every secret masked (what --show-secrets turns off)."""
    value = _load(path)
    from jobschema.diff.compare import plan_of, schema_of
    from jobschema.diff.plan import bundled_plan
    from jobschema.diff.secrets import mask_nested

    return mask_nested(value, plan_of(schema_of(value), None), (None, None, None), bundled_plan)


def test_a_changed_secret_is_replaced_by_its_new_mask_never_its_value(run_cli, tmp_path) -> None:
    left = _load(FIXTURES / "job-monday.json")
    right = json.loads(json.dumps(left))
    env = right["result"]["podList"]["pods"][0]["envs"]
    env.append({"name": "HF_TOKEN", "value": "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"})
    (tmp_path / "l.json").write_text(json.dumps(left))
    (tmp_path / "r.json").write_text(json.dumps(right))
    masked = run_cli(["diff", "-f", "patch", str(tmp_path / "l.json"), str(tmp_path / "r.json")], code=1)
    assert "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345" not in masked.stdout
    assert json.loads(masked.stdout)[-1]["value"]["value"].startswith("<secret:")
    shown = run_cli(
        ["diff", "-f", "patch", "--show-secrets", str(tmp_path / "l.json"), str(tmp_path / "r.json")], code=1
    )
    assert _text(jsonpatch.apply_patch(left, json.loads(shown.stdout))) == _text(right)


def test_the_same_document_is_an_empty_patch_and_exit_0(run_cli) -> None:
    job = str(FIXTURES / "job-monday.json")
    assert run_cli(["diff", "-f", "patch", job, job], code=0).stdout == "[]\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--history", "tests/fixtures/record/two-jobs.ndjson"], "it does not apply to --history"),
        (
            ["--roles", "tests/examples/diff/roles-runai-master-differs/input.json"],
            "it does not apply to --roles",
        ),
        (["--ignore-volatile", "a.json", "b.json"], "--ignore-volatile, --exact and --stat do not apply"),
    ],
)
def test_patch_refuses_what_it_cannot_honour(run_cli, args: list[str], message: str) -> None:
    result = run_cli(["diff", "-f", "patch", *args], code=2)
    assert message in result.stderr
