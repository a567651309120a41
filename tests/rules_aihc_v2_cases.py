"""The cases of the AIHC v2 rules (aihc-v2-*): payloads each rule passes, and payloads it fails with
the exact findings of every rule they yield. tests/test_rules.py runs them with the others.

Every case is one running job (:func:`answer`) with the fields it is about written out."""

from __future__ import annotations

from typing import Any

V2 = "aihc-v2-job"

#: A running two-replica job, as the Python SDK reads it (under ``job``).
JOB: dict[str, Any] = {
    "jobid": "job-k3m9xq2vw7tz",
    "name": "sft",
    "status": "Running",
    "createdAt": "2026-07-04T08:00:03Z",
    "finishedAt": "",
    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
}


def answer(**job: Any) -> dict[str, Any]:
    """A DescribeJob answer: :data:`JOB` with ``job``'s fields in its place (new ones after it)."""
    return {"requestId": "r-1", "job": {**JOB, **job}}


def pod(name: str, uid: str, status: str = "Running", restarts: int = 0) -> dict[str, Any]:
    return {"name": name, "status": status, "restartCount": restarts, "uid": uid}


def pods(*restarts: int) -> list[dict[str, Any]]:
    """The job's master and workers, ``restarts`` each (uids ``u0``, ``u1``, ...)."""
    names = ["sft-master-0", *(f"sft-worker-{index}" for index in range(len(restarts) - 1))]
    return [
        pod(name, f"u{index}", restarts=count)
        for index, (name, count) in enumerate(zip(names, restarts, strict=True))
    ]


def found(rule: str, pointer: str, message: str) -> list[tuple[str, str, str]]:
    return [(rule, pointer, message)]


V2_CASES: dict[str, tuple[str, list[Any], list[tuple[Any, list[tuple[str, str, str]]]]]] = {
    "aihc-v2-duplicate-pod-name": (
        V2,
        [answer(pods=pods(0, 0))],
        [
            (
                answer(Job={"replicas": 2}, pods=[pod("a", "1"), pod("a", "2")]),
                found(
                    "aihc-v2-duplicate-pod-name", "/job/pods/1/name", 'pod name "a" repeats the name of pod 0'
                ),
            )
        ],
    ),
    "aihc-v2-fractional-quantity": (
        V2,
        [answer()],
        [
            (
                answer(Job={"replicas": 1, "resources": [{"name": "cpu", "quantity": 0.5}]}),
                found(
                    "aihc-v2-fractional-quantity",
                    "/job/Job/resources/0/quantity",
                    'quantity 0.5 of "cpu" is a fraction; both SDKs read an integer (v1 sends numbers)',
                ),
            )
        ],
    ),
    "aihc-v2-history-pod-uid-reused": (
        V2,
        [answer(pods=pods(0, 0), historyPods=[pod("sft-worker-0", "old", "Failed")])],
        [
            (
                answer(pods=pods(0, 0), historyPods=[pod("sft-worker-0", "u1", "Failed")]),
                found(
                    "aihc-v2-history-pod-uid-reused",
                    "/job/historyPods/0/uid",
                    'uid "u1" is also a current pod\'s: a replaced pod gets a new uid',
                ),
            )
        ],
    ),
    "aihc-v2-negative-quantity": (
        V2,
        [answer()],
        [
            (
                answer(Job={"replicas": 1, "resources": [{"name": "memory", "quantity": -1}]}),
                found(
                    "aihc-v2-negative-quantity",
                    "/job/Job/resources/0/quantity",
                    'quantity -1 of "memory" is negative',
                ),
            )
        ],
    ),
    "aihc-v2-null-member": (
        V2,
        [answer(), answer(labels=[]), answer(gpuUtilizationPercent=None)],  # (undeclared: not read)
        [
            (
                answer(
                    finishedAt=None, Job={"image": None, "replicas": 1}, pods=[{"name": "p", "uid": None}]
                ),
                [
                    (
                        "aihc-v2-null-member",
                        "/job/finishedAt",
                        '"finishedAt" is null; both SDKs read a null member as absent (they skip None)',
                    ),
                    (
                        "aihc-v2-null-member",
                        "/job/Job/image",
                        '"image" is null; both SDKs read a null member as absent (they skip None)',
                    ),
                    (
                        "aihc-v2-null-member",
                        "/job/pods/0/uid",
                        '"uid" is null; both SDKs read a null member as absent (they skip None)',
                    ),
                ],
            ),
            (
                answer(status="Failed", finishedAt=None, jobSpec=None),
                [
                    (
                        "aihc-v2-null-member",
                        "/job/finishedAt",
                        '"finishedAt" is null; both SDKs read a null member as absent (they skip None)',
                    ),
                    (
                        "aihc-v2-null-member",
                        "/job/jobSpec",
                        '"jobSpec" is null; both SDKs read a null member as absent (they skip None)',
                    ),
                    (
                        "aihc-v2-terminal-without-finished-at",
                        "/job",
                        'status "Failed" is terminal but finishedAt is missing',
                    ),
                ],
            ),
        ],
    ),
    "aihc-v2-pods-exceed-replicas": (
        V2,
        [answer(pods=pods(0, 0))],
        [
            (
                answer(pods=pods(0, 0, 0)),
                found(
                    "aihc-v2-pods-exceed-replicas",
                    "/job/Job/replicas",
                    "3 pods are listed, more than replicas 2",
                ),
            )
        ],
    ),
    "aihc-v2-restarting-without-restarts": (
        V2,
        [answer(status="Restarting", pods=pods(1, 0))],
        [
            (
                answer(status="Restarting", pods=pods(0, 0)),
                found(
                    "aihc-v2-restarting-without-restarts",
                    "/job/status",
                    'status "Restarting" but no pod has restarted (every restartCount is 0) '
                    "and historyPods is empty",
                ),
            )
        ],
    ),
    "aihc-v2-running-with-finished-at": (
        V2,
        [answer()],
        [
            (
                answer(finishedAt="2026-07-04T09:00:00Z"),
                found(
                    "aihc-v2-running-with-finished-at",
                    "/job/finishedAt",
                    'status "Running" but finishedAt is "2026-07-04T09:00:00Z", not empty',
                ),
            )
        ],
    ),
    "aihc-v2-spelling": (
        V2,
        [answer()],
        [
            (
                {"requestId": "r", "jobId": "job-x", "name": "n", "status": "Running", "queueId": "q"},
                [
                    (
                        "aihc-v2-spelling",
                        "",
                        "the job's fields beside requestId are the documentation's flattened shape; "
                        'both SDKs read the job under "job"',
                    ),
                    (
                        "aihc-v2-spelling",
                        "/jobId",
                        '"jobId" is the documentation\'s spelling; the Python SDK reads "jobid"',
                    ),
                    (
                        "aihc-v2-spelling",
                        "/queueId",
                        '"queueId" is the documentation\'s spelling; the Python SDK reads "queue"',
                    ),
                ],
            )
        ],
    ),
    "aihc-v2-terminal-without-finished-at": (
        V2,
        [answer(status="Succeeded", finishedAt="2026-07-04T09:00:00Z")],
        [
            (
                answer(status="Succeeded"),
                found(
                    "aihc-v2-terminal-without-finished-at",
                    "/job/finishedAt",
                    'status "Succeeded" is terminal but finishedAt is empty',
                ),
            )
        ],
    ),
    "aihc-v2-timeline-order": (
        V2,
        [
            answer(
                jobTimeLine=[
                    {"conditionType": "Created", "time": "2026-07-04T08:00:03Z"},
                    {"conditionType": "Running", "time": "2026-07-04T08:01:00Z"},
                ]
            )
        ],
        [
            (
                answer(
                    jobTimeLine=[
                        {"conditionType": "Running", "time": "2026-07-04T08:01:00Z"},
                        {"conditionType": "Created", "time": "2026-07-04T08:00:03Z"},
                    ]
                ),
                found(
                    "aihc-v2-timeline-order",
                    "/job/jobTimeLine/1/time",
                    'time "2026-07-04T08:00:03Z" is earlier than entry 0\'s',
                ),
            )
        ],
    ),
}
