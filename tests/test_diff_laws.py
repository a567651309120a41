"""Laws of ``jobschema diff``, checked on real captures with random edits (hypothesis).

The captures are the Run:ai workloads and AIHC job details of ``schemas/examples``. The places the
edits need (keyed lists, sets, volatile fields, embedded JSON) are read from the schemas' own
``x-jobschema-*`` annotations here, independently of :mod:`jobschema.diff.plan`, so a place the diff
plan missed would break a law instead of hiding from it.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from functools import cache
from typing import Any, NamedTuple

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jobschema.diff import Change, DiffOptions, diff_documents
from jobschema.diff.history import diff_history, job_key
from jobschema.diff.render import render_json
from tests.support import CAPTURES, files_under, load_json, schema_document

SCHEMAS = ("runai-distributed-workload", "aihc-job-detail")
EMBEDDED = "x-jobschema-embedded-schema"
LIST_KEY = "x-jobschema-list-key"
LIST_SET = "x-jobschema-list-set"
VOLATILE = "x-jobschema-volatile"
ANNOTATIONS = (LIST_KEY, LIST_SET, VOLATILE, EMBEDDED, "x-jobschema-quantity")
ENV_LISTS = ("environmentVariables", "envs")
EMBEDDED_TEXT = "aijob.cce.baidubce.com/raw-request"
ANY = "*"
MAX_DEPTH = 48

LAW = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: A seeded generator for shuffles (``st.randoms()`` would make every shuffle step a hypothesis draw: slow).
RANDOM = st.integers(min_value=0, max_value=2**32 - 1).map(random.Random)

Path = tuple[str | int, ...]
Places = dict[tuple[str, ...], dict[str, Any]]


# ------------------------------------------------------------------ annotations, read from the schemas


@cache
def places_of(name: str) -> Places:
    """``{path pattern: annotations}``: every annotated place of schema ``name`` (``*``: any key or item)."""
    root = schema_document(name)
    found: dict[tuple[str, ...], dict[str, Any]] = {}

    def deref(ref: str) -> dict[str, Any]:
        node: Any = root
        for token in ref.removeprefix("#/").split("/"):
            node = node[token.replace("~1", "/").replace("~0", "~")]
        return node

    def visit(node: Any, path: tuple[str, ...], depth: int) -> None:
        if not isinstance(node, dict) or depth > MAX_DEPTH:
            return
        notes = {key: node[key] for key in ANNOTATIONS if key in node}
        if notes:
            found.setdefault(path, {}).update(notes)
        if isinstance(node.get("$ref"), str):
            visit(deref(node["$ref"]), path, depth + 1)
        for keyword in ("allOf", "anyOf", "oneOf"):
            for sub in node.get(keyword) or []:
                visit(sub, path, depth + 1)
        for key, sub in (node.get("properties") or {}).items():
            visit(sub, (*path, key), depth + 1)
        for keyword in ("items", "additionalProperties"):
            if isinstance(node.get(keyword), dict):
                visit(node[keyword], (*path, ANY), depth + 1)

    visit(root, (), 0)
    return found


def notes_at(schema: str, path: Path) -> dict[str, Any]:
    """The annotations in force at a concrete path of a ``schema`` document."""
    return _notes(schema, tuple(ANY if isinstance(t, int) else t for t in path))


@cache
def _notes(schema: str, path: tuple[str, ...]) -> dict[str, Any]:
    notes: dict[str, Any] = {}
    for pattern, found in places_of(schema).items():
        if len(pattern) == len(path) and all(p in (ANY, t) for p, t in zip(pattern, path, strict=True)):
            notes.update(found)
    return notes


def list_key(notes: dict[str, Any]) -> tuple[str, ...]:
    key = notes.get(LIST_KEY)
    return (key,) if isinstance(key, str) else tuple(key or ())


def key_of(item: Any, key: tuple[str, ...]) -> tuple[Any, ...] | None:
    """The identity of a keyed-list item, as schemas/README.md defines it (None: no usable key)."""
    if not isinstance(item, dict):
        return None
    values = []
    for part in key:
        node: Any = item
        for token in part.lstrip("/").split("/") if part.startswith("/") else [part]:
            node = node.get(token) if isinstance(node, dict) else None
        if node is None or isinstance(node, dict | list):
            return None
        values.append(node)
    return tuple(values)


def keyed(items: list[Any], key: tuple[str, ...]) -> bool:
    """True when every item has a key and no two share one (so the list is matched by key)."""
    keys = [key_of(item, key) for item in items]
    return None not in keys and len(set(keys)) == len(keys)


def key_fields(key: tuple[str, ...]) -> set[tuple[str, ...]]:
    """The paths inside an item that make up its key."""
    return {tuple(part.lstrip("/").split("/")) if part.startswith("/") else (part,) for part in key}


def pointer(path: Path) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)


# ------------------------------------------------------------------ walking a capture


def nodes(
    value: Any, schema: str, path: Path = (), inherited: bool = False
) -> Iterator[tuple[Path, Any, dict[str, Any], bool]]:
    """``(path, value, annotations, volatile)`` of every node, embedded JSON text not entered."""
    notes = notes_at(schema, path)
    volatile = inherited or notes.get(VOLATILE) is True
    yield path, value, notes, volatile
    if isinstance(value, dict):
        for key, item in value.items():
            yield from nodes(item, schema, (*path, key), volatile)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from nodes(item, schema, (*path, index), volatile)


def leaves(doc: Any, schema: str, volatile: bool) -> list[Path]:
    """Scalar places whose edit is exactly one change: no list-key field, no set item, no embedded text."""
    protected: set[Path] = set()
    found = []
    for path, value, notes, is_volatile in nodes(doc, schema):
        if isinstance(value, list) and list_key(notes):
            for index in range(len(value)):
                protected.update((*path, index, *field) for field in key_fields(list_key(notes)))
        if isinstance(value, list) and notes.get(LIST_SET):
            protected.update((*path, index) for index in range(len(value)))
        if isinstance(value, dict | list) or notes.get(EMBEDDED) or path in protected:
            continue
        if is_volatile == volatile:
            found.append(path)
    return found


def env_lists(doc: Any, schema: str) -> list[Path]:
    """The env-var lists matched by name (Run:ai ``environmentVariables``, AIHC job and pod ``envs``)."""
    return [
        path
        for path, value, notes, volatile in nodes(doc, schema)
        if path
        and path[-1] in ENV_LISTS
        and isinstance(value, list)
        and list_key(notes) == ("name",)
        and keyed(value, ("name",))
        and not volatile
    ]


def get(doc: Any, path: Path) -> Any:
    for token in path:
        doc = doc[token]
    return doc


def put(doc: Any, path: Path, value: Any) -> None:
    get(doc, path[:-1])[path[-1]] = value


def other(value: Any) -> Any:
    """A value that differs from ``value`` by meaning (and as a quantity, and as text)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "~edited"
    return "edited"


def shuffled(value: Any, schema: str, rnd: random.Random, path: Path = ()) -> Any:
    """``value`` with every keyed list, set and object reordered, sets given duplicates, embedded JSON
    re-serialised (its own lists shuffled too): the same document by meaning."""
    notes = notes_at(schema, path)
    if isinstance(value, str) and isinstance(notes.get(EMBEDDED), str):
        try:
            inner = json.loads(value)
        except json.JSONDecodeError:
            return value
        inner = shuffled(inner, notes[EMBEDDED], rnd)
        style = rnd.choice([{"separators": (",", ":")}, {"indent": 2}, {"separators": (", ", ": ")}])
        return json.dumps(inner, ensure_ascii=rnd.random() < 0.5, **style)
    if isinstance(value, dict):
        members = [(key, shuffled(item, schema, rnd, (*path, key))) for key, item in value.items()]
        rnd.shuffle(members)
        return dict(members)
    if isinstance(value, list):
        items = [shuffled(item, schema, rnd, (*path, index)) for index, item in enumerate(value)]
        key = list_key(notes)
        if key and keyed(value, key):
            rnd.shuffle(items)
        elif notes.get(LIST_SET) and items and all(not isinstance(i, dict | list) for i in items):
            items.append(rnd.choice(items))
            rnd.shuffle(items)
        return items
    return value


# ------------------------------------------------------------------ strategies


@cache
def captures() -> tuple[tuple[str, str], ...]:
    """``(schema, json text)`` of every capture the laws run on."""
    return tuple(
        (name, path.read_text(encoding="utf-8")) for name in SCHEMAS for path in files_under(CAPTURES / name)
    )


@st.composite
def capture(draw: st.DrawFn, embedded: bool = False) -> tuple[str, Any]:
    """A capture (``embedded``: one holding embedded JSON text, the AIHC raw-request annotation)."""
    pool = [c for c in captures() if not embedded or EMBEDDED_TEXT in c[1]]
    name, text = draw(st.sampled_from(pool))
    return name, json.loads(text)


class Edit(NamedTuple):
    """A capture, a copy with scalars changed at distinct leaves, and those leaves."""

    name: str
    doc: Any
    edited: Any
    chosen: list[Path]
    volatile: list[Path]


@st.composite
def scalar_edits(draw: st.DrawFn, most: int = 4, volatile: int = 0) -> Edit:
    """1..``most`` edits of non-volatile scalars, and 0..``volatile`` of volatile ones."""
    name, doc = draw(capture())
    pool = leaves(doc, name, volatile=False)
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=min(most, len(pool)), unique=True))
    noisy = leaves(doc, name, volatile=True) if volatile else []
    noise = (
        draw(st.lists(st.sampled_from(noisy), max_size=min(volatile, len(noisy)), unique=True))
        if noisy
        else []
    )
    edited = copy.deepcopy(doc)
    for path in (*chosen, *noise):
        put(edited, path, other(get(edited, path)))
    return Edit(name, doc, edited, chosen, noise)


def summary(changes: tuple[Change, ...]) -> list[tuple[str, str, str | None, str | None, str, str]]:
    return sorted(
        (c.op, c.path, c.left_pointer, c.right_pointer, json.dumps(c.old), json.dumps(c.new)) for c in changes
    )


SWAP = {"added": "removed", "removed": "added", "changed": "changed"}


def mirrored(changes: tuple[Change, ...]) -> list[tuple[str, str, str | None, str | None, str, str]]:
    return sorted(
        (SWAP[c.op], c.path, c.right_pointer, c.left_pointer, json.dumps(c.new), json.dumps(c.old))
        for c in changes
    )


# ------------------------------------------------------------------ the plan the laws rely on


def test_the_annotations_read_here_cover_the_places_the_laws_need() -> None:
    runai, aihc = places_of("runai-distributed-workload"), places_of("aihc-job-detail")
    assert list_key(runai[("spec", "environmentVariables")]) == ("name",)
    assert list_key(runai[("spec", "tolerations")]) == ("key", "effect")
    assert runai[("spec", "security", "capabilities")][LIST_SET] is True
    assert list_key(aihc[("result", "podList", "pods")]) == ("/objectMeta/name",)
    assert aihc[("result", "podList", "pods", ANY, "PodIP")][VOLATILE] is True
    assert (
        aihc[
            (
                "result",
                "podList",
                "pods",
                ANY,
                "objectMeta",
                "annotations",
                "aijob.cce.baidubce.com/raw-request",
            )
        ][EMBEDDED]
        == "aihc-raw-request"
    )
    assert list_key(places_of("aihc-raw-request")[("datasources",)]) == ("mountPath",)
    assert {name for name, _ in captures()} == set(SCHEMAS)
    assert len(captures()) >= 8


# ------------------------------------------------------------------ laws


@LAW
@given(capture())
def test_a_document_is_the_same_as_itself(case: tuple[str, Any]) -> None:
    _, doc = case
    assert diff_documents(doc, doc).same
    assert diff_documents(doc, copy.deepcopy(doc), options=DiffOptions(exact=True)).same


@LAW
@given(capture(), RANDOM)
def test_shuffling_keyed_lists_sets_and_objects_changes_nothing(
    case: tuple[str, Any], rnd: random.Random
) -> None:
    name, doc = case
    other_doc = shuffled(doc, name, rnd)
    assert diff_documents(doc, other_doc).changes == ()
    assert diff_documents(other_doc, doc, options=DiffOptions(exact=True)).changes == ()


@LAW
@given(capture(), RANDOM)
def test_an_int_and_an_equal_float_are_the_same_unless_exact(
    case: tuple[str, Any], rnd: random.Random
) -> None:
    name, doc = case
    ints = [path for path, value, _, _ in nodes(doc, name) if type(value) is int and abs(value) < 2**53]
    assert ints
    chosen = rnd.sample(ints, k=rnd.randint(1, min(len(ints), 6)))
    floated = copy.deepcopy(doc)
    for path in chosen:
        put(floated, path, float(get(floated, path)))
    assert diff_documents(doc, floated).same
    exact = diff_documents(doc, floated, options=DiffOptions(exact=True))
    # (a floated list key is another key under --exact: its item removed and added, at the item)
    places = {pointer(path[:end]) for path in chosen for end in range(len(path) + 1)}
    assert {c.left_pointer or c.right_pointer for c in exact.changes} <= places
    assert {c.left_pointer for c in exact.changes if c.op == "changed"} <= {pointer(path) for path in chosen}


@LAW
@given(scalar_edits())
def test_k_scalar_edits_are_k_changes(case: Edit) -> None:
    doc, edited, chosen = case.doc, case.edited, case.chosen
    result = diff_documents(doc, edited)
    assert len(result.changes) == len(chosen)
    assert {c.op for c in result.changes} == {"changed"}
    assert {c.left_pointer for c in result.changes} == {pointer(path) for path in chosen}
    assert all(c.left_pointer == c.right_pointer for c in result.changes)
    assert not any(c.volatile for c in result.changes)
    assert diff_documents(doc, edited, options=DiffOptions(ignore_volatile=True)).changes == result.changes


@LAW
@given(scalar_edits(), RANDOM)
def test_edits_survive_shuffling(case: Edit, rnd: random.Random) -> None:
    name, doc, edited = case.name, case.doc, case.edited
    plain = diff_documents(doc, edited)
    reordered = diff_documents(shuffled(doc, name, rnd), shuffled(edited, name, rnd))
    assert [(c.op, c.path, c.old, c.new) for c in reordered.changes] == [
        (c.op, c.path, c.old, c.new) for c in plain.changes
    ]


@LAW
@given(capture(), RANDOM)
def test_added_and_removed_env_vars_are_one_change_each(case: tuple[str, Any], rnd: random.Random) -> None:
    name, doc = case
    lists = env_lists(doc, name)
    edited = copy.deepcopy(doc)
    expected: set[tuple[str, str | None, str | None, str]] = set()
    for number, path in enumerate(rnd.sample(lists, k=min(len(lists), rnd.randint(1, 3)))):
        items = get(edited, path)
        if items and rnd.random() < 0.5:
            index = rnd.randrange(len(items))
            gone = items.pop(index)
            expected.add(("removed", pointer((*path, index)), None, gone["name"]))
        else:
            index = rnd.randint(0, len(items))
            items.insert(index, {"name": f"ADDED_VAR_{number}", "value": "1", "exclude": False})
            expected.add(("added", None, pointer((*path, index)), f"ADDED_VAR_{number}"))
    result = diff_documents(doc, edited)
    found = {
        (c.op, c.left_pointer, c.right_pointer, (c.old if c.op == "removed" else c.new)["name"])
        for c in result.changes
    }
    assert found == expected
    assert len(result.changes) == len(expected)
    for change in result.changes:
        assert change.path.endswith(f"[name={(change.old or change.new)['name']}]")


@LAW
@given(scalar_edits(volatile=3), RANDOM)
def test_diff_mirrors(case: Edit, rnd: random.Random) -> None:
    edited = shuffled(case.edited, case.name, rnd)
    for options in (DiffOptions(), DiffOptions(exact=True), DiffOptions(ignore_volatile=True)):
        forward = diff_documents(case.doc, edited, options=options)
        backward = diff_documents(edited, case.doc, options=options)
        assert mirrored(forward.changes) == summary(backward.changes)
        assert [c.path for c in forward.changes] == sorted(c.path for c in forward.changes)


@LAW
@given(scalar_edits(volatile=3))
def test_ignore_volatile_drops_exactly_the_volatile_changes(case: Edit) -> None:
    full = diff_documents(case.doc, case.edited)
    quiet = diff_documents(case.doc, case.edited, options=DiffOptions(ignore_volatile=True))
    assert quiet.changes == tuple(c for c in full.changes if not c.volatile)
    assert {c.left_pointer for c in full.changes if c.volatile} == {pointer(p) for p in case.volatile}
    assert {c.left_pointer for c in quiet.changes} == {pointer(p) for p in case.chosen}


@LAW
@given(scalar_edits(most=6), st.data())
def test_only_and_ignore_split_the_changes(case: Edit, data: st.DataObject) -> None:
    doc, edited, chosen = case.doc, case.edited, case.chosen
    path = data.draw(st.sampled_from(chosen))
    cut = data.draw(st.integers(min_value=1, max_value=len(path)))
    tokens = [str(t) for t in path[:cut]]
    wild = data.draw(st.sets(st.integers(min_value=0, max_value=len(tokens) - 1), max_size=2))
    pattern = "/" + "/".join(
        "*" if i in wild else t.replace("~", "~0").replace("/", "~1") for i, t in enumerate(tokens)
    )
    everything = diff_documents(doc, edited).changes
    only = diff_documents(doc, edited, options=DiffOptions(only=(pattern,))).changes
    ignored = diff_documents(doc, edited, options=DiffOptions(ignore=(pattern,))).changes
    assert set(only) | set(ignored) == set(everything)
    assert not set(only) & set(ignored)
    assert any(c.left_pointer == pointer(path) for c in only)


@LAW
@given(scalar_edits(), RANDOM)
def test_results_are_deterministic(case: Edit, rnd: random.Random) -> None:
    name, doc, edited = case.name, case.doc, case.edited
    edited = shuffled(edited, name, rnd)
    first = diff_documents(doc, edited)
    second = diff_documents(copy.deepcopy(doc), copy.deepcopy(edited))
    assert [c.as_dict() for c in first.changes] == [c.as_dict() for c in second.changes]
    assert render_json(first) == render_json(second)


@LAW
@given(scalar_edits())
def test_a_two_step_history_is_a_snapshot_diff(case: Edit) -> None:
    doc, edited = case.doc, case.edited
    assume(job_key(doc) == job_key(edited))  # an edited job id makes it a history of two jobs
    history = diff_history([("a", doc), ("b", edited)])
    assert history.changes == diff_documents(doc, edited).changes
    assert [(p.left, p.right, p.changes) for p in history.pairs] == [("a", "b", history.changes)]


@LAW
@given(scalar_edits(), scalar_edits(), RANDOM)
def test_a_history_of_two_jobs_is_each_jobs_history(first: Edit, second: Edit, rnd: random.Random) -> None:
    assume(job_key(first.doc) == job_key(first.edited) and job_key(second.doc) == job_key(second.edited))
    assume(
        None not in (job_key(first.doc), job_key(second.doc)) and job_key(first.doc) != job_key(second.doc)
    )
    a = [("a1", first.doc), ("a2", first.edited)]
    b = [("b1", second.doc), ("b2", second.edited)]
    order = ["a", "a", "b", "b"]
    rnd.shuffle(order)
    queues = {"a": list(a), "b": list(b)}
    interleaved = [queues[name].pop(0) for name in order]
    together = diff_history(interleaved)
    apart = [diff_history(a), diff_history(b)]
    assert {p.job for p in together.pairs} == {job_key(first.doc), job_key(second.doc)}
    for alone, job in zip(apart, (job_key(first.doc), job_key(second.doc)), strict=True):
        mine = [(p.left, p.right, p.changes) for p in together.pairs if p.job == job]
        assert mine == [(p.left, p.right, p.changes) for p in alone.pairs]
    assert summary(together.changes) == summary((*apart[0].changes, *apart[1].changes))


@LAW
@given(capture(embedded=True), st.data())
def test_k_edits_inside_embedded_json_are_k_changes_pointing_into_it(
    case: tuple[str, Any], data: st.DataObject
) -> None:
    name, doc = case
    texts = [
        (path, notes[EMBEDDED])
        for path, value, notes, _ in nodes(doc, name)
        if isinstance(notes.get(EMBEDDED), str) and isinstance(value, str)
    ]
    outer, inner_schema = data.draw(st.sampled_from(texts))
    inner = json.loads(get(doc, outer))
    pool = leaves(inner, inner_schema, volatile=False)
    chosen = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=min(3, len(pool)), unique=True))
    for path in chosen:
        put(inner, path, other(get(inner, path)))
    edited = copy.deepcopy(doc)
    put(edited, outer, json.dumps(inner))
    result = diff_documents(doc, edited)
    assert {c.left_pointer for c in result.changes} == {pointer(outer) + pointer(path) for path in chosen}
    assert all(c.op == "changed" for c in result.changes)


# ------------------------------------------------------------------ masking is symmetric


def test_masking_mirrors_when_a_positional_item_is_renamed() -> None:
    base = load_json(CAPTURES / "runai-distributed-workload" / "same-as-worker.json")
    a = copy.deepcopy(base)
    a["spec"]["environmentVariables"] = [
        {"name": "PASSWORD", "value": "p1"},
        {"name": "PASSWORD", "value": "x"},
    ]
    b = copy.deepcopy(base)
    b["spec"]["environmentVariables"] = [
        {"name": "PLAIN", "value": "visible"},
        {"name": "PASSWORD", "value": "x"},
    ]
    assert mirrored(diff_documents(a, b).changes) == summary(diff_documents(b, a).changes)
