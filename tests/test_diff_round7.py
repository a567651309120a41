"""``jobschema diff``, round 7: list items without their key, matched by content where that is
unambiguous (a dyff or oasdiff user's expectation: a reorder is no change, one keyless item edited is
one change, never a cascade of positional ones); a history line that is an error answer, named and
passed over; one job's history across AIHC v1 and v2."""

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

from jobschema.diff import DiffInputError, DiffOptions, diff_documents
from jobschema.diff.engine import mirrored as mirrored_path
from jobschema.diff.history import diff_history, read_history
from tests.conftest import RunCli
from tests.support import CAPTURES, REPO, load_json
from tests.support import workload_listing as _doc

RUNAI = CAPTURES / "runai-distributed-workload"
AIHC = CAPTURES / "aihc-job-detail"
V2 = CAPTURES / "aihc-v2-job"
ENV = "spec.environmentVariables"
PTR = "/spec/environmentVariables"
TOL = "spec.tolerations"
#: An item's member left out (not null): ``("A", MISSING)`` is ``{"value": "A"}``.
MISSING = object()


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("JOBSCHEMA_MASK_KEY", "jobschema-example")


def _env(name: Any, value: str) -> Any:
    return {"value": value} if name is MISSING else {"name": name, "value": value}


def _changes(left: Any, right: Any, **options: Any) -> list[tuple[Any, ...]]:
    result = diff_documents(left, right, options=DiffOptions(**options))
    return [(c.op, c.path, c.left_pointer, c.right_pointer, c.old, c.new) for c in result.changes]


def _toleration(key: str | None, effect: str | None, operator: str = "Exists", value: Any = None) -> Any:
    return {"name": None, "key": key, "operator": operator, "value": value, "effect": effect, "seconds": None}


# ------------------------------------------------------------------ keyless items match by content


def test_a_reordered_list_with_an_item_whose_key_is_null_is_no_change() -> None:
    items = [_env("A", "1"), _env(None, "orphan"), _env("B", "2")]
    assert _changes(_doc(items), _doc(items[::-1])) == []


def test_a_reordered_list_with_an_item_whose_key_is_missing_is_no_change() -> None:
    items = [_env("A", "1"), _env(MISSING, "orphan"), _env("B", "2")]
    assert _changes(_doc(items), _doc([items[2], items[0], items[1]])) == []


def test_a_keyed_change_beside_a_keyless_item_is_reported_under_its_key_only() -> None:
    left = [_env("A", "1"), _env(None, "orphan"), _env("B", "2")]
    right = [_env("B", "3"), _env(None, "orphan"), _env("A", "1")]
    assert _changes(_doc(left), _doc(right)) == [
        ("changed", f"{ENV}[name=B].value", f"{PTR}/2/value", f"{PTR}/0/value", "2", "3")
    ]


def test_the_one_keyless_item_of_each_side_is_one_item_edited() -> None:
    left = [_env("A", "1"), _env(None, "old")]
    right = [_env(None, "new"), _env("A", "1")]
    assert _changes(_doc(left), _doc(right)) == [
        ("changed", f"{ENV}[name=null].value", f"{PTR}/1/value", f"{PTR}/0/value", "old", "new")
    ]


def test_keyless_items_equal_to_one_another_are_matched_first_then_the_one_left_over() -> None:
    left = [_env(None, "same"), _env(None, "old"), _env("A", "1")]
    right = [_env("A", "1"), _env(None, "new"), _env(None, "same")]
    assert _changes(_doc(left), _doc(right)) == [
        ("changed", f"{ENV}[name=null#1].value", f"{PTR}/1/value", f"{PTR}/1/value", "old", "new")
    ]  # (the second keyless item on the left, the first on the right: #1, as for a repeated key)
    assert _changes(_doc(right), _doc(left)) == [
        ("changed", f"{ENV}[name=null#1].value", f"{PTR}/1/value", f"{PTR}/1/value", "new", "old")
    ]


def test_several_keyless_items_left_over_are_removed_and_added_never_guessed() -> None:
    left = [_env(None, "a"), _env(None, "b")]
    right = [_env(None, "c"), _env(None, "d")]
    assert _changes(_doc(left), _doc(right)) == [  # (each says its side: round 8)
        ("removed", f"{ENV}[name=null#left-1]", f"{PTR}/0", None, {"name": None, "value": "a"}, None),
        ("removed", f"{ENV}[name=null#left-2]", f"{PTR}/1", None, {"name": None, "value": "b"}, None),
        ("added", f"{ENV}[name=null#right-1]", None, f"{PTR}/0", None, {"name": None, "value": "c"}),
        ("added", f"{ENV}[name=null#right-2]", None, f"{PTR}/1", None, {"name": None, "value": "d"}),
    ]


def test_a_keyless_item_added_or_removed_is_one_change_carrying_the_whole_item() -> None:
    left = [_env("A", "1")]
    right = [_env("A", "1"), _env(MISSING, "x")]
    assert _changes(_doc(left), _doc(right)) == [
        ("added", f"{ENV}[name=null]", None, f"{PTR}/1", None, {"value": "x"})
    ]
    assert _changes(_doc(right), _doc(left)) == [
        ("removed", f"{ENV}[name=null]", f"{PTR}/1", None, {"value": "x"}, None)
    ]


def test_an_item_that_is_not_an_object_is_matched_by_content_too() -> None:
    left = [_env("A", "1"), None, "stray", _env("B", "2")]
    right = [_env("B", "2"), "stray", _env("A", "1"), None]
    assert _changes(_doc(left), _doc(right)) == []


def test_an_exists_toleration_without_a_key_no_longer_makes_the_list_positional() -> None:
    left = [
        _toleration(None, None),
        _toleration("gpu", "NoSchedule", "Equal", "a100"),
        _toleration("spot", "NoExecute"),
    ]
    right = [left[2], left[0], {**left[1], "value": "h100"}]
    assert _changes(_doc(left, "tolerations"), _doc(right, "tolerations")) == [
        (
            "changed",
            f"{TOL}[key=gpu,effect=NoSchedule].value",
            "/spec/tolerations/1/value",
            "/spec/tolerations/2/value",
            "a100",
            "h100",
        )
    ]


def test_a_composite_key_with_one_null_part_names_the_parts_it_has() -> None:
    left = [_toleration(None, "NoExecute"), _toleration("gpu", "NoSchedule")]
    right = [_toleration("gpu", "NoSchedule")]
    assert _changes(_doc(left, "tolerations"), _doc(right, "tolerations")) == [
        ("removed", f"{TOL}[key=null,effect=NoExecute]", "/spec/tolerations/0", None, left[0], None)
    ]


def test_an_edited_keyless_pair_names_the_key_parts_both_sides_share_and_mirrors() -> None:
    """The toleration of every taint with effect NoExecute became the one of every taint: one item
    edited (the only keyless one each side), named alike in both directions."""
    left = [_toleration(None, "NoExecute"), _toleration("gpu", "NoSchedule")]
    right = [_toleration("gpu", "NoSchedule"), _toleration(None, None)]
    forward = _changes(_doc(left, "tolerations"), _doc(right, "tolerations"))
    assert forward == [
        ("changed", f"{TOL}[key=null,effect=null].effect", "/spec/tolerations/0/effect",
         "/spec/tolerations/1/effect", "NoExecute", None),
    ]  # fmt: skip
    backward = _changes(_doc(right, "tolerations"), _doc(left, "tolerations"))
    assert backward == [
        ("changed", f"{TOL}[key=null,effect=null].effect", "/spec/tolerations/1/effect",
         "/spec/tolerations/0/effect", None, "NoExecute"),
    ]  # fmt: skip


def test_an_aihc_pod_without_its_name_is_matched_by_content() -> None:
    """The pods' key is a pointer (``/objectMeta/name``): a pod the API lists without a name no longer
    makes every pod compared by position."""
    left = load_json(AIHC / "multi-pod-pytorch.json")
    pods = left["result"]["podList"]["pods"]
    del pods[1]["objectMeta"]["name"]
    right = copy.deepcopy(left)
    right["result"]["podList"]["pods"].reverse()
    assert _changes(left, right) == []
    right["result"]["podList"]["pods"][-1]["restartCount"] = 7  # (the first pod, a named one)
    [(op, path, *_)] = _changes(left, right)
    assert (op, path) == (
        "changed",
        "result.podList.pods[objectMeta.name=llama2-7b-sft-master-0].restartCount",
    )


def test_a_keyless_item_holding_a_credential_is_masked() -> None:
    left = [_env(None, "postgres://admin:s3cr3tpass@db:5432/x"), _env("A", "1")]
    right = [_env("A", "1"), {"name": None, "value": "x", "password": "s3cr3tpass"}]
    changes = _changes(_doc(left), _doc(right))
    assert [change[:2] for change in changes] == [
        ("added", f"{ENV}[name=null].password"),
        ("changed", f"{ENV}[name=null].value"),
    ]
    text = json.dumps(changes)
    assert "s3cr3tpass" not in text and text.count("<secret:") == 2


def test_the_keyless_rule_reads_in_the_text_report(run_cli: RunCli, tmp_path: Path) -> None:
    left = _doc([_env("A", "1"), _env(None, "old")])
    right = _doc([_env(None, "new"), _env("A", "1")])
    (tmp_path / "l.json").write_text(json.dumps(left), encoding="utf-8")
    (tmp_path / "r.json").write_text(json.dumps(right), encoding="utf-8")
    assert run_cli(
        ["diff", str(tmp_path / "l.json"), str(tmp_path / "r.json")], code=1
    ).stdout.splitlines() == [
        "spec",
        f'  ± {ENV}[name=null].value: "old" → "new"',
        "different (runai-distributed-workload, snapshot): 1 changed, 0 added, 0 removed",
    ]


def test_the_diff_page_documents_the_keyless_rule() -> None:
    page = (REPO / "docs" / "diff.md").read_text(encoding="utf-8")
    assert "makes its list compared by position" not in page
    assert "[name=null]" in page and "without its key" in page
    readme = (REPO / "schemas" / "README.md").read_text(encoding="utf-8")
    assert "or two items share one, that list" not in readme


_NAME = st.one_of(st.sampled_from(["A", "B", "C"]), st.none(), st.just(MISSING))
_VALUE = st.sampled_from(["1", "2", "3"])


def _items(pairs: list[tuple[Any, str]]) -> list[Any]:
    return [_env(name, value) for name, value in pairs]


@settings(database=None, max_examples=200, deadline=None)
@given(st.lists(st.tuples(_NAME, _VALUE), max_size=8), st.randoms(use_true_random=False))
def test_a_pure_reorder_of_a_list_with_keyless_items_is_no_change(
    pairs: list[tuple[Any, str]], rng: random.Random
) -> None:
    shuffled = list(pairs)
    rng.shuffle(shuffled)
    assert _changes(_doc(_items(pairs)), _doc(_items(shuffled))) == []


@settings(database=None, max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["A", "B", "C", "D"]), _VALUE), max_size=5, unique_by=lambda p: p[0]),
    st.lists(st.sampled_from(["k1", "k2", "k3", "k4"]), min_size=1, max_size=4, unique=True),
    st.randoms(use_true_random=False),
    st.integers(0, 10),
)
def test_one_edit_of_a_keyless_item_in_a_reordered_list_is_one_change(
    keyed: list[tuple[str, str]], keyless: list[str], rng: random.Random, which: int
) -> None:
    left = [_env(name, value) for name, value in keyed] + [_env(None, value) for value in keyless]
    right = copy.deepcopy(left)
    rng.shuffle(right)
    edited = [i for i, item in enumerate(right) if item["name"] is None][which % len(keyless)]
    old = right[edited]["value"]
    right[edited]["value"] = "edited"
    changes = _changes(_doc(left), _doc(right))
    occurrence = r"#[1-9]" if len(keyless) > 1 else ""
    assert len(changes) == 1, changes
    op, path, _, pointer, before, after = changes[0]
    assert (op, before, after) == ("changed", old, "edited")
    assert re.fullmatch(rf"{re.escape(ENV)}\[name=null{occurrence}\]\.value", path), path
    assert pointer == f"{PTR}/{edited}/value"


@settings(database=None, max_examples=200, deadline=None)
@given(st.lists(st.tuples(_NAME, _VALUE), max_size=6), st.lists(st.tuples(_NAME, _VALUE), max_size=6))
def test_any_two_lists_with_keyless_items_diff_as_mirror_images(
    left: list[tuple[Any, str]], right: list[tuple[Any, str]]
) -> None:
    swap = {"added": "removed", "removed": "added", "changed": "changed"}
    forward = _changes(_doc(_items(left)), _doc(_items(right)))
    backward = _changes(_doc(_items(right)), _doc(_items(left)))
    mirrored = sorted((swap[op], mirrored_path(path), rp, lp, json.dumps(new), json.dumps(old))
                      for op, path, lp, rp, old, new in forward)  # fmt: skip
    assert mirrored == sorted((op, path, lp, rp, json.dumps(old), json.dumps(new))
                              for op, path, lp, rp, old, new in backward)  # fmt: skip
    for op, path, *_ in forward:  # (no two changes of one item's place and kind share a selector)
        assert [c[:2] for c in forward].count((op, path)) == 1


# ------------------------------------------------------------------ an error answer in a history


def _lines(*documents: Any) -> str:
    return "".join(json.dumps(document) + "\n" for document in documents)


def _workload(phase: str, **more: Any) -> dict[str, Any]:
    document = load_json(RUNAI / "seed.json")
    document["actualPhase"] = phase
    document.update(more)
    return document


RUNAI_503 = {"code": 503, "message": "upstream unavailable"}
AIHC_DENIED = {
    "requestId": "3b8e5f21-a7c4-4d09-8e6b-2f1d9c0a7e53",
    "code": "AccessDenied",
    "message": "Access denied.",
}


def test_an_error_answer_line_is_named_and_the_history_goes_on(run_cli: RunCli, tmp_path: Path) -> None:
    history = tmp_path / "job.ndjson"
    history.write_text(
        _lines(_workload("Pending"), RUNAI_503, _workload("Running"), _workload("Completed")),
        encoding="utf-8",
    )
    result = run_cli(["diff", "--history", "--only", "/actualPhase", str(history)], code=1)
    name = str(history)
    assert result.stdout.splitlines() == [
        f"{name}:1 → {name}:3",
        '  ± actualPhase: "Pending" → "Running"',
        f"{name}:3 → {name}:4",
        '  ± actualPhase: "Running" → "Completed"',
        f'warning: {name}:2: an error answer (code 503, "upstream unavailable"), not a snapshot of the job: '
        "passed over",
        "different (runai-distributed-workload, history): 2 changed, 0 added, 0 removed",
    ]
    assert result.stderr == (
        f'note: {name}:2: an error answer (code 503, "upstream unavailable"), not a snapshot of the job: '
        "passed over\n"
    )


def test_an_error_answer_in_a_recording_of_several_jobs_does_not_stop_it(
    run_cli: RunCli, tmp_path: Path
) -> None:
    other = "c3e1f0a2-6b7d-4e8f-a9b0-1c2d3e4f5a6b"
    history = tmp_path / "two.ndjson"
    history.write_text(
        _lines(
            _workload("Pending"), _workload("Pending", workloadId=other), RUNAI_503,
            _workload("Running"), _workload("Failed", workloadId=other),
        ),
        encoding="utf-8",
    )  # fmt: skip
    report = json.loads(run_cli(["diff", "--history", "-f", "json", str(history)], code=1).stdout)
    assert [job["snapshots"] for job in report["jobs"]] == [2, 2]
    assert report["warnings"] == [
        f'{history}:3: an error answer (code 503, "upstream unavailable"), not a snapshot of the job: '
        "passed over"
    ]


def test_an_aihc_error_answer_in_a_folder_history_is_passed_over(run_cli: RunCli, tmp_path: Path) -> None:
    folder = tmp_path / "job"
    folder.mkdir()
    first = load_json(AIHC / "created-job.json")
    later = copy.deepcopy(first)
    later["result"]["status"] = "Running"
    for number, document in enumerate((first, AIHC_DENIED, later), 1):
        (folder / f"snap-{number}.json").write_text(json.dumps(document), encoding="utf-8")
    result = run_cli(["diff", "--history", "--only", "/result/status", str(folder)], code=1)
    assert (
        f'warning: {folder}/snap-2.json: an error answer (AccessDenied, "Access denied."), not a snapshot'
        in (result.stdout)
    )
    assert '± result.status: "Created" → "Running"' in result.stdout


def test_a_history_of_one_snapshot_beside_error_answers_is_one_line_naming_them(
    run_cli: RunCli, tmp_path: Path
) -> None:
    history = tmp_path / "job.ndjson"
    history.write_text(_lines(RUNAI_503, _workload("Pending"), RUNAI_503), encoding="utf-8")
    result = run_cli(["diff", "--history", str(history)], code=2)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert f"{history}:1: an error answer" in result.stderr and "two snapshots" in result.stderr


def test_an_error_answer_s_message_is_one_line_and_its_credential_masked(
    run_cli: RunCli, tmp_path: Path
) -> None:
    leaky = {
        "code": 401,
        "message": "bad token\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
    }
    history = tmp_path / "job.ndjson"
    history.write_text(_lines(_workload("Pending"), leaky, _workload("Running")), encoding="utf-8")
    result = run_cli(["diff", "--history", str(history)], code=1)
    [warning] = [line for line in result.stdout.splitlines() if line.startswith("warning:")]
    assert "\\n" in warning and "eyJhbGciOiJIUzI1NiJ9" not in result.stdout + result.stderr


def test_the_library_names_error_answers_among_the_warnings() -> None:
    snapshots = [("a:1", _workload("Pending")), ("a:2", RUNAI_503), ("a:3", _workload("Running"))]
    result = diff_history(snapshots)
    assert [pair.left + ">" + pair.right for pair in result.pairs] == ["a:1>a:3"]
    assert result.warnings == (
        'a:2: an error answer (code 503, "upstream unavailable"), not a snapshot of the job: passed over',
    )
    with pytest.raises(DiffInputError, match="a:2: an error answer"):
        diff_history([("a:1", _workload("Pending")), ("a:2", RUNAI_503)])


# ------------------------------------------------------------------ one job across AIHC v1 and v2


def _v2_of(v1: dict[str, Any], status: str) -> dict[str, Any]:
    answer = load_json(V2 / "sdk-running-4-pods.json")
    answer["job"]["jobid"] = v1["result"]["jobId"]
    answer["job"]["status"] = status
    return answer


def test_a_history_that_moves_from_aihc_v1_to_v2_is_compared_across(run_cli: RunCli, tmp_path: Path) -> None:
    first = load_json(AIHC / "multi-pod-pytorch.json")
    history = tmp_path / "job.ndjson"
    history.write_text(_lines(first, _v2_of(first, "Running"), _v2_of(first, "Succeeded")), encoding="utf-8")
    result = run_cli(["diff", "--history", "-f", "json", str(history)], code=1)
    report = json.loads(result.stdout)
    assert [(pair["left"], pair["right"]) for pair in report["pairs"]] == [
        (f"{history}:1", f"{history}:2"),
        (f"{history}:2", f"{history}:3"),
    ]
    assert {"op": "changed", "old": "Running", "new": "Succeeded"}.items() <= next(
        c for c in report["pairs"][1]["changes"] if c["path"].endswith("status")
    ).items()
    assert report["schema"] == "aihc-job-detail ~ aihc-v2-job"


def test_a_history_of_two_apis_of_one_id_is_still_refused() -> None:
    """Run:ai and AIHC answers share no shape: that is no history of one job."""
    runai = _workload("Pending")
    aihc = load_json(AIHC / "created-job.json")
    aihc["result"]["jobId"] = runai["workloadId"]
    with pytest.raises(DiffInputError, match="a history is one job"):
        diff_history([("a:1", runai), ("a:2", aihc)])


def test_read_history_keeps_error_answer_lines_for_the_comparison_to_name(tmp_path: Path) -> None:
    history = tmp_path / "job.ndjson"
    history.write_text(_lines(_workload("Pending"), RUNAI_503, _workload("Running")), encoding="utf-8")
    snapshots = read_history(str(history))
    assert [label for label, _ in snapshots] == [f"{history}:1", f"{history}:2", f"{history}:3"]
