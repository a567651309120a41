"""``jobschema diff``, round 6: the same bytes for inputs that mean the same (member order), keyed
lists whose key repeats (matched by key and occurrence), and a report never written into the
history folder it reads."""

from __future__ import annotations

import contextlib
import copy
import json
import random
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.diff import DiffOptions, diff_documents
from tests.conftest import RunCli
from tests.support import CAPTURES, REPO, load_json

RUNAI = CAPTURES / "runai-distributed-workload"
AIHC = CAPTURES / "aihc-job-detail"


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("JOBSCHEMA_MASK_KEY", "jobschema-example")


# ------------------------------------------------------------------ member order is no meaning


def _shuffled(value: Any, rng: random.Random) -> Any:
    """``value`` with the members of every object in another order (lists keep theirs)."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: _shuffled(item, rng) for key, item in items}
    if isinstance(value, list):
        return [_shuffled(item, rng) for item in value]
    return value


def _runai_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two snapshots whose changes carry objects: an env var added and one removed whole, a list of
    objects where there was null, an object where there was a string, a nested object changed."""
    left = load_json(RUNAI / "pytorch-master-differs.json")
    right = copy.deepcopy(left)
    spec = right["spec"]
    spec["environmentVariables"] = [
        *spec.get("environmentVariables", [])[1:],
        {"name": "ZZ_NEW", "value": "1", "exclude": False, "description": {"b": 1, "a": [{"y": 2, "x": 1}]}},
    ]
    spec["ports"] = [{"container": 6006, "serviceType": "ClusterIP", "name": "tb", "exclude": False}]
    spec["args"] = {"zeta": 1, "alpha": {"d": 4, "c": 3}}
    spec["compute"] = {**spec["compute"], "extra": {"q": 1, "p": 2}}
    return left, right


def _aihc_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    left = load_json(AIHC / "multi-pod-pytorch.json")
    right = copy.deepcopy(left)
    pods = right["result"]["podList"]["pods"]
    removed = pods.pop(1)
    pods.append({**removed, "objectMeta": {**removed["objectMeta"], "name": "llama2-7b-sft-worker-9"}})
    pods[0]["restartCount"] = 3
    return left, right


_FORMATS = [["-f", "text"], ["-f", "json"], ["-f", "markdown"], ["-f", "patch"], ["-f", "json", "--stat"]]


def _across_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """A v2 and a v1 answer of one job (no patch, no history: two APIs)."""
    case = REPO / "tests" / "examples" / "diff" / "across-v2-v1-one-real-change"
    return load_json(case / "left.json"), load_json(case / "right.json")


def _outputs(
    run_cli: RunCli, folder: Path, sides: list[Any], roles: bool = False, one_api: bool = True
) -> list[str]:
    """Every format's report of ``sides`` (two snapshots; a history of them; the roles of each)."""
    for number, side in enumerate(sides):
        (folder / f"{number}.json").write_text(json.dumps(side), encoding="utf-8")
    (folder / "h.ndjson").write_text("".join(json.dumps(side) + "\n" for side in sides), encoding="utf-8")
    runs = [[*fmt, "0.json", "1.json"] for fmt in _FORMATS if one_api or "patch" not in fmt]
    if one_api:
        runs += [["--history", "-f", fmt, "h.ndjson"] for fmt in ("text", "json", "markdown")]
    if roles:
        runs += [
            ["--roles", "-f", fmt, name]
            for fmt in ("text", "json", "markdown")
            for name in ("0.json", "1.json")
        ]
    outputs = []
    with contextlib.chdir(folder):  # (the files named alike in every run)
        for args in runs:
            result = run_cli(["diff", *args])
            assert result.exit_code in (0, 1), (args, result.stderr)
            outputs.append(result.stdout)
    return outputs


@settings(database=None, max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["runai", "aihc", "across"]), st.integers(0, 2**32), st.integers(0, 2**32))
def test_member_order_never_changes_a_byte_of_any_format(
    run_cli: RunCli, which: str, left_seed: int, right_seed: int
) -> None:
    """Servers write an object's members in any order: every format, every mode, the same bytes."""
    pairs = {"runai": _runai_pair, "aihc": _aihc_pair, "across": _across_pair}
    left, right = pairs[which]()
    one_api = which != "across"
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        expected = _outputs(run_cli, Path(first), [left, right], roles=True, one_api=one_api)
        shuffled = [_shuffled(left, random.Random(left_seed)), _shuffled(right, random.Random(right_seed))]
        assert _outputs(run_cli, Path(second), shuffled, roles=True, one_api=one_api) == expected


def test_shown_values_have_their_members_sorted_in_the_json_report_and_the_patch(
    run_cli: RunCli, tmp_path: Path
) -> None:
    left, right = _runai_pair()
    (tmp_path / "l.json").write_text(json.dumps(left), encoding="utf-8")
    (tmp_path / "r.json").write_text(json.dumps(right), encoding="utf-8")
    report = json.loads(
        run_cli(["diff", "-f", "json", str(tmp_path / "l.json"), str(tmp_path / "r.json")]).stdout
    )
    args = next(change for change in report["changes"] if change["path"] == "spec.args")
    assert json.dumps(args["new"]) == '{"alpha": {"c": 3, "d": 4}, "zeta": 1}'
    patch = json.loads(
        run_cli(["diff", "-f", "patch", str(tmp_path / "l.json"), str(tmp_path / "r.json")]).stdout
    )
    value = next(op["value"] for op in patch if op["path"] == "/spec/args")
    assert json.dumps(value) == '{"alpha": {"c": 3, "d": 4}, "zeta": 1}'


# ------------------------------------------------------------------ a keyed list whose key repeats


def _env_doc(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    document = load_json(RUNAI / "same-as-worker.json")
    document["spec"]["environmentVariables"] = [{"name": name, "value": value} for name, value in pairs]
    return document


def _env_changes(left: list[tuple[str, str]], right: list[tuple[str, str]], **options: Any) -> list[Any]:
    result = diff_documents(_env_doc(left), _env_doc(right), options=DiffOptions(**options))
    return [(c.op, c.path, c.left_pointer, c.right_pointer, c.old, c.new) for c in result.changes]


ENV = "spec.environmentVariables"
PTR = "/spec/environmentVariables"


def test_a_reorder_of_fifteen_items_with_a_repeated_key_is_no_change() -> None:
    """Two env vars of one name (Kubernetes allows it) no longer make the list positional: reordered,
    it is the same list (by position, this reorder reported 28 changes)."""
    items = [(f"VAR_{n}", str(n)) for n in range(13)] + [("DUP", "first"), ("DUP", "second")]
    shuffled = items[::-1]
    assert _env_changes(items, shuffled) == []


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        pytest.param(
            [("A", "1"), ("A", "2")],
            [("A", "1"), ("A", "3")],
            [("changed", f"{ENV}[name=A#2].value", f"{PTR}/1/value", f"{PTR}/1/value", "2", "3")],
            id="second-of-two-changed",
        ),
        pytest.param(
            [("A", "1"), ("A", "2")],
            [("A", "3"), ("A", "1")],
            [("changed", f"{ENV}[name=A#1].value", f"{PTR}/1/value", f"{PTR}/0/value", "2", "3")],
            id="changed-and-moved",  # (the second A on the left, the first on the right: #1)
        ),
        pytest.param(
            [("A", "1")],
            [("A", "1"), ("A", "2")],
            [("added", f"{ENV}[name=A#2]", None, f"{PTR}/1", None, {"name": "A", "value": "2"})],
            id="a-second-added",
        ),
        pytest.param(
            [("A", "1"), ("B", "x"), ("A", "2")],
            [("B", "x"), ("A", "2")],
            [("removed", f"{ENV}[name=A#1]", f"{PTR}/0", None, {"name": "A", "value": "1"}, None)],
            id="the-first-removed",
        ),
        pytest.param(
            [("A", "1"), ("B", "x"), ("A", "2")],
            [("A", "2"), ("B", "y"), ("A", "1")],
            [("changed", f"{ENV}[name=B].value", f"{PTR}/1/value", f"{PTR}/1/value", "x", "y")],
            id="a-key-that-does-not-repeat-reads-as-before",
        ),
    ],
)
def test_items_of_a_repeated_key_are_matched_by_value_then_by_occurrence(
    left: list[tuple[str, str]], right: list[tuple[str, str]], expected: list[Any]
) -> None:
    assert _env_changes(left, right) == expected


def test_the_occurrence_reads_in_the_text_report_and_patterns_address_it_by_pointer(
    run_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "l.json").write_text(json.dumps(_env_doc([("A", "1"), ("A", "2")])), encoding="utf-8")
    (tmp_path / "r.json").write_text(json.dumps(_env_doc([("A", "1"), ("A", "3")])), encoding="utf-8")
    files = [str(tmp_path / "l.json"), str(tmp_path / "r.json")]
    assert run_cli(["diff", *files], code=1).stdout.splitlines() == [
        "spec",
        f'  ± {ENV}[name=A#2].value: "2" → "3"',
        "different (runai-distributed-workload, snapshot): 1 changed, 0 added, 0 removed",
    ]
    same = "same (runai-distributed-workload, snapshot)\n"
    assert run_cli(["diff", "--ignore", f"{PTR}/1", *files], code=0).stdout == same
    assert run_cli(["diff", "--only", f"{PTR}/0", *files], code=0).stdout == same
    assert run_cli(["diff", "--only", f"{PTR}/1/value", *files], code=1).stdout.splitlines()[1] == (
        f'  ± {ENV}[name=A#2].value: "2" → "3"'
    )


def test_a_value_holding_the_occurrence_mark_is_quoted() -> None:
    """``#`` is not plain: a name ``A#2`` reads ``"A#2"``, apart from the second ``A``."""
    assert _env_changes([("A#2", "1")], [("A#2", "2")]) == [
        ("changed", f'{ENV}[name="A#2"].value', f"{PTR}/0/value", f"{PTR}/0/value", "1", "2")
    ]


_NAMES = st.sampled_from(["A", "B", "C"])
_VALUES = st.sampled_from(["1", "2", "3"])


@settings(database=None, max_examples=200)
@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=8), st.randoms(use_true_random=False))
def test_a_pure_reorder_of_a_keyed_list_with_repeats_is_no_change(
    items: list[tuple[str, str]], rng: random.Random
) -> None:
    shuffled = list(items)
    rng.shuffle(shuffled)
    assert _env_changes(items, shuffled) == []


@settings(database=None, max_examples=200)
@given(
    st.lists(st.tuples(_NAMES, _VALUES), min_size=1, max_size=8),
    st.randoms(use_true_random=False),
    st.integers(0, 7),
    st.sampled_from(["4", "5"]),
)
def test_one_planted_value_change_in_a_reordered_list_is_the_only_change(
    items: list[tuple[str, str]], rng: random.Random, where: int, value: str
) -> None:
    shuffled = list(items)
    rng.shuffle(shuffled)
    index = where % len(shuffled)
    name, old = shuffled[index]
    shuffled[index] = (name, value)
    changes = _env_changes(items, shuffled)
    assert len(changes) == 1, changes
    op, path, _, right_pointer, before, after = changes[0]
    repeats = [n for n, _ in items].count(name) > 1
    occurrence = r"#[1-9]\d*" if repeats else ""
    assert (op, before, after) == ("changed", old, value)
    assert re.fullmatch(rf"{re.escape(ENV)}\[name={name}{occurrence}\]\.value", path), path
    assert right_pointer is not None
    assert shuffled[int(right_pointer.split("/")[3])] == (name, value)


def test_a_repeated_rank_is_still_a_per_replica_difference_in_roles(run_cli: RunCli, tmp_path: Path) -> None:
    """``envs[name=RANK#2]`` is folded with ``envs[name=RANK]``, as every replica's rank is."""
    document = load_json(AIHC / "multi-pod-pytorch.json")
    for number, pod in enumerate(document["result"]["podList"]["pods"]):
        pod["envs"] = [*pod["envs"], {"name": "RANK", "value": str(100 + number)}]
    (tmp_path / "job.json").write_text(json.dumps(document), encoding="utf-8")
    lines = run_cli(["diff", "--roles", str(tmp_path / "job.json")], code=0).stdout.splitlines()
    folded = [line for line in lines if line.startswith("  (expected")]
    assert len(folded) == 4
    assert all("envs[name=RANK] (2)" in line for line in folded[:3]), folded


# ------------------------------------------------------------------ -o inside the history folder read


def _history_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "job"
    (folder / "later").mkdir(parents=True)
    for number, phase in ((1, "Pending"), (2, "Running")):
        document = load_json(RUNAI / "seed.json")
        document["actualPhase"] = phase
        (folder / f"snap-{number}.json").write_text(json.dumps(document), encoding="utf-8")
    return folder


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
@pytest.mark.parametrize("name", ["report.json", "report.md", "later/report.json", "new/report.ndjson"])
@pytest.mark.parametrize("spelled", ["as-given", "relative", "dotted", "symlinked"])
def test_a_report_is_never_written_into_the_history_folder_it_reads(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, name: str, spelled: str
) -> None:
    """The next run would read the report as a snapshot: one line, exit 2, nothing written."""
    folder = _history_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "link").symlink_to(folder)
    given = {
        "as-given": str(folder),
        "relative": "job",
        "dotted": "job/later/..",
        "symlinked": "link",
    }[spelled]
    output = str(tmp_path / "link" / name) if spelled == "symlinked" else f"{given}/{name}"
    result = run_cli(["diff", "--history", "-f", fmt, given, "-o", output], code=2)
    assert result.stdout == ""
    assert result.stderr == (
        f"Error: {output}: -o/--output is inside the folder --history reads ({given}), whose next run "
        "would read the report as a snapshot; write it outside the folder\n"
    )
    assert sorted(p.name for p in folder.rglob("*") if p.is_file()) == ["snap-1.json", "snap-2.json"]


def test_a_link_in_the_history_folder_to_a_file_elsewhere_is_refused(run_cli: RunCli, tmp_path: Path) -> None:
    """The next run reads the link (and the report through it): refused as a file in the folder is."""
    folder = _history_folder(tmp_path)
    (folder / "report.json").symlink_to(tmp_path / "elsewhere.json")
    output = str(folder / "report.json")
    result = run_cli(["diff", "--history", str(folder), "-o", output], code=2)
    assert result.stderr.startswith(f"Error: {output}: -o/--output is inside the folder --history reads")
    assert not (tmp_path / "elsewhere.json").exists()


def test_a_report_beside_the_history_folder_is_written(run_cli: RunCli, tmp_path: Path) -> None:
    folder = _history_folder(tmp_path)
    for output in (tmp_path / "report.json", tmp_path / "job-report" / "r.json"):
        output.parent.mkdir(exist_ok=True)
        run_cli(["diff", "--history", "-f", "json", str(folder), "-o", str(output)], code=1)
        assert json.loads(output.read_text(encoding="utf-8"))["status"] == "different"
    history = tmp_path / "h.ndjson"
    history.write_text("".join(p.read_text(encoding="utf-8") + "\n" for p in sorted(folder.glob("*.json"))))
    run_cli(["diff", "--history", str(history), "-o", str(folder / "from-a-file.txt")], code=1)


def test_a_history_folder_named_after_a_secret_is_masked_in_the_refusal(
    run_cli: RunCli, tmp_path: Path
) -> None:
    folder = _history_folder(tmp_path).rename(tmp_path / "password=Hunter2SecretName")
    result = run_cli(["diff", "--history", str(folder), "-o", str(folder / "r.json")], code=2)
    assert "Hunter2SecretName" not in result.stderr
    assert result.stderr.count("password=<secret:") == 2 and result.stderr.count("\n") == 1


def test_a_repeated_key_that_is_a_secret_is_masked_before_its_occurrence() -> None:
    token = "ghp_aB3dEPq9ZxfGhIjKlMnOpQrStUvWxYz01234"
    changes = _env_changes([(token, "1"), (token, "2")], [(token, "1"), (token, "3")])
    assert len(changes) == 1
    path = changes[0][1]
    assert token not in path
    assert re.fullmatch(rf'{re.escape(ENV)}\[name="<secret:[0-9a-f]{{8}}>"#2\]\.value', path), path


_ITEMS = st.lists(st.tuples(_NAMES, _VALUES), max_size=8)


@settings(database=None, max_examples=200)
@given(_ITEMS, _ITEMS)
def test_a_list_with_repeats_diffs_the_other_way_round_as_the_mirror_and_names_each_change_once(
    left: list[tuple[str, str]], right: list[tuple[str, str]]
) -> None:
    """The diff's mirror law holds for repeated keys (RIGHT against LEFT: the same paths, the ops and
    pointers swapped), and no two changes of the list share an op and a path."""
    swap = {"added": "removed", "removed": "added", "changed": "changed"}
    forward, backward = _env_changes(left, right), _env_changes(right, left)
    mirrored = sorted((swap[op], path, rp, lp, new, old) for op, path, lp, rp, old, new in forward)
    assert mirrored == sorted(backward)
    named = [(op, path) for op, path, *_ in forward]
    assert len(set(named)) == len(named), named


def _sorted_recursively(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted_recursively(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_recursively(item) for item in value]
    return value


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=200, database=None, deadline=None)
@given(_JSON)
def test_sorted_members_is_the_recursive_sort_keeping_member_order_apart(value: Any) -> None:
    from jobschema.diff.result import sorted_members

    got = sorted_members(value)
    assert got == _sorted_recursively(value)
    assert json.dumps(got) == json.dumps(_sorted_recursively(value))  # (the same member order, too)


def test_sorted_members_reads_any_depth() -> None:
    """The shown values of a diff are sorted without recursion: a value 5,000 levels deep (the diff of
    a 900-deep capture was 'nested too deeply to compare' once every shown value was sorted)."""
    from jobschema.diff.result import sorted_members

    deep: Any = {"b": 1, "a": 2}
    for _ in range(5000):
        deep = [{"z": deep, "y": 0}]
    got = sorted_members(deep)
    for _ in range(5000):
        assert list(got[0]) == ["y", "z"]
        got = got[0]["z"]
    assert list(got) == ["a", "b"]
