"""The semantic rules: one passing and one failing payload per rule, the official examples, robustness."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.pointer import from_path, value_at
from jobschema.schemas.registry import BUNDLED
from jobschema.validate.rules import MODULES, all_rules, quiet_test, run, run_every_rule
from tests.rules_aihc_v2_cases import V2, V2_CASES
from tests.support import CAPTURES, load_json, schema_document

RUNAI = "runai-distributed-workload"
DETAIL = "aihc-job-detail"
RAW = "aihc-raw-request"
RULE_SCHEMAS = (RUNAI, DETAIL, RAW, V2)

JOB = "pytorchjob-19d38d07-3e04-49ef-8428-d792881fc5fa"
JOB_ID_KEY = "aijob.cce.baidubce.com/openapi-jobid"
SECRET = "hunter2-do-not-print"

Finding = tuple[str, str, str]


def findings(schema: str, payload: Any) -> list[Finding]:
    return [(item.id, from_path(tokens), message) for item, tokens, message in run(schema, payload)]


def official_example(schema: str) -> Any:
    return copy.deepcopy(schema_document(schema)["examples"][0])


def pod(name: str, world_size: str | None = None, rank: str | None = None, **meta: Any) -> dict[str, Any]:
    """A pod whose envs are ``[SECRET_TOKEN, WORLD_SIZE?, RANK?]``, labelled and annotated with ``JOB``."""
    envs = [{"name": "SECRET_TOKEN", "value": SECRET}]
    envs += [{"name": "WORLD_SIZE", "value": world_size}] if world_size is not None else []
    envs += [{"name": "RANK", "value": rank}] if rank is not None else []
    object_meta = {"name": name, "labels": {JOB_ID_KEY: JOB}, "annotations": {JOB_ID_KEY: JOB}, **meta}
    return {"objectMeta": object_meta, "envs": envs}


def repeated_rank(name: str, first: str, last: str) -> dict[str, Any]:
    """A pod of two that sets RANK twice (``first``, then ``last``), a variable after the second."""
    item = pod(name, "2", first)
    item["envs"] += [{"name": "RANK", "value": last}, {"name": "AFTER", "value": "x"}]
    return item


def detail(pods: list[Any], **result: Any) -> dict[str, Any]:
    """A job-detail body with ``pods`` (totalItems matching) and a running job unless ``result`` says else."""
    body = {
        "jobId": JOB,
        "status": "Running",
        "finishedAt": "",
        "resources": [{"name": "cpu", "quantity": 1}],
    }
    body["podList"] = {"listMeta": {"totalItems": len(pods)}, "pods": pods}
    return {"requestId": "4a516705-9c97-4e32-9473-c783ec85bec4", "result": {**body, **result}}


def pods_ok(count: int) -> list[dict[str, Any]]:
    return [pod(f"job-worker-{i}", str(count), str(i)) for i in range(count)]


def pod_env_value(pod_index: int, env_index: int) -> str:
    return f"/result/podList/pods/{pod_index}/envs/{env_index}/value"


# rule id -> (schema, passing payloads, failing payloads with the exact findings each yields)
CASES: dict[str, tuple[str, list[Any], list[tuple[Any, list[Finding]]]]] = {
    "runai-master-spec-with-same-as-worker": (
        RUNAI,
        [
            {"masterSpecSameAsWorker": True, "masterSpec": None},
            {"masterSpecSameAsWorker": True},
            {"masterSpecSameAsWorker": False, "masterSpec": {"command": "python"}},
        ],
        [
            (
                {"masterSpecSameAsWorker": True, "masterSpec": {}},
                [
                    (
                        "runai-master-spec-with-same-as-worker",
                        "/masterSpec",
                        "masterSpec is set although masterSpecSameAsWorker is true",
                    )
                ],
            )
        ],
    ),
    "runai-worker-only-field-in-master": (
        RUNAI,
        [
            {"masterSpec": {"numWorkers": None, "command": "python"}, "spec": {"numWorkers": 2}},
            {"masterSpec": "not an object"},
        ],
        [
            (
                {"masterSpec": {"numWorkers": 2, "cleanPodPolicy": "All", "segmentSize": None}},
                [
                    (
                        "runai-worker-only-field-in-master",
                        "/masterSpec/numWorkers",
                        "worker-only field numWorkers 2 is in masterSpec",
                    ),
                    (
                        "runai-worker-only-field-in-master",
                        "/masterSpec/cleanPodPolicy",
                        'worker-only field cleanPodPolicy "All" is in masterSpec',
                    ),
                ],
            )
        ],
    ),
    "runai-max-replicas-below-min": (
        RUNAI,
        [
            {"spec": {"distributedFramework": "PyTorch", "minReplicas": 2, "maxReplicas": 2}},
            {"spec": {"distributedFramework": "PyTorch", "minReplicas": True, "maxReplicas": 0}},
            {"spec": {"distributedFramework": "PyTorch", "minReplicas": "4", "maxReplicas": 2}},
        ],
        [
            (
                {"spec": {"distributedFramework": "PyTorch", "minReplicas": 4, "maxReplicas": 2}},
                [
                    (
                        "runai-max-replicas-below-min",
                        "/spec/maxReplicas",
                        "maxReplicas 2 is below minReplicas 4",
                    )
                ],
            )
        ],
    ),
    "runai-mpi-field-with-other-framework": (
        RUNAI,
        [
            {"spec": {"distributedFramework": "MPI", "slotsPerWorker": 2, "sshAuthMountPath": "/root/.ssh"}},
            {"spec": {"slotsPerWorker": 2}},
            {"spec": {"distributedFramework": None, "slotsPerWorker": 2}},
        ],
        [
            (
                {
                    "spec": {
                        "distributedFramework": "PyTorch",
                        "slotsPerWorker": 1,
                        "sshAuthMountPath": "/root/.ssh",
                        "mpiLauncherCreationPolicy": None,
                    }
                },
                [
                    (
                        "runai-mpi-field-with-other-framework",
                        "/spec/slotsPerWorker",
                        'slotsPerWorker 1 applies only to MPI, not distributedFramework "PyTorch"',
                    ),
                    (
                        "runai-mpi-field-with-other-framework",
                        "/spec/sshAuthMountPath",
                        'sshAuthMountPath "/root/.ssh" applies only to MPI, not distributedFramework'
                        ' "PyTorch"',
                    ),
                ],
            )
        ],
    ),
    "runai-pytorch-field-with-other-framework": (
        RUNAI,
        [
            {"spec": {"distributedFramework": "PyTorch", "minReplicas": 1, "maxReplicas": 3}},
            {"spec": {"distributedFramework": "TF", "minReplicas": None, "maxReplicas": None}},
        ],
        [
            (
                {"spec": {"distributedFramework": "TF", "maxReplicas": 3}},
                [
                    (
                        "runai-pytorch-field-with-other-framework",
                        "/spec/maxReplicas",
                        'maxReplicas 3 applies only to PyTorch, not distributedFramework "TF"',
                    )
                ],
            )
        ],
    ),
    "runai-gpu-portion-above-one": (
        RUNAI,
        [
            {"spec": {"compute": {"gpuPortionRequest": 1, "gpuPortionLimit": 1.0}}},
            {"spec": {"compute": {"gpuPortionRequest": True, "gpuPortionLimit": "2"}}},
        ],
        [
            (
                {
                    "spec": {"compute": {"gpuPortionRequest": 0.5, "gpuPortionLimit": 1.5}},
                    "masterSpec": {"compute": {"gpuPortionRequest": 2, "gpuPortionLimit": 2}},
                },
                [
                    (
                        "runai-gpu-portion-above-one",
                        "/spec/compute/gpuPortionLimit",
                        "gpuPortionLimit 1.5 is above 1",
                    ),
                    (
                        "runai-gpu-portion-above-one",
                        "/masterSpec/compute/gpuPortionRequest",
                        "gpuPortionRequest 2 is above 1",
                    ),
                    (
                        "runai-gpu-portion-above-one",
                        "/masterSpec/compute/gpuPortionLimit",
                        "gpuPortionLimit 2 is above 1",
                    ),
                ],
            )
        ],
    ),
    "runai-request-above-limit": (
        RUNAI,
        [
            {
                "spec": {
                    "compute": {
                        "cpuMemoryRequest": "1000M",
                        "cpuMemoryLimit": "1Gi",
                        "cpuCoreRequest": 4,
                        "cpuCoreLimit": None,
                        "gpuMemoryRequest": "lots",
                        "gpuMemoryLimit": "1G",
                        "gpuPortionRequest": 0.5,
                        "gpuPortionLimit": False,
                    }
                }
            },
            {"spec": {"compute": {"cpuMemoryRequest": "1e99999999", "cpuMemoryLimit": "1"}}},
        ],
        [
            (
                {
                    "spec": {
                        "compute": {
                            "cpuCoreRequest": 4,
                            "cpuCoreLimit": 2,
                            "cpuMemoryRequest": "1Gi",
                            "cpuMemoryLimit": "1000M",
                        }
                    },
                    "masterSpec": {
                        "compute": {
                            "gpuPortionRequest": 0.75,
                            "gpuPortionLimit": 0.5,
                            "gpuMemoryRequest": "2G",
                            "gpuMemoryLimit": "1500Mi",
                        }
                    },
                },
                [
                    (
                        "runai-request-above-limit",
                        "/spec/compute/cpuCoreRequest",
                        "cpuCoreRequest 4 is above cpuCoreLimit 2",
                    ),
                    (
                        "runai-request-above-limit",
                        "/spec/compute/cpuMemoryRequest",
                        'cpuMemoryRequest "1Gi" is above cpuMemoryLimit "1000M"',
                    ),
                    (
                        "runai-request-above-limit",
                        "/masterSpec/compute/gpuPortionRequest",
                        "gpuPortionRequest 0.75 is above gpuPortionLimit 0.5",
                    ),
                    (
                        "runai-request-above-limit",
                        "/masterSpec/compute/gpuMemoryRequest",
                        'gpuMemoryRequest "2G" is above gpuMemoryLimit "1500Mi"',
                    ),
                ],
            )
        ],
    ),
    "runai-deleted-before-created": (
        RUNAI,
        [
            {"createdAt": "2022-01-01T03:49:52.531Z", "deletedAt": "2022-01-01T03:49:52.531Z"},
            {"createdAt": "2022-01-01T03:49:52.531Z", "deletedAt": None},
            {"createdAt": "2022-01-02T00:00:00", "deletedAt": "2022-01-01T00:00:00Z"},
            {"createdAt": "yesterday", "deletedAt": "2022-01-01T00:00:00Z"},
        ],
        [
            (
                {"createdAt": "2022-01-01T04:00:00+01:00", "deletedAt": "2022-01-01T02:59:59Z"},
                [
                    (
                        "runai-deleted-before-created",
                        "/deletedAt",
                        'deletedAt "2022-01-01T02:59:59Z" is earlier than'
                        ' createdAt "2022-01-01T04:00:00+01:00"',
                    )
                ],
            )
        ],
    ),
    "runai-name-not-from-requested-name": (
        RUNAI,
        [
            {"name": "train-x7k2p", "requestedName": "train"},
            {"name": "train", "requestedName": "train"},
            {"name": "train", "requestedName": None},
        ],
        [
            (
                {"name": "my-workload-name", "requestedName": "string"},
                [
                    (
                        "runai-name-not-from-requested-name",
                        "/name",
                        'name "my-workload-name" does not start with requestedName "string"',
                    )
                ],
            )
        ],
    ),
    "aihc-total-items-mismatch": (
        DETAIL,
        [detail(pods_ok(2)), detail([], podList={"listMeta": {"totalItems": 0}, "pods": []})],
        [
            (
                detail(pods_ok(2), podList={"listMeta": {"totalItems": 3}, "pods": pods_ok(2)}),
                [
                    (
                        "aihc-total-items-mismatch",
                        "/result/podList/listMeta/totalItems",
                        "totalItems 3 differs from the number of pods listed, 2",
                    )
                ],
            )
        ],
    ),
    "aihc-duplicate-pod-name": (
        DETAIL,
        [detail(pods_ok(3))],
        [
            (
                detail([pod("a", "4", "0"), pod("b", "4", "1"), pod("a", "4", "2"), pod("a", "4", "3")]),
                [
                    (
                        "aihc-duplicate-pod-name",
                        "/result/podList/pods/2/objectMeta/name",
                        'pod name "a" repeats the name of pod 0',
                    ),
                    (
                        "aihc-duplicate-pod-name",
                        "/result/podList/pods/3/objectMeta/name",
                        'pod name "a" repeats the name of pod 0',
                    ),
                ],
            )
        ],
    ),
    "aihc-world-size-mismatch": (
        DETAIL,
        [
            detail(pods_ok(2)),
            detail([pod("a"), pod("b")]),
            detail([pod("a", "two"), pod("b", "2")]),
        ],
        [
            (
                detail([pod("a", "3", "0"), pod("b", "2", "1"), pod("c", "3", "2")]),
                [
                    (
                        "aihc-world-size-mismatch",
                        pod_env_value(1, 1),
                        "WORLD_SIZE 2 differs from 3, the value most pods have",
                    )
                ],
            ),
            (
                detail([pod("a", "1", "0"), pod("b", "2", "1")]),
                [
                    (
                        "aihc-world-size-mismatch",
                        pod_env_value(1, 1),
                        "WORLD_SIZE 2 differs from 1, the value most pods have",
                    )
                ],
            ),
            (
                detail([pod("a", "2", "0"), pod("b", "2", "1"), pod("c", "2", "2")]),
                [
                    (
                        "aihc-world-size-mismatch",
                        pod_env_value(0, 1),
                        "WORLD_SIZE 2 differs from the number of pods, 3",
                    )
                ],
            ),
        ],
    ),
    "aihc-rank-not-permutation": (
        DETAIL,
        [
            detail([pod("a", "2", "1"), pod("b", "2", "0")]),
            detail([pod("a", "2", "x"), pod("b", "2", "0")]),
            detail([repeated_rank("a", "5", "1"), pod("b", "2", "0")]),  # the last RANK counts
        ],
        [
            (
                detail([repeated_rank("a", "1", "9"), pod("b", "2", "0")]),
                [
                    (
                        "aihc-rank-not-permutation",
                        pod_env_value(0, 3),
                        "RANK 9 is outside 0..1 (2 pods define RANK)",
                    )
                ],
            ),
            (
                detail([pod("a", "3", "0"), pod("b", "3", "0"), pod("c", "3", "5")]),
                [
                    ("aihc-rank-not-permutation", pod_env_value(1, 2), "RANK 0 is repeated"),
                    (
                        "aihc-rank-not-permutation",
                        pod_env_value(2, 2),
                        "RANK 5 is outside 0..2 (3 pods define RANK)",
                    ),
                ],
            ),
        ],
    ),
    "aihc-jobid-label-mismatch": (
        DETAIL,
        [
            detail(pods_ok(1), labels=[{"key": "team", "value": "x"}, {"key": JOB_ID_KEY, "value": JOB}]),
            detail(pods_ok(1), jobId=None, labels=[{"key": JOB_ID_KEY, "value": "other"}]),
        ],
        [
            (
                detail(
                    [pod("a", "2", "0"), pod("b", "2", "1", annotations={JOB_ID_KEY: "mpijob-1"})],
                    labels=[{"key": JOB_ID_KEY, "value": "other"}],
                ),
                [
                    (
                        "aihc-jobid-label-mismatch",
                        "/result/labels/0/value",
                        f'{JOB_ID_KEY} "other" differs from jobId "{JOB}"',
                    ),
                    (
                        "aihc-jobid-label-mismatch",
                        "/result/podList/pods/1/objectMeta/annotations/aijob.cce.baidubce.com~1openapi-jobid",
                        f'{JOB_ID_KEY} "mpijob-1" differs from jobId "{JOB}"',
                    ),
                ],
            )
        ],
    ),
    "aihc-terminal-without-finished-at": (
        DETAIL,
        [
            detail(pods_ok(1), status="Failed", finishedAt="2024-07-16T18:00:00Z"),
            detail(pods_ok(1), status="Created"),
        ],
        [
            (
                detail(pods_ok(1), status="Failed"),
                [
                    (
                        "aihc-terminal-without-finished-at",
                        "/result/finishedAt",
                        'status "Failed" is terminal but finishedAt is empty',
                    )
                ],
            ),
            (
                {"requestId": "r", "result": {"status": "ManualTermination"}},
                [
                    (
                        "aihc-terminal-without-finished-at",
                        "/result",
                        'status "ManualTermination" is terminal but finishedAt is missing',
                    )
                ],
            ),
        ],
    ),
    "aihc-running-with-finished-at": (
        DETAIL,
        [detail(pods_ok(1)), detail(pods_ok(1), status="Succeeded", finishedAt="2024-07-16T18:00:00Z")],
        [
            (
                detail(pods_ok(1), finishedAt="2024-07-16T18:00:00Z"),
                [
                    (
                        "aihc-running-with-finished-at",
                        "/result/finishedAt",
                        'status "Running" but finishedAt is "2024-07-16T18:00:00Z", not empty',
                    )
                ],
            )
        ],
    ),
    "aihc-negative-quantity": (
        DETAIL,
        [detail(pods_ok(1), resources=[{"name": "cpu", "quantity": 0}, {"name": "gpu", "quantity": True}])],
        [
            (
                detail(
                    pods_ok(1),
                    resources=[{"name": "cpu", "quantity": 1.1}, {"name": "nvidia.com/gpu", "quantity": -1}],
                ),
                [
                    (
                        "aihc-negative-quantity",
                        "/result/resources/1/quantity",
                        'quantity -1 of "nvidia.com/gpu" is negative',
                    )
                ],
            )
        ],
    ),
    "aihc-raw-negative-resource": (
        RAW,
        [{"jobSpec": {"Master": {"resource": {"cpu": 1, "rdma/hca": 0}}, "Worker": None}}],
        [
            (
                {"jobSpec": {"Master": {"resource": {"cpu": 1, "rdma/hca": -1}}}},
                [
                    (
                        "aihc-raw-negative-resource",
                        "/jobSpec/Master/resource/rdma~1hca",
                        '"Master" resource "rdma/hca" is -1, below 0',
                    )
                ],
            )
        ],
    ),
}

CASES |= V2_CASES

PASSING = [
    pytest.param(rule_id, schema, payload, id=f"{rule_id}-{n}")
    for rule_id, (schema, passing, _) in CASES.items()
    for n, payload in enumerate(passing)
]
FAILING = [
    pytest.param(schema, payload, expected, id=f"{rule_id}-{n}")
    for rule_id, (schema, _, failing) in CASES.items()
    for n, (payload, expected) in enumerate(failing)
]


@pytest.mark.parametrize(("rule_id", "schema", "payload"), PASSING)
def test_rule_passes(rule_id: str, schema: str, payload: Any) -> None:
    assert [finding for finding in findings(schema, payload) if finding[0] == rule_id] == []


@pytest.mark.parametrize(("schema", "payload", "expected"), FAILING)
def test_rule_fails_with_exact_findings(schema: str, payload: Any, expected: list[Finding]) -> None:
    assert findings(schema, payload) == expected


@pytest.mark.parametrize(("schema", "payload", "expected"), FAILING)
def test_the_quiet_test_never_hides_a_case_that_fails(
    schema: str, payload: Any, expected: list[Finding]
) -> None:
    check_quiet(schema, payload)


@pytest.mark.parametrize(("rule_id", "schema", "payload"), PASSING)
def test_the_quiet_test_agrees_on_the_cases_that_pass(rule_id: str, schema: str, payload: Any) -> None:
    check_quiet(schema, payload)


@pytest.mark.parametrize("schema", [RUNAI, DETAIL])
def test_the_quiet_test_covers_every_rule_and_passes_clean_captures(schema: str) -> None:
    found = quiet_test(schema)
    assert found is not None
    test, covers = found
    assert covers == {item.id for item in all_rules() if item.schema == schema}
    clean = []
    for path in sorted((CAPTURES / schema).glob("*.json")):
        payload = load_json(path)
        if not run_every_rule(schema, payload) and payload.get("deletedAt") is None:
            clean.append(path.name)
            assert test(payload), path.name
    assert clean


def test_every_rule_has_cases() -> None:
    assert {item.id for item in all_rules()} == set(CASES)
    for rule_id, (schema, passing, failing) in CASES.items():
        assert passing and failing, rule_id
        assert next(item for item in all_rules() if item.id == rule_id).schema == schema


def test_rule_ids_are_unique_lowercase_and_prefixed() -> None:
    ids = [item.id for item in all_rules()]
    assert len(ids) == len(set(ids))
    for item in all_rules():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", item.id), item.id
        assert item.id.startswith(item.schema.split("-")[0] + "-"), item.id
        assert item.schema in RULE_SCHEMAS


def test_every_rule_has_a_one_line_description() -> None:
    for item in all_rules():
        assert item.description.strip() and "\n" not in item.description, item.id
        assert item.severity in ("error", "warning")


def test_official_runai_example_yields_only_the_expected_warnings() -> None:
    result = list(run(RUNAI, official_example(RUNAI)))
    assert {item.severity for item, _, _ in result} == {"warning"}
    assert [(item.id, from_path(tokens)) for item, tokens, _ in result] == [
        ("runai-master-spec-with-same-as-worker", "/masterSpec"),
        ("runai-name-not-from-requested-name", "/name"),
        ("runai-pytorch-field-with-other-framework", "/spec/minReplicas"),
        ("runai-pytorch-field-with-other-framework", "/spec/maxReplicas"),
    ]


@pytest.mark.parametrize("schema", [DETAIL, RAW])
def test_official_aihc_examples_yield_nothing(schema: str) -> None:
    assert findings(schema, official_example(schema)) == []


def test_messages_never_show_other_environment_values() -> None:
    broken = detail([pod("a", "9", "7"), pod("a", "1", "7")], status="Failed", labels=[{"key": JOB_ID_KEY}])
    messages = [message for _, _, message in findings(DETAIL, broken)]
    assert len(messages) >= 4
    assert not any(SECRET in message for message in messages)


def test_non_object_payloads_get_no_findings() -> None:
    for schema in RULE_SCHEMAS:
        for payload in (None, [], "x", 3, True):
            assert findings(schema, payload) == []


def test_rules_survive_extreme_values() -> None:
    deep: list[Any] = []
    for _ in range(3000):
        deep = [deep]
    compute = {"cpuMemoryRequest": "9" * 5000 + "Gi", "cpuMemoryLimit": "1", "gpuMemoryRequest": "1e99999999"}
    spec = {"distributedFramework": "TF", "minReplicas": 10**5000, "maxReplicas": 1, "slotsPerWorker": deep}
    payload = {
        "spec": {**spec, "compute": {**compute, "gpuMemoryLimit": "0"}},
        "name": "a\ud800",
        "requestedName": "b",
    }
    assert findings(RUNAI, payload) == [
        ("runai-max-replicas-below-min", "/spec/maxReplicas", "maxReplicas 1 is below minReplicas <integer>"),
        (
            "runai-mpi-field-with-other-framework",
            "/spec/slotsPerWorker",
            'slotsPerWorker <array> applies only to MPI, not distributedFramework "TF"',
        ),
        (
            "runai-name-not-from-requested-name",
            "/name",
            'name "a\\ud800" does not start with requestedName "b"',
        ),
        (
            "runai-pytorch-field-with-other-framework",
            "/spec/minReplicas",
            'minReplicas <integer> applies only to PyTorch, not distributedFramework "TF"',
        ),
        (
            "runai-pytorch-field-with-other-framework",
            "/spec/maxReplicas",
            'maxReplicas 1 applies only to PyTorch, not distributedFramework "TF"',
        ),
    ]
    ranks = detail([pod("a", "1" * 5000, "2" * 5000)])
    assert findings(DETAIL, ranks) == []


def test_long_values_are_shortened() -> None:
    payload = {"name": "n", "requestedName": "r" * 100}
    [(_, _, message)] = findings(RUNAI, payload)
    assert message == f'name "n" does not start with requestedName "{"r" * 58}…'


# ---- robustness: no rule raises, whatever the payload --------------------------------------------

KEYS = sorted(
    {
        "masterSpec", "masterSpecSameAsWorker", "spec", "compute", "name", "requestedName", "createdAt",
        "deletedAt", "distributedFramework", "numWorkers", "minReplicas", "maxReplicas", "slotsPerWorker",
        "sshAuthMountPath", "mpiLauncherCreationPolicy", "cleanPodPolicy", "segmentSize",
        "gpuPortionRequest", "gpuPortionLimit", "cpuCoreRequest", "cpuCoreLimit", "cpuMemoryRequest",
        "cpuMemoryLimit", "gpuMemoryRequest", "gpuMemoryLimit", "result", "podList", "listMeta",
        "totalItems", "pods", "objectMeta", "labels", "annotations", "envs", "value", "key", "jobId",
        "status", "finishedAt", "resources", "quantity", "jobSpec", "resource", JOB_ID_KEY,
    }
)  # fmt: skip
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(
        [
            "MPI",
            "PyTorch",
            "Running",
            "Failed",
            "",
            "WORLD_SIZE",
            "RANK",
            "2",
            "-1",
            "1Gi",
            "1e99999",
            "2022-01-01T00:00:00Z",
        ]
    )
)
JSON = st.recursive(
    LEAVES,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), children, max_size=5)
    ),
    max_leaves=25,
)


def check_findings(schema: str, payload: Any) -> None:
    """Run every rule of ``schema``; each finding must be one line and point into ``payload``; the
    quiet test never hides one."""
    for item, tokens, message in run(schema, payload):
        assert item.schema == schema
        assert "\n" not in message and message
        value_at(payload, tokens)
    check_quiet(schema, payload)


def check_quiet(schema: str, payload: Any) -> None:
    """The quiet test of ``schema`` says True only when none of the rules it covers finds anything,
    and :func:`run` finds what every rule finds."""
    assert list(run(schema, payload)) == run_every_rule(schema, payload)
    found = quiet_test(schema)
    if found is not None and isinstance(payload, dict):
        test, covers = found
        if test(copy.deepcopy(payload)):
            assert [item.id for item, _, _ in run_every_rule(schema, payload) if item.id in covers] == []


@settings(max_examples=200)
@given(JSON)
def test_rules_never_raise_on_arbitrary_json(payload: Any) -> None:
    for schema in RULE_SCHEMAS:
        check_findings(schema, payload)


#: Values a pod's rank variable, name or job-id mark may hold: the canonical ones and their near
#: misses (another spelling of the same integer, no integer, another type, null).
NEAR = st.sampled_from(["0", "1", "2", "3", "02", "+1", "-1", " 1", "1.0", "", "x", None, 1, True, [], {}])


def _perturbed_pods(data: st.DataObject) -> list[Any]:
    """Pods the rules find nothing in, then up to three of their values made a near miss: a rank
    variable, name or job-id mark changed, removed, repeated earlier or later, or its container
    made another type."""
    count = data.draw(st.integers(0, 4))
    pods: list[Any] = pods_ok(count)
    for _ in range(data.draw(st.integers(0, 3))):
        whole = [item for item in pods if isinstance(item, dict) and isinstance(item.get("envs"), list)]
        if not whole:
            break
        target = data.draw(st.sampled_from(whole))
        envs, meta = target["envs"], target["objectMeta"]
        variable = data.draw(st.sampled_from(["WORLD_SIZE", "RANK"]))
        edit = data.draw(st.integers(0, 8))
        if edit == 0:
            envs.append({"name": variable, "value": data.draw(NEAR)})  # a later one wins
        elif edit == 1:
            envs.insert(0, {"name": variable, "value": data.draw(NEAR)})  # an earlier one loses
        elif edit == 2:
            target["envs"] = [env for env in envs if not isinstance(env, dict) or env.get("name") != variable]
        elif edit == 3:
            envs.append({"name": variable})  # no value
        elif edit == 4:
            meta["name"] = data.draw(NEAR | st.sampled_from([m["objectMeta"]["name"] for m in whole]))
        elif edit == 5:
            section = data.draw(st.sampled_from(["labels", "annotations"]))
            meta[section] = data.draw(st.sampled_from([{}, {JOB_ID_KEY: "other"}, [], None]))
        elif edit == 6:
            envs.append(data.draw(NEAR))  # an env that is not an object
        elif edit == 7:
            target["envs"] = data.draw(NEAR)
        else:
            pods[pods.index(target)] = data.draw(NEAR)
    return pods


@settings(max_examples=300)
@given(st.data())
def test_the_pod_quiet_test_never_hides_a_near_miss(data: st.DataObject) -> None:
    """The AIHC quiet test reads the pods in the shape AIHC answers with and must say False on any
    near miss the rules find something in (it may say False where they find nothing)."""
    check_quiet(DETAIL, detail(_perturbed_pods(data)))


def test_the_pod_quiet_test_is_quiet_on_canonical_pods() -> None:
    found = quiet_test(DETAIL)
    assert found is not None
    for count in range(6):
        assert found[0](detail(pods_ok(count))), count


def paths(node: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path below the root of a JSON document."""
    children: list[tuple[str | int, Any]] = []
    if isinstance(node, dict):
        children = list(node.items())
    elif isinstance(node, list):
        children = list(enumerate(node))
    found: list[tuple[str | int, ...]] = []
    for key, child in children:
        found += [(*prefix, key), *paths(child, (*prefix, key))]
    return found


def replaced(document: Any, path: tuple[str | int, ...], value: Any) -> Any:
    """A copy of ``document`` with the node at ``path`` replaced, or unchanged when ``path`` is gone."""
    result = copy.deepcopy(document)
    node = result
    try:
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    except (KeyError, IndexError, TypeError):
        return document
    return result


BASES = [
    (RUNAI, official_example(RUNAI)),
    (DETAIL, official_example(DETAIL)),
    (DETAIL, detail(pods_ok(3), labels=[{"key": JOB_ID_KEY, "value": JOB}])),
    (RAW, official_example(RAW)),
]


@settings(max_examples=200)
@given(st.data())
def test_rules_never_raise_on_examples_with_random_subtrees(data: st.DataObject) -> None:
    schema, payload = data.draw(st.sampled_from(BASES))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths(payload)))
        payload = replaced(payload, path, data.draw(JSON))
    check_findings(schema, payload)


@given(
    st.one_of(
        st.text(alphabet="0123456789+- ٣²", max_size=22),
        st.integers(-(10**20), 10**20).map(str),
        st.text(max_size=6),
    )
)
def test_the_integer_shortcut_reads_rank_variables_as_the_pattern_does(value: str) -> None:
    from jobschema.validate.rules import aihc

    assert aihc._is_integer(value) == (aihc._INTEGER.fullmatch(value) is not None)


def test_each_schemas_rules_are_loaded_from_the_module_the_table_names() -> None:
    """``MODULES`` says which module holds each bundled schema's rules and quiet test, so a
    check loads only those; every rule and quiet test must live where the table says."""
    for rule in all_rules():
        assert rule.check.__module__ == f"jobschema.validate.rules.{MODULES[rule.schema]}", rule.id
    for schema in MODULES:
        found = quiet_test(schema)
        if found is not None:
            assert found[0].__module__ == f"jobschema.validate.rules.{MODULES[schema]}", schema
    assert {schema for schema, module in MODULES.items() if module} == {rule.schema for rule in all_rules()}
    assert set(MODULES) == set(BUNDLED)  # (a schema without rules is listed too: it loads none)


def test_checking_one_schema_loads_only_its_rules() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from jobschema.validate import rules\n"
        "list(rules.run('runai-error', {'code': 1}))\n"
        "list(rules.run('runai-distributed-workload', {'name': 'x'}))\n"
        "loaded = [m for m in sys.modules if m.startswith('jobschema.validate.rules.')]\n"
        "print(sorted(m.rsplit('.', 1)[1] for m in loaded))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "['runai']"
