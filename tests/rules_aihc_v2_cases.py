"""The cases of the AIHC v2 rules (aihc-v2-*): payloads each rule passes, and payloads it fails with
the exact findings of every rule they yield. tests/test_rules.py runs them with the others."""

from __future__ import annotations

from typing import Any

V2 = "aihc-v2-job"

V2_CASES: dict[str, tuple[str, list[Any], list[tuple[Any, list[tuple[str, str, str]]]]]] = {
    "aihc-v2-duplicate-pod-name": (
        V2,
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Running",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                    "pods": [
                        {"name": "sft-master-0", "status": "Running", "restartCount": 0, "uid": "u0"},
                        {"name": "sft-worker-0", "status": "Running", "restartCount": 0, "uid": "u1"},
                    ],
                },
            }
        ],
        [
            (
                {
                    "requestId": "r-1",
                    "job": {
                        "jobid": "job-k3m9xq2vw7tz",
                        "name": "sft",
                        "status": "Running",
                        "createdAt": "2026-07-04T08:00:03Z",
                        "finishedAt": "",
                        "Job": {"replicas": 2},
                        "pods": [
                            {"name": "a", "status": "Running", "restartCount": 0, "uid": "1"},
                            {"name": "a", "status": "Running", "restartCount": 0, "uid": "2"},
                        ],
                    },
                },
                [
                    (
                        "aihc-v2-duplicate-pod-name",
                        "/job/pods/1/name",
                        'pod name "a" repeats the name of pod 0',
                    )
                ],
            )
        ],
    ),
    "aihc-v2-fractional-quantity": (
        V2,
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Running",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                },
            }
        ],
        [
            (
                {
                    "requestId": "r-1",
                    "job": {
                        "jobid": "job-k3m9xq2vw7tz",
                        "name": "sft",
                        "status": "Running",
                        "createdAt": "2026-07-04T08:00:03Z",
                        "finishedAt": "",
                        "Job": {"replicas": 1, "resources": [{"name": "cpu", "quantity": 0.5}]},
                    },
                },
                [
                    (
                        "aihc-v2-fractional-quantity",
                        "/job/Job/resources/0/quantity",
                        'quantity 0.5 of "cpu" is a fraction; both SDKs read an integer (v1 sends numbers)',
                    )
                ],
            )
        ],
    ),
    "aihc-v2-history-pod-uid-reused": (
        V2,
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Running",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                    "pods": [
                        {"name": "sft-master-0", "status": "Running", "restartCount": 0, "uid": "u0"},
                        {"name": "sft-worker-0", "status": "Running", "restartCount": 0, "uid": "u1"},
                    ],
                    "historyPods": [
                        {"name": "sft-worker-0", "status": "Failed", "restartCount": 0, "uid": "old"}
                    ],
                },
            }
        ],
        [
            (
                {
                    "requestId": "r-1",
                    "job": {
                        "jobid": "job-k3m9xq2vw7tz",
                        "name": "sft",
                        "status": "Running",
                        "createdAt": "2026-07-04T08:00:03Z",
                        "finishedAt": "",
                        "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                        "pods": [
                            {"name": "sft-master-0", "status": "Running", "restartCount": 0, "uid": "u0"},
                            {"name": "sft-worker-0", "status": "Running", "restartCount": 0, "uid": "u1"},
                        ],
                        "historyPods": [
                            {"name": "sft-worker-0", "status": "Failed", "restartCount": 0, "uid": "u1"}
                        ],
                    },
                },
                [
                    (
                        "aihc-v2-history-pod-uid-reused",
                        "/job/historyPods/0/uid",
                        'uid "u1" is also a current pod\'s: a replaced pod gets a new uid',
                    )
                ],
            )
        ],
    ),
    "aihc-v2-negative-quantity": (
        V2,
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Running",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                },
            }
        ],
        [
            (
                {
                    "requestId": "r-1",
                    "job": {
                        "jobid": "job-k3m9xq2vw7tz",
                        "name": "sft",
                        "status": "Running",
                        "createdAt": "2026-07-04T08:00:03Z",
                        "finishedAt": "",
                        "Job": {"replicas": 1, "resources": [{"name": "memory", "quantity": -1}]},
                    },
                },
                [
                    (
                        "aihc-v2-negative-quantity",
                        "/job/Job/resources/0/quantity",
                        'quantity -1 of "memory" is negative',
                    )
                ],
            )
        ],
    ),
    "aihc-v2-pods-exceed-replicas": (
        V2,
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Running",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                    "pods": [
                        {"name": "sft-master-0", "status": "Running", "restartCount": 0, "uid": "u0"},
                        {"name": "sft-worker-0", "status": "Running", "restartCount": 0, "uid": "u1"},
                    ],
                },
            }
        ],
        [
            (
                {
                    "requestId": "r-1",
                    "job": {
                        "jobid": "job-k3m9xq2vw7tz",
                        "name": "sft",
                        "status": "Running",
                        "createdAt": "2026-07-04T08:00:03Z",
                        "finishedAt": "",
                        "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                        "pods": [
                            {"name": "sft-master-0", "status": "Running", "restartCount": 0, "uid": "u0"},
                            {"name": "sft-worker-0", "status": "Running", "restartCount": 0, "uid": "u1"},
                            {"name": "sft-worker-1", "status": "Running", "restartCount": 0, "uid": "u2"},
                        ],
                    },
                },
                [
                    (
                        "aihc-v2-pods-exceed-replicas",
                        "/job/Job/replicas",
                        "3 pods are listed, more than replicas 2",
                    )
                ],
            )
        ],
    ),
    "aihc-v2-restarting-without-restarts": (
        V2,
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Restarting",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                    "pods": [
                        {"name": "sft-master-0", "status": "Running", "restartCount": 1, "uid": "u0"},
                        {"name": "sft-worker-0", "status": "Running", "restartCount": 0, "uid": "u1"},
                    ],
                },
            }
        ],
        [
            (
                {
                    "requestId": "r-1",
                    "job": {
                        "jobid": "job-k3m9xq2vw7tz",
                        "name": "sft",
                        "status": "Restarting",
                        "createdAt": "2026-07-04T08:00:03Z",
                        "finishedAt": "",
                        "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                        "pods": [
                            {"name": "sft-master-0", "status": "Running", "restartCount": 0, "uid": "u0"},
                            {"name": "sft-worker-0", "status": "Running", "restartCount": 0, "uid": "u1"},
                        ],
                    },
                },
                [
                    (
                        "aihc-v2-restarting-without-restarts",
                        "/job/status",
                        'status "Restarting" but no pod has restarted (every restartCount is 0) '
                        "and historyPods is empty",
                    )
                ],
            )
        ],
    ),
    "aihc-v2-running-with-finished-at": (
        V2,
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Running",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                },
            }
        ],
        [
            (
                {
                    "requestId": "r-1",
                    "job": {
                        "jobid": "job-k3m9xq2vw7tz",
                        "name": "sft",
                        "status": "Running",
                        "createdAt": "2026-07-04T08:00:03Z",
                        "finishedAt": "2026-07-04T09:00:00Z",
                        "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                    },
                },
                [
                    (
                        "aihc-v2-running-with-finished-at",
                        "/job/finishedAt",
                        'status "Running" but finishedAt is "2026-07-04T09:00:00Z", not empty',
                    )
                ],
            )
        ],
    ),
    "aihc-v2-spelling": (
        V2,
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Running",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                },
            }
        ],
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
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Succeeded",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "2026-07-04T09:00:00Z",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                },
            }
        ],
        [
            (
                {
                    "requestId": "r-1",
                    "job": {
                        "jobid": "job-k3m9xq2vw7tz",
                        "name": "sft",
                        "status": "Succeeded",
                        "createdAt": "2026-07-04T08:00:03Z",
                        "finishedAt": "",
                        "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                    },
                },
                [
                    (
                        "aihc-v2-terminal-without-finished-at",
                        "/job/finishedAt",
                        'status "Succeeded" is terminal but finishedAt is empty',
                    )
                ],
            )
        ],
    ),
    "aihc-v2-timeline-order": (
        V2,
        [
            {
                "requestId": "r-1",
                "job": {
                    "jobid": "job-k3m9xq2vw7tz",
                    "name": "sft",
                    "status": "Running",
                    "createdAt": "2026-07-04T08:00:03Z",
                    "finishedAt": "",
                    "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                    "jobTimeLine": [
                        {"conditionType": "Created", "time": "2026-07-04T08:00:03Z"},
                        {"conditionType": "Running", "time": "2026-07-04T08:01:00Z"},
                    ],
                },
            }
        ],
        [
            (
                {
                    "requestId": "r-1",
                    "job": {
                        "jobid": "job-k3m9xq2vw7tz",
                        "name": "sft",
                        "status": "Running",
                        "createdAt": "2026-07-04T08:00:03Z",
                        "finishedAt": "",
                        "Job": {"image": "img", "replicas": 2, "resources": [{"name": "cpu", "quantity": 4}]},
                        "jobTimeLine": [
                            {"conditionType": "Running", "time": "2026-07-04T08:01:00Z"},
                            {"conditionType": "Created", "time": "2026-07-04T08:00:03Z"},
                        ],
                    },
                },
                [
                    (
                        "aihc-v2-timeline-order",
                        "/job/jobTimeLine/1/time",
                        'time "2026-07-04T08:00:03Z" is earlier than entry 0\'s',
                    )
                ],
            )
        ],
    ),
}
