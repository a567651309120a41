"""Small direct tests of :mod:`jobschema.diff`: path spelling, list identity, patterns, values by meaning."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from jobschema.diff import DiffInputError, DiffOptions, diff_documents
from jobschema.diff.engine import key_path, label
from jobschema.diff.result import Change
from jobschema.diff.select import keep, selects
from jobschema.quantity import parse_quantity
from jobschema.secrets.policy import mask
from tests.conftest import RunCli
from tests.support import CAPTURES, load_json

RAW = "aijob.cce.baidubce.com/raw-request"


def _runai() -> dict[str, Any]:
    return load_json(CAPTURES / "runai-distributed-workload" / "same-as-worker.json")


def _seed() -> dict[str, Any]:
    return load_json(CAPTURES / "aihc-job-detail" / "seed.json")


def _changes(left: Any, right: Any, **options: Any) -> list[tuple[str, str, str | None, str | None]]:
    result = diff_documents(left, right, options=DiffOptions(**options))
    return [(c.op, c.path, c.left_pointer, c.right_pointer) for c in result.changes]


# ------------------------------------------------------------------ key_path and label


@pytest.mark.parametrize(
    ("path", "key", "expected"),
    [
        ("", "spec", "spec"),
        ("spec", "compute", "spec.compute"),
        ("x", "snake_case-1", "x.snake_case-1"),
        ("", "a.b/c", '["a.b/c"]'),
        ("spec", "a.b/c", 'spec["a.b/c"]'),
        ("labels", "training.kubeflow.org/replica-index", 'labels["training.kubeflow.org/replica-index"]'),
        ("x", "with space", 'x["with space"]'),
        ("x", "9lives", 'x["9lives"]'),
        ("x", "", 'x[""]'),
        ("x", 'say "hi"', 'x["say \\"hi\\""]'),
        ("x", "ключ", 'x["ключ"]'),
    ],
)
def test_key_path_quotes_keys_that_are_not_identifiers(path: str, key: str, expected: str) -> None:
    assert key_path(path, key) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("HOME", "HOME"),
        ("nvidia.com/gpu", "nvidia.com/gpu"),
        ("robot@x:1+2", "robot@x:1+2"),
        ("llama2-7b-sft-worker-0", "llama2-7b-sft-worker-0"),
        ("", '""'),
        ("a b", '"a b"'),
        ("x=y", '"x=y"'),
        ("a,b", '"a,b"'),
        ("a]", '"a]"'),
        ("ünï", '"ünï"'),
        (6006, "6006"),
        (1.5, "1.5"),
        (True, "true"),
    ],
)
def test_label_quotes_what_would_be_ambiguous_inside_brackets(value: Any, expected: str) -> None:
    assert label(value) == expected


def test_a_dotted_slashed_key_is_quoted_in_a_real_path() -> None:
    left = _seed()
    right = copy.deepcopy(left)
    right["result"]["podList"]["pods"][0]["objectMeta"]["labels"]["training.kubeflow.org/replica-index"] = "1"
    assert _changes(left, right) == [
        (
            "changed",
            'result.podList.pods[objectMeta.name=job-test-3-master-0].objectMeta.labels["training.kubeflow.org/replica-index"]',
            "/result/podList/pods/0/objectMeta/labels/training.kubeflow.org~1replica-index",
            "/result/podList/pods/0/objectMeta/labels/training.kubeflow.org~1replica-index",
        )
    ]


# ------------------------------------------------------------------ keyed lists


def _tolerations(*items: tuple[str | None, str, int | None]) -> list[dict[str, Any]]:
    return [
        {
            "name": None,
            "operator": "Exists",
            "key": key,
            "value": None,
            "effect": effect,
            "seconds": seconds,
            "exclude": False,
        }
        for key, effect, seconds in items
    ]


def test_composite_key_label_and_sorting() -> None:
    left = _runai()
    left["spec"]["tolerations"] = _tolerations(
        ("nvidia.com/gpu", "NoSchedule", None), ("nvidia.com/gpu", "NoExecute", 300)
    )
    right = copy.deepcopy(left)
    right["spec"]["tolerations"].reverse()
    right["spec"]["tolerations"][1]["operator"] = "Equal"
    del right["spec"]["tolerations"][0]
    right["spec"]["tolerations"].append(_tolerations(("dedicated", "NoSchedule", None))[0])
    assert _changes(left, right) == [
        ("added", "spec.tolerations[key=dedicated,effect=NoSchedule]", None, "/spec/tolerations/1"),
        ("removed", "spec.tolerations[key=nvidia.com/gpu,effect=NoExecute]", "/spec/tolerations/1", None),
        (
            "changed",
            "spec.tolerations[key=nvidia.com/gpu,effect=NoSchedule].operator",
            "/spec/tolerations/0/operator",
            "/spec/tolerations/0/operator",
        ),
    ]


def test_a_key_given_as_a_pointer_labels_with_dots() -> None:
    left = _seed()
    right = copy.deepcopy(left)
    right["result"]["podList"]["pods"][0]["restartCount"] = 2
    assert [path for _, path, _, _ in _changes(left, right)] == [
        "result.podList.pods[objectMeta.name=job-test-3-master-0].restartCount"
    ]


@pytest.mark.parametrize(
    ("left_names", "right_names", "expected"),
    [
        pytest.param(["A", None], ["A", None], [], id="null-key"),
        pytest.param(
            ["A", "B"],
            ["A", None],
            [
                ("added", "spec.environmentVariables[name=null]", None, "/spec/environmentVariables/1"),
                ("removed", "spec.environmentVariables[name=B]", "/spec/environmentVariables/1", None),
            ],
            id="null-on-one-side",
        ),
    ],
)
def test_items_without_a_usable_key_are_matched_by_content_not_by_position(
    left_names: list[Any], right_names: list[Any], expected: list[Any]
) -> None:
    """(Round 7: a keyless item made its whole list positional; tests/test_diff_round7.py has the rule.)"""
    left = _runai()
    left["spec"]["environmentVariables"] = [{"name": n, "value": "1"} for n in left_names]
    right = _runai()
    right["spec"]["environmentVariables"] = [{"name": n, "value": "1"} for n in right_names]
    right["spec"]["environmentVariables"][0]["value"] = "2"
    changes = _changes(left, right)
    changed = ("changed", "spec.environmentVariables[name=A].value", "/spec/environmentVariables/0/value",
               "/spec/environmentVariables/0/value")  # fmt: skip
    assert changes == sorted([changed, *expected], key=lambda c: (c[1], c[2] or "", c[3] or ""))


def test_a_repeated_key_is_matched_by_key_and_occurrence_not_by_position() -> None:
    """Two env vars of one name (Kubernetes allows it): the n-th ``A`` on the left is the n-th ``A`` on
    the right, once each item found its equal (so a reorder is no change), and the selector says
    which (``name=A#2``; tests/test_diff_round6.py proves the rule for any list)."""
    left = _runai()
    left["spec"]["environmentVariables"] = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]
    right = copy.deepcopy(left)
    right["spec"]["environmentVariables"].reverse()
    assert _changes(left, right) == []
    right["spec"]["environmentVariables"][1]["value"] = "3"  # the first A, moved second
    assert _changes(left, right) == [
        (
            "changed",
            "spec.environmentVariables[name=A#1].value",
            "/spec/environmentVariables/0/value",
            "/spec/environmentVariables/1/value",
        )
    ]


def test_a_repeated_composite_key_carries_its_occurrence_after_the_whole_selector() -> None:
    left = _runai()
    left["spec"]["tolerations"] = _tolerations(("gpu", "NoSchedule", None), ("gpu", "NoSchedule", 60))
    right = copy.deepcopy(left)
    right["spec"]["tolerations"].reverse()
    assert _changes(left, right) == []
    right["spec"]["tolerations"][0]["seconds"] = 30
    assert _changes(left, right) == [
        (
            "changed",
            "spec.tolerations[key=gpu,effect=NoSchedule#1].seconds",  # (2nd left, 1st right)
            "/spec/tolerations/1/seconds",
            "/spec/tolerations/0/seconds",
        )
    ]


def test_a_composite_key_with_a_null_part_is_matched_by_content() -> None:
    left = _runai()
    left["spec"]["tolerations"] = _tolerations(
        (None, "NoSchedule", None), ("nvidia.com/gpu", "NoSchedule", None)
    )
    right = copy.deepcopy(left)
    right["spec"]["tolerations"].reverse()
    assert _changes(left, right) == []  # (by position, as before round 7: two keys changed)


def test_a_positional_tail_is_added_or_removed_whole() -> None:
    left = _runai()
    right = copy.deepcopy(left)
    right["spec"]["nodePools"] = ["default", "a100-80g"]
    assert _changes(left, right) == [("added", "spec.nodePools[1]", None, "/spec/nodePools/1")]
    assert _changes(right, left) == [("removed", "spec.nodePools[1]", "/spec/nodePools/1", None)]


# ------------------------------------------------------------------ sets


def test_a_set_ignores_order_and_duplicates_and_labels_by_value() -> None:
    left = _runai()
    left["spec"]["security"]["capabilities"] = ["IPC_LOCK", "SYS_NICE"]
    right = copy.deepcopy(left)
    right["spec"]["security"]["capabilities"] = ["SYS_NICE", "SYS_NICE", "IPC_LOCK"]
    assert _changes(left, right) == []
    right["spec"]["security"]["capabilities"].append("NET_ADMIN")
    assert _changes(left, right) == [
        ("added", "spec.security.capabilities[=NET_ADMIN]", None, "/spec/security/capabilities/3")
    ]


# ------------------------------------------------------------------ quantities and numbers


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("1Gi", "1073741824"),
        ("16Gi", "16384Mi"),
        ("500m", "0.5"),
        ("1k", "1000"),
        ("1e3", "1000"),
        ("1.5Gi", "1536Mi"),
        ("0.5Ti", "512Gi"),
    ],
)
def test_quantities_equal_by_value(a: str, b: str) -> None:
    assert parse_quantity(a) == parse_quantity(b)
    left = _runai()
    left["spec"]["compute"]["cpuMemoryRequest"] = a
    right = copy.deepcopy(left)
    right["spec"]["compute"]["cpuMemoryRequest"] = b
    assert _changes(left, right) == []
    assert _changes(left, right, exact=True) == [
        (
            "changed",
            "spec.compute.cpuMemoryRequest",
            "/spec/compute/cpuMemoryRequest",
            "/spec/compute/cpuMemoryRequest",
        )
    ]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("1G", "1Gi"),
        ("1Gi", "1Mi"),
        ("1Gi", "one gig"),
        ("lots", "plenty"),
    ],
)
def test_different_or_unparsable_quantities_are_changes(a: str, b: str) -> None:
    left = _runai()
    left["spec"]["compute"]["cpuMemoryRequest"] = a
    right = copy.deepcopy(left)
    right["spec"]["compute"]["cpuMemoryRequest"] = b
    assert len(_changes(left, right)) == 1


def test_quantities_by_value_on_every_annotated_field() -> None:
    left = load_json(CAPTURES / "runai-distributed-workload" / "mpi-job.json")
    right = copy.deepcopy(left)
    right["spec"]["compute"]["extendedResources"][0]["quantity"] = "4000m"
    right["spec"]["storage"]["emptyDirVolume"][0]["sizeLimit"] = "65536Mi"
    right["masterSpec"]["compute"]["cpuMemoryLimit"] = str(
        parse_quantity(left["masterSpec"]["compute"]["cpuMemoryLimit"])
    )
    assert _changes(left, right) == []
    assert len(_changes(left, right, exact=True)) == 3


def test_a_quantity_string_outside_a_quantity_field_is_text() -> None:
    left = _runai()
    left["spec"]["args"] = "1Gi"
    right = copy.deepcopy(left)
    right["spec"]["args"] = "1073741824"
    assert len(_changes(left, right)) == 1


def test_numbers_by_value_unless_exact() -> None:
    left = _runai()
    right = copy.deepcopy(left)
    right["spec"]["compute"]["cpuCoreLimit"] = 8.0
    assert _changes(left, right) == []
    assert _changes(left, right, exact=True) == [
        ("changed", "spec.compute.cpuCoreLimit", "/spec/compute/cpuCoreLimit", "/spec/compute/cpuCoreLimit")
    ]


def test_booleans_are_not_numbers() -> None:
    left = _runai()
    left["spec"]["backoffLimit"] = 1
    right = copy.deepcopy(left)
    right["spec"]["backoffLimit"] = True
    assert len(_changes(left, right)) == 1


def test_equal_values_inside_a_structure_of_other_types() -> None:
    left = _runai()
    right = copy.deepcopy(left)
    right["spec"]["compute"] = {
        k: float(v) if type(v) is int else v for k, v in right["spec"]["compute"].items()
    }
    assert _changes(left, right) == []
    assert {path for _, path, _, _ in _changes(left, right, exact=True)} == {
        "spec.compute.cpuCoreLimit",
        "spec.compute.cpuCoreRequest",
        "spec.compute.gpuDevicesRequest",
    }


# ------------------------------------------------------------------ embedded JSON


def _raw_pointer(tail: str = "") -> str:
    return f"/result/podList/pods/0/objectMeta/annotations/aijob.cce.baidubce.com~1raw-request{tail}"


def test_embedded_json_is_compared_as_a_structure() -> None:
    left = _seed()
    right = copy.deepcopy(left)
    pod = right["result"]["podList"]["pods"][0]
    raw = json.loads(pod["objectMeta"]["annotations"][RAW])
    pod["objectMeta"]["annotations"][RAW] = json.dumps(raw, indent=4, sort_keys=True)
    assert _changes(left, right) == []
    raw["jobSpec"]["Master"]["env"]["NCCL_DEBUG"] = "WARN"
    pod["objectMeta"]["annotations"][RAW] = json.dumps(raw)
    assert _changes(left, right) == [
        (
            "changed",
            'result.podList.pods[objectMeta.name=job-test-3-master-0].objectMeta.annotations["aijob.cce.baidubce.com/raw-request"].jobSpec.Master.env.NCCL_DEBUG',
            _raw_pointer("/jobSpec/Master/env/NCCL_DEBUG"),
            _raw_pointer("/jobSpec/Master/env/NCCL_DEBUG"),
        )
    ]


@pytest.mark.parametrize("broken", ["left", "right", "both"])
def test_embedded_json_that_fails_to_parse_is_compared_as_text(broken: str) -> None:
    left = _seed()
    right = copy.deepcopy(left)
    original = left["result"]["podList"]["pods"][0]["objectMeta"]["annotations"][RAW]
    texts = {"left": original, "right": original.replace('"NCCL_DEBUG":"INFO"', '"NCCL_DEBUG":"WARN"')}
    for side in ("left", "right") if broken == "both" else (broken,):
        texts[side] = texts[side][:-1]  # drop the closing brace
    left["result"]["podList"]["pods"][0]["objectMeta"]["annotations"][RAW] = texts["left"]
    right["result"]["podList"]["pods"][0]["objectMeta"]["annotations"][RAW] = texts["right"]
    shown = diff_documents(left, right, options=DiffOptions(show_secrets=True))
    assert [(c.op, c.left_pointer, c.right_pointer, c.old, c.new) for c in shown.changes] == [
        ("changed", _raw_pointer(), _raw_pointer(), texts["left"], texts["right"])
    ]
    # Where its secrets are cannot be told: text that does not parse is masked whole.
    masked = {side: mask(text) if broken in (side, "both") else text for side, text in texts.items()}
    hidden = diff_documents(left, right)
    assert [(c.op, c.left_pointer, c.right_pointer, c.old, c.new) for c in hidden.changes] == [
        ("changed", _raw_pointer(), _raw_pointer(), masked["left"], masked["right"])
    ]


def test_an_embedded_json_added_whole_is_one_change() -> None:
    left = _seed()
    right = copy.deepcopy(left)
    del left["result"]["podList"]["pods"][0]["objectMeta"]["annotations"][RAW]
    assert _changes(left, right) == [
        (
            "added",
            'result.podList.pods[objectMeta.name=job-test-3-master-0].objectMeta.annotations["aijob.cce.baidubce.com/raw-request"]',
            None,
            _raw_pointer(),
        )
    ]


# ------------------------------------------------------------------ volatile


def test_volatile_changes_are_flagged_and_dropped_on_request() -> None:
    left = _seed()
    right = copy.deepcopy(left)
    right["requestId"] = "0d5c1f3e-2a7b-4e98-b6c4-9f1a8e2d7c53"
    right["result"]["podList"]["pods"][0]["podStatus"]["podPhase"] = "Failed"
    right["result"]["priority"] = "high"
    right["result"]["podList"]["pods"][0]["PodIP"] = "10.0.0.99"
    result = diff_documents(left, right)
    pod = "result.podList.pods[objectMeta.name=job-test-3-master-0]"
    assert [(c.path, c.volatile) for c in result.changes] == [
        ("requestId", True),
        (f"{pod}.PodIP", True),
        (f"{pod}.podStatus.podPhase", False),  # the job's state is never volatile
        ("result.priority", False),
    ]
    quiet = diff_documents(left, right, options=DiffOptions(ignore_volatile=True))
    assert [c.path for c in quiet.changes] == [f"{pod}.podStatus.podPhase", "result.priority"]


# ------------------------------------------------------------------ --ignore / --only patterns


@pytest.mark.parametrize(
    ("pattern", "pointer", "expected"),
    [
        ("/result/podList/pods/*/PodIP", "/result/podList/pods/3/PodIP", True),
        ("/result/podList/pods/*/PodIP", "/result/podList/pods/3/nodeName", False),
        ("/result/podList/pods/*", "/result/podList/pods/3/envs/0/value", True),  # descendants
        ("/result/podList/pods/*/PodIP", "/result/podList/pods", False),  # not ancestors
        ("/a/*/c", "/a/b/x/c", False),  # * stays within one token
        ("/a/b", "/a/bc", False),  # tokens, not string prefixes
        ("/a/b*", "/a/bc", True),
        ("/a/b?", "/a/bc", True),
        ("/a/[bc]", "/a/c", True),
        ("/a/**/c", "/a/c", True),  # ** is zero or more tokens
        ("/a/**/c", "/a/x/y/c", True),
        ("/a/**/c", "/a/x/y/c/d", True),
        ("/a/**/c", "/a/x/y/d", False),
        ("/**", "/anything/at/all", True),
        ("**/PodIP", "/result/podList/pods/0/PodIP", True),  # the leading / is optional
        ("/**/envs", "/result/envs/2/value", True),
        ("/**/envs", "/result/podList/pods/1/envs/2/value", True),
        (
            "/annotations/aijob.cce.baidubce.com~1raw-request",
            "/annotations/aijob.cce.baidubce.com~1raw-request/x",
            True,
        ),
        ("/annotations/*", "/annotations/aijob.cce.baidubce.com~1raw-request", True),
        ("/a~0b", "/a~0b/c", True),
        ("/spec/environmentVariables", "/masterSpec/environmentVariables/0", False),
        ("", "/x", True),
        ("/", "/x", True),
    ],
)
def test_selects(pattern: str, pointer: str, expected: bool) -> None:
    assert selects([pattern], pointer) is expected


def test_selects_any_pattern_and_never_an_absent_side() -> None:
    assert selects(["/nope", "/a/*"], "/a/b")
    assert not selects(["/nope", "/other"], "/a/b")
    assert not selects(["/**"], None)


def test_keep_uses_either_pointer() -> None:
    moved = Change("changed", "x", "/list/0/v", "/list/3/v", 1, 2)
    assert not keep(moved, ("/list/3",), ())
    assert not keep(moved, ("/list/0",), ())
    assert keep(moved, (), ("/list/3",))
    assert keep(moved, (), ("/list/0",))
    assert not keep(moved, (), ("/other",))
    added = Change("added", "x", None, "/list/3", None, 2)
    assert keep(added, (), ("/list/*",))
    assert not keep(added, ("/list/*",), ("/list/*",))  # --ignore wins over --only


# ------------------------------------------------------------------ results


def test_a_document_is_the_same_as_itself() -> None:
    result = diff_documents(_seed(), _seed())
    assert result.same
    assert result.changes == ()
    assert result.schema == "aihc-job-detail"
    assert result.mode == "snapshot"


def test_different_apis_cannot_be_compared() -> None:
    with pytest.raises(
        DiffInputError, match="left is runai-distributed-workload but right is aihc-job-detail"
    ):
        diff_documents(_runai(), _seed())


def test_a_forced_schema_skips_detection() -> None:
    result = diff_documents({}, {"code": 1}, schema="runai-error")
    assert result.schema == "runai-error"
    assert [(c.op, c.path, c.left_pointer, c.right_pointer) for c in result.changes] == [
        ("added", "code", None, "/code")
    ]


def test_change_as_dict_has_the_documented_keys() -> None:
    change = Change("changed", "spec.image", "/spec/image", "/spec/image", "a", "b")
    assert change.as_dict() == {
        "op": "changed",
        "path": "spec.image",
        "left_pointer": "/spec/image",
        "right_pointer": "/spec/image",
        "old": "a",
        "new": "b",
    }


def test_a_job_id_in_a_history_is_read_by_the_policy_before_markdown_escapes_it(
    run_cli: RunCli, tmp_path: Path
) -> None:
    token = "ghp_aB3dEPq9ZxfGhIjKlMnOpQrStUvWxYz01234"
    base = load_json(CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json")
    first = copy.deepcopy(base)
    first["result"]["jobId"] = f"job-{token}"
    failed = copy.deepcopy(first)
    failed["result"]["status"] = "Failed"
    other = copy.deepcopy(base)
    other_failed = copy.deepcopy(other)
    other_failed["result"]["status"] = "Failed"
    path = tmp_path / "history.ndjson"
    path.write_text("".join(json.dumps(x) + "\n" for x in (first, failed, other, other_failed)))
    result = run_cli(["diff", "--history", "-f", "markdown", str(path)], code=1)
    assert token not in result.stdout and token.replace("_", "\\_") not in result.stdout
    assert "<secret:" in result.stdout or "\\<secret:" in result.stdout


def test_a_patch_of_documents_too_deep_to_follow_is_one_line_exit_2(run_cli: RunCli, tmp_path: Path) -> None:
    deep: Any = "x"
    for _ in range(700):
        deep = [deep]
    left = load_json(CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json")
    right = copy.deepcopy(left)
    left["result"]["labels"] = deep
    right["result"]["labels"] = [deep]
    (tmp_path / "l.json").write_text(json.dumps(left))
    (tmp_path / "r.json").write_text(json.dumps(right))
    for fmt in ("patch", "text"):
        result = run_cli(["diff", "-f", fmt, str(tmp_path / "l.json"), str(tmp_path / "r.json")], code=2)
        assert result.stderr.endswith(": nested too deeply to compare\n") and result.stderr.count("\n") == 1
