"""Run:ai distributed workloads (``/api/v1/workloads/distributed``): facts the schema cannot say."""

from __future__ import annotations

import re
from typing import Any

WORKLOAD_SCHEMA = "runai-distributed-workload"
ERROR_SCHEMA = "runai-error"
#: ``GET /api/v1/workloads/distributed/{workloadId}``
WORKLOAD_PATH = re.compile(r"^/api/v1/workloads/distributed/[^/]+/?$")

#: Fields of the worker ``spec`` that ``masterSpec`` does not have.
WORKER_ONLY_FIELDS = (
    "distributedFramework",
    "numWorkers",
    "minReplicas",
    "maxReplicas",
    "slotsPerWorker",
    "cleanPodPolicy",
    "sshAuthMountPath",
    "mpiLauncherCreationPolicy",
    "segmentSize",
)
MPI_ONLY_FIELDS = ("slotsPerWorker", "sshAuthMountPath", "mpiLauncherCreationPolicy")
PYTORCH_ONLY_FIELDS = ("minReplicas", "maxReplicas")
#: Deprecated on masterSpec since Dec 2025: set once on spec for the whole job. A master that does not
#: set them (every current capture) runs with spec's values.
JOB_WIDE_FIELDS = (
    "backoffLimit",
    "autoDeletionTimeAfterCompletionSeconds",
    "terminationGracePeriodSeconds",
    "priorityClass",
)
#: ``compute`` requests and their limits: plain numbers, and Kubernetes quantities.
NUMBER_LIMITS = (("gpuPortionRequest", "gpuPortionLimit"), ("cpuCoreRequest", "cpuCoreLimit"))
QUANTITY_LIMITS = (("cpuMemoryRequest", "cpuMemoryLimit"), ("gpuMemoryRequest", "gpuMemoryLimit"))

#: The ``desiredPhase`` of a workload being deleted: once it answers 404 it is gone for good.
DELETED = "Deleted"
#: The routes a client calls: the token request, one workload's detail, and the cluster it runs on.
TOKEN_PATH = "/api/v1/token"
WORKLOAD_URL = "/api/v1/workloads/distributed/{workload_id}"
CLUSTER_URL = "/api/v1/clusters/{cluster_id}"
#: ``GET /api/v1/clusters/{clusterId}``: its answer's ``version`` is the control plane's (``2.19.3``).
CLUSTER_PATH = re.compile(r"^/api/v1/clusters/([^/]+)/?$")
#: The token request's grants a recorder can send (``client_credentials``; the legacy ``app_token``).
GRANTS = ("client_credentials", "app_token")


def job_id(value: Any) -> str | None:
    """The ``workloadId`` of a workload body (None when it has none)."""
    found = value.get("workloadId") if isinstance(value, dict) else None
    return found if isinstance(found, str) and found else None


def cluster_id(value: Any) -> str | None:
    """The ``clusterId`` of a workload body, lower case (None when it has none)."""
    found = value.get("clusterId") if isinstance(value, dict) else None
    return found.lower() if isinstance(found, str) and found else None


def cluster_version(value: Any) -> str | None:
    """The ``version`` of a cluster answer (``2.19.3``; None when it has none)."""
    found = value.get("version") if isinstance(value, dict) else None
    return found.strip() if isinstance(found, str) and found.strip() else None


def phase(value: Any) -> str | None:
    """The ``actualPhase`` of a workload body (None when it has none)."""
    found = value.get("actualPhase") if isinstance(value, dict) else None
    return found if isinstance(found, str) else None
