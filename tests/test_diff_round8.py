"""``jobschema diff``, round 8: every path in one report is unambiguous (keyless items removed and
added say their side, ``[name=null#left-1]``; a key that is a string reading like a number, ``true``
or ``null`` is quoted, ``[name="1"]``; a key ``true`` is not the key ``1``); the two values of a
change read apart (Unicode that reads alike shown with its escapes, long strings that differ past the
cut shown where they differ); pointers escape ``/`` and ``~``; ``1`` equals ``1.0`` unless ``--exact``;
and shuffled member order gives the same bytes in every format (hypothesis)."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.diff import DiffOptions, diff_documents
from jobschema.diff.render import render
from tests.conftest import RunCli
from tests.support import CAPTURES, REPO, load_json
from tests.support import workload_listing as _doc

RUNAI = CAPTURES / "runai-distributed-workload"
ENV = "spec.environmentVariables"
PTR = "/spec/environmentVariables"


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("JOBSCHEMA_MASK_KEY", "jobschema-example")


def _changes(left: Any, right: Any, **options: Any) -> list[tuple[Any, ...]]:
    result = diff_documents(left, right, options=DiffOptions(**options))
    return [(c.op, c.path, c.left_pointer, c.right_pointer) for c in result.changes]


def _texts(left: Any, right: Any, **options: Any) -> dict[str, str]:
    result = diff_documents(left, right, options=DiffOptions(**options))
    return {form: render(result, form) for form in ("text", "json", "markdown")}


# --- every path in one report is one place ------------------------------------------------------------


def test_keyless_items_removed_and_added_say_their_side() -> None:
    left = _doc([{"value": "a"}, {"value": "b"}])
    right = _doc([{"value": "c"}, {"value": "d"}])
    assert _changes(left, right) == [
        ("removed", f"{ENV}[name=null#left-1]", f"{PTR}/0", None),
        ("removed", f"{ENV}[name=null#left-2]", f"{PTR}/1", None),
        ("added", f"{ENV}[name=null#right-1]", None, f"{PTR}/0"),
        ("added", f"{ENV}[name=null#right-2]", None, f"{PTR}/1"),
    ]


def test_one_keyless_item_against_several_says_its_side() -> None:
    left = _doc([{"value": "a"}])
    right = _doc([{"value": "c"}, {"value": "d"}])
    paths = [path for _, path, _, _ in _changes(left, right)]
    assert paths == [f"{ENV}[name=null#left-1]", f"{ENV}[name=null#right-1]", f"{ENV}[name=null#right-2]"]


def test_a_composite_keyless_selector_says_its_side() -> None:
    tol = [
        {"key": None, "operator": "Exists", "effect": e, "value": v}
        for e, v in [("NoExecute", "1"), ("NoExecute", "2")]
    ]
    other = [{"key": None, "operator": "Exists", "effect": "NoExecute", "value": v} for v in ("3", "4")]
    paths = [path for _, path, _, _ in _changes(_doc(tol, "tolerations"), _doc(other, "tolerations"))]
    assert len(set(paths)) == 4 and all(re.search(r"#(left|right)-[12]\]$", path) for path in paths), paths


@pytest.mark.parametrize(
    ("left_key", "right_key"),
    [(1, "1"), (None, "null"), (True, "true"), (1.5, "1.5"), (-2, "-2"), (1e5, "1e5"), (False, "false")],
)
def test_a_key_and_a_string_that_reads_like_it_are_two_paths(left_key: Any, right_key: Any) -> None:
    """A string key that reads like a number, ``true``, ``false`` or ``null`` is quoted in its path."""
    left = _doc([{"name": left_key, "value": "a"}, {"name": "other", "value": "x"}])
    right = _doc([{"name": right_key, "value": "b"}, {"name": "other", "value": "x"}])
    paths = [path for _, path, _, _ in _changes(left, right)]
    assert len(paths) == len(set(paths)), paths
    assert f"[name={json.dumps(right_key)}]" in " ".join(paths), paths


def test_the_key_true_is_not_the_key_1() -> None:
    """Python's ``True == 1`` must not make two items one: JSON's ``true`` is no number."""
    for a, b in [(True, 1), (False, 0), (True, 1.0)]:
        left = _doc([{"name": a, "value": "v"}])
        right = _doc([{"name": b, "value": "v"}])
        assert [op for op, *_ in _changes(left, right)] == ["added", "removed"], (a, b)
    same = _doc([{"name": True, "value": "v"}, {"name": 1, "value": "w"}])
    assert _changes(same, copy.deepcopy(same)) == []
    swapped = _doc([{"name": 1, "value": "w"}, {"name": True, "value": "v"}])
    assert _changes(same, swapped) == []  # (a reorder, each key its own)


def test_a_number_key_matches_its_equal_number() -> None:
    """``1`` and ``1.0`` are one number (values compare by meaning)."""
    left = _doc([{"name": 1, "value": "a"}])
    right = _doc([{"name": 1.0, "value": "b"}])
    assert _changes(left, right) == [("changed", f"{ENV}[name=1].value", f"{PTR}/0/value", f"{PTR}/0/value")]


ITEM = st.one_of(
    st.fixed_dictionaries({"value": st.sampled_from("abc")}),
    st.fixed_dictionaries(
        {
            "name": st.sampled_from([None, 1, "1", True, "true", "null", "A", "a#2", "x/y~z"]),
            "value": st.sampled_from("abc"),
        }
    ),
)


@settings(database=None, derandomize=True, max_examples=400, deadline=None)
@given(st.lists(ITEM, max_size=6), st.lists(ITEM, max_size=6))
def test_no_two_changes_of_one_report_share_a_path(left: list[Any], right: list[Any]) -> None:
    result = diff_documents(_doc(left), _doc(right))
    paths = [c.path for c in result.changes]
    assert len(paths) == len(set(paths)), paths
    back = [c.path for c in diff_documents(_doc(right), _doc(left)).changes]
    assert len(back) == len(set(back)), back
    text = render(result, "text").splitlines()
    assert len(text) == len(set(text))


# --- pointers and values --------------------------------------------------------------------------------


def test_keys_with_slash_and_tilde_are_escaped_in_pointers_and_selected_by_them(
    run_cli: RunCli, tmp_path: Path
) -> None:
    left = {"code": 1, "message": {"a/b~c": 1, "~1": 2, "/": 3}}
    right = {"code": 1, "message": {"a/b~c": 4, "~1": 5, "/": 6}}
    assert sorted(_changes(left, right)) == [
        ("changed", 'message["/"]', "/message/~1", "/message/~1"),
        ("changed", 'message["a/b~c"]', "/message/a~1b~0c", "/message/a~1b~0c"),
        ("changed", 'message["~1"]', "/message/~01", "/message/~01"),
    ]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(left)), b.write_text(json.dumps(right))
    args = ["diff", "-f", "json", "--ignore", "/message/a~1b~0c", "--ignore", "/message/~01", str(a), str(b)]
    result = run_cli(args, 1)
    assert [c["left_pointer"] for c in json.loads(result.stdout)["changes"]] == ["/message/~1"]


def test_a_list_key_with_slash_and_tilde_is_quoted_and_pointed_at_by_index() -> None:
    left = _doc([{"name": "a/b~c", "value": "1"}])
    right = _doc([{"name": "a/b~c", "value": "2"}])
    assert _changes(left, right) == [
        ("changed", f'{ENV}[name="a/b~c"].value', f"{PTR}/0/value", f"{PTR}/0/value")
    ]


def test_an_integer_equals_its_float_unless_exact() -> None:
    left, right = _doc([{"name": "x", "value": 1}]), _doc([{"name": "x", "value": 1.0}])
    assert _changes(left, right) == []
    assert "1 → 1.0" in _texts(left, right, exact=True)["text"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("caf\u00e9", "cafe\u0301"),  # composed and decomposed
        ("a b", "a\u00a0b"),  # a no-break space
        ("ab", "a\u200bb"),  # a zero-width space
        ("\ufeffx", "x"),  # a byte-order mark
        ("\u212b", "\u00c5"),  # the Angstrom sign against the letter
    ],
)
def test_two_values_that_read_alike_are_shown_apart(old: str, new: str) -> None:
    left, right = _doc([{"name": "x", "value": old}]), _doc([{"name": "x", "value": new}])
    texts = _texts(left, right)
    [line] = [line for line in texts["text"].splitlines() if "±" in line]
    shown_old, shown_new = line.split(": ", 1)[1].split(" → ")
    assert shown_old != shown_new, line
    [row] = [row for row in texts["markdown"].splitlines() if row.startswith("| changed |")]
    assert row.count("`") >= 4 and len(set(re.findall(r"`([^`]*)`", row))) >= 2, row
    assert json.loads(texts["json"])["changes"][0]["new"] == new  # (json holds them as they are)


@pytest.mark.parametrize("at", [0, 50, 98, 99, 500, 9_999])
def test_long_strings_that_differ_past_the_cut_are_shown_where_they_differ(at: int) -> None:
    old = "x" * 10_000
    new = old[:at] + "Y" + old[at + 1 :]
    texts = _texts(_doc([{"name": "x", "value": old}]), _doc([{"name": "x", "value": new}]))
    [line] = [line for line in texts["text"].splitlines() if "±" in line]
    shown_old, shown_new = line.split(": ", 1)[1].split(" → ")
    assert shown_old != shown_new and "Y" in shown_new and len(line) < 400, line
    [row] = [row for row in texts["markdown"].splitlines() if "Y" in row]
    assert len(row) < 400


@settings(database=None, derandomize=True, max_examples=200, deadline=None)
@given(st.text(max_size=300), st.text(max_size=300))
def test_any_two_different_strings_are_shown_apart(old: str, new: str) -> None:
    if old == new:
        return
    texts = _texts(_doc([{"name": "x", "value": old}]), _doc([{"name": "x", "value": new}]))
    line = next(line for line in texts["text"].splitlines() if "±" in line)
    shown_old, shown_new = line.split(": ", 1)[1].rsplit(" → ", 1) if line.count(" → ") == 1 else (0, 1)
    assert shown_old != shown_new, line


# --- deterministic bytes ---------------------------------------------------------------------------------


def _shuffled(value: Any, rng: random.Random) -> Any:
    """``value`` with every object's members in another order (lists keep theirs: order is meaning)."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: _shuffled(item, rng) for key, item in items}
    if isinstance(value, list):
        return [_shuffled(item, rng) for item in value]
    return value


@settings(database=None, derandomize=True, max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(["aihc-job-detail", "runai-distributed-workload"]))
def test_shuffled_members_give_the_same_bytes_in_every_format(rng: random.Random, schema: str) -> None:
    files = sorted((CAPTURES / schema).glob("*.json"))
    left, right = load_json(files[0]), load_json(files[-1])
    expected = _texts(left, right)
    assert _texts(_shuffled(left, rng), _shuffled(right, rng)) == expected
    ignored = _texts(left, right, ignore_volatile=True)
    assert _texts(_shuffled(left, rng), _shuffled(right, rng), ignore_volatile=True) == ignored


def test_the_diff_page_documents_what_round_8_changed() -> None:
    page = (REPO / "docs" / "diff.md").read_text(encoding="utf-8")
    for words in ("#left-1", '[name="1"]', "read apart", "where they differ"):
        assert words in page, words


def _alike(text: str, how: str, at: int) -> str:
    """``text`` changed so that it reads as before: decomposed, an invisible character put in, a
    space made a no-break one."""
    import unicodedata

    at = min(at, len(text))
    if how == "nfd":
        return unicodedata.normalize("NFD", text)
    if how == "invisible":
        return text[:at] + "\u200b" + text[at:]
    if how == "bom":
        return "\ufeff" + text
    return text.replace(" ", "\u00a0", 1)


@settings(database=None, derandomize=True, max_examples=300, deadline=None)
@given(
    st.text(alphabet="abc é ñ Å", min_size=1, max_size=300),
    st.sampled_from(["nfd", "invisible", "bom", "nbsp"]),
    st.integers(0, 300),
    st.booleans(),
)
def test_any_value_made_to_read_alike_is_shown_apart_at_any_length_and_depth(
    text: str, how: str, at: int, nested: bool
) -> None:
    from jobschema.diff.render import values_apart

    other = _alike(text, how, at)
    if other == text:
        return
    old, new = ({"k": [text]}, {"k": [other]}) if nested else (text, other)
    for limit in (100, 80, 0):
        shown_old, shown_new = values_apart(old, new, limit)
        assert shown_old != shown_new, (text, other)
        assert not limit or max(len(shown_old), len(shown_new)) <= limit


@settings(database=None, derandomize=True, max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False))
def test_a_history_of_shuffled_members_gives_the_same_bytes_in_every_format(rng: random.Random) -> None:
    from jobschema.diff.history import diff_history

    files = sorted((CAPTURES / "aihc-job-detail").glob("*.json"))[:4]
    snapshots = [(f"h.ndjson:{n}", load_json(path)) for n, path in enumerate(files, 1)]
    shuffled = [(label, _shuffled(document, rng)) for label, document in snapshots]
    for form in ("text", "json", "markdown"):
        assert render(diff_history(shuffled), form) == render(diff_history(snapshots), form)


def test_keyless_sides_in_a_history_and_in_roles_read_apart() -> None:
    """Every pair of a history names its keyless items by side too."""
    from jobschema.diff.history import diff_history

    first = _doc([{"value": "a"}, {"value": "b"}])
    second = _doc([{"value": "c"}, {"value": "d"}])
    result = diff_history([("h:1", first), ("h:2", second), ("h:3", first)])
    for pair in result.pairs:
        paths = [c.path for c in pair.changes]
        assert len(paths) == len(set(paths)) == 4 and any("#left-2" in p for p in paths), paths


KEY_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.text(alphabet='1e.-+ab#,=]"[ \u00e9\u0301\u200b\u00a0nultrsf', max_size=6),
    st.sampled_from(["null", "true", "false", "1", "-1", "1.0", "1e5", "NaN", "Infinity", "A#2", "x#left-1"]),
)


@settings(database=None, derandomize=True, max_examples=600, deadline=None)
@given(KEY_VALUES, KEY_VALUES)
def test_two_keys_that_are_two_items_never_read_alike_in_a_path(a: Any, b: Any) -> None:
    from jobschema.diff.engine import label

    same_key = (type(a) is bool) == (type(b) is bool) and a == b  # (1 and 1.0 are one key)
    if not same_key:
        assert label(a) != label(b), (a, b, label(a))
