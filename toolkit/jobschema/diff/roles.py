"""``jobschema diff --roles``: the roles inside one payload, compared with each other.

Run:ai: the effective master spec (masterSpec, inheriting the job-wide fields it does not set from
spec) against the worker spec; worker-only fields are listed apart.
AIHC: every pod against the first worker, with the differences every replica is expected to have
(pod name, ``RANK``, replica index, IP, node, role labels, state) folded into counts; and the
``Master`` against the ``Worker`` role of the stored create-job request.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Any

from jobschema.apis.aihc import RAW_REQUEST_ANNOTATION as RAW_REQUEST
from jobschema.apis.runai import JOB_WIDE_FIELDS, WORKER_ONLY_FIELDS
from jobschema.diff.compare import compare, finish, plan_of, schema_of
from jobschema.diff.engine import At
from jobschema.diff.result import Change, DiffOptions, DiffResult, Pair
from jobschema.diff.secrets import as_is, masked_token
from jobschema.inputs.parse import parse_text
from jobschema.pointer import escape
from jobschema.text import plural

#: Per-replica differences every healthy job has (human paths relative to a pod or a replica spec).
EXPECTED = (
    "objectMeta.name",
    "name",  # (an AIHC v2 pod's own name and uid)
    "uid",
    "PodIP",
    "nodeName",
    "replicaType",
    "replicas",
    "envs[name=RANK]",
    'objectMeta.labels["training.kubeflow.org/replica-index"]',
    'objectMeta.labels["training.kubeflow.org/replica-type"]',
    'objectMeta.labels["training.kubeflow.org/job-role"]',
    'objectMeta.annotations["volcano.sh/task-spec"]',
)


def is_expected(change: Change) -> bool:
    """True for a per-replica difference that every job has, and for volatile state."""
    return change.volatile or any(_under(change.path, p) for p in EXPECTED)


def _under(path: str, expected: str) -> bool:
    """``path`` is ``expected`` or below it; ``envs[name=RANK#2]`` (a repeated key's occurrence) is
    below ``envs[name=RANK]`` too."""
    if path == expected or path.startswith((expected + ".", expected + "[")):
        return True
    if not expected.endswith("]") or not path.startswith(expected[:-1] + "#"):
        return False
    rest = path[len(expected) :].lstrip("0123456789")
    return path[len(expected) : len(expected) + 1].isdigit() and (
        rest == "]" or rest.startswith(("].", "]["))
    )


def diff_roles(
    document: Any, *, schema: str | None = None, options: DiffOptions | None = None, label: str = "document"
) -> DiffResult:
    """Compare the roles inside one payload (Run:ai workload, AIHC job detail, v2 job or raw request);
    ``label`` names it in errors (the CLI gives its file)."""
    options = options or DiffOptions()
    name = schema_of(document, schema, label)
    if name == "runai-distributed-workload":
        return _runai(document, name, options, schema)
    if name == "aihc-job-detail":
        return _aihc(document, name, options)
    if name == "aihc-v2-job":
        return _aihc_v2(document, name, options)
    if name == "aihc-raw-request":
        pairs = [p for p in [_raw_roles(document, "", options)] if p is not None]
        return _result(name, pairs)
    from jobschema.diff.documents import DiffInputError

    why = "payloads have no roles to compare (--roles takes a workload or a job)"
    raise DiffInputError(f"{label}: {name} {why}")


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _runai(document: dict[str, Any], name: str, options: DiffOptions, forced: str | None) -> DiffResult:
    spec = _object(document.get("spec"))
    worker_only = {key: spec[key] for key in WORKER_ONLY_FIELDS if key in spec}
    worker = {key: value for key, value in spec.items() if key not in WORKER_ONLY_FIELDS}
    master = document.get("masterSpec")
    plan = plan_of(name, forced).child("spec")
    at = At.root("/masterSpec", "/spec")
    if document.get("masterSpecSameAsWorker") is True or not isinstance(master, dict):
        warnings = _same_as_worker_warnings(document, master, worker, plan, options, at)
        return DiffResult(
            name, (), "roles", worker_only=worker_only, warnings=warnings, extra={"master": "spec"}
        )
    effective = {**{key: worker[key] for key in JOB_WIDE_FIELDS if key in worker}, **master}
    changes = finish(compare(effective, worker, plan, options, at), options)
    pair = Pair("masterSpec", "spec", changes, "/masterSpec", "/spec")
    return DiffResult(
        name, changes, "roles", (pair,), worker_only=worker_only, extra={"master": "masterSpec"}
    )


def _same_as_worker_warnings(
    document: dict[str, Any],
    master: Any,
    worker: dict[str, Any],
    plan: Any,
    options: DiffOptions,
    at: At,
) -> tuple[str, ...]:
    if document.get("masterSpecSameAsWorker") is not True:
        return (
            "masterSpec is absent and masterSpecSameAsWorker is not true: "
            "the master is taken to run the worker spec",
        )
    if not isinstance(master, dict):
        return ()
    drift = finish(compare(master, worker, plan, options, at), options)
    if not drift:
        return ()
    paths = ", ".join(sorted({c.path for c in drift})[:5])
    return (
        f"masterSpecSameAsWorker is true, so the master runs the worker spec, but masterSpec is present and "
        f"differs from spec in {len(drift)} place(s): {paths}",
    )


def _aihc(document: dict[str, Any], name: str, options: DiffOptions) -> DiffResult:
    pod_list = _object(_object(document.get("result")).get("podList"))
    listed = pod_list.get("pods")
    pods = (
        [(i, pod) for i, pod in enumerate(listed) if isinstance(pod, dict)]
        if isinstance(listed, list)
        else []
    )
    pairs = _pod_pairs(pods, name, options)
    raw = next((_raw_pair(pod, i, options) for i, pod in pods if _raw_text(pod)), None)
    found = _result(name, [*pairs, *([raw] if raw else [])])
    if listed is None or isinstance(listed, list):
        return found if raw else _too_few(found, pods, "result.podList.pods")
    kind = type(listed).__name__ if not isinstance(listed, dict) else "an object"
    warning = f"result.podList.pods is {kind}, not an array: there are no pods to compare"
    return replace(found, warnings=(warning, *found.warnings))


def _pod_label(pod: dict[str, Any], index: int, options: DiffOptions) -> str:
    """A pod as a comparison names it: its name (``objectMeta.name``; an AIHC v2 pod's ``name``; read
    by the secret policy, as every token of a location is), or ``pods/INDEX``."""
    meta = pod.get("objectMeta")
    name = meta.get("name") if isinstance(meta, dict) else pod.get("name")
    if not isinstance(name, str):
        return f"pods/{index}"
    return as_is(name) if options.show_secrets else masked_token(name)


def _pod_pairs(
    pods: list[tuple[int, dict[str, Any]]],
    name: str,
    options: DiffOptions,
    where: tuple[str, ...] = ("result", "podList", "pods"),
) -> list[Pair]:
    """Every pod against the first worker (the first pod when none is a worker); ``pods`` are the
    pod objects with their index in the list, which lies at the keys ``where``."""
    if len(pods) < 2:
        return []
    roles = [str(pod.get("replicaType", "")).lower() for _, pod in pods]
    ref, reference = pods[roles.index("worker") if "worker" in roles else 0]
    plan = plan_of(name, None)
    for key in where:
        plan = plan.child(key)
    plan = plan.child(0)
    base = "/" + "/".join(where)
    pairs = []
    for index, pod in pods:
        if index == ref:
            continue
        at = At.root(f"{base}/{index}", f"{base}/{ref}")
        pairs.append(
            _pair(
                _pod_label(pod, index, options),
                _pod_label(reference, ref, options),
                compare(pod, reference, plan, options, at),
                at,
                options,
            )
        )
    return pairs


def _aihc_v2(document: dict[str, Any], name: str, options: DiffOptions) -> DiffResult:
    """An AIHC v2 answer's pods, each against the first worker, in either shape (the SDKs' ``job``
    wrapper, or the documentation's flattened answer)."""
    wrapped = isinstance(document.get("job"), dict)
    job = _object(document.get("job")) if wrapped else document
    listed = job.get("pods")
    pods = (
        [(i, pod) for i, pod in enumerate(listed) if isinstance(pod, dict)]
        if isinstance(listed, list)
        else []
    )
    where = ("job", "pods") if wrapped else ("pods",)
    return _too_few(_result(name, _pod_pairs(pods, name, options, where)), pods, ".".join(where))


def _too_few(found: DiffResult, pods: list[tuple[int, dict[str, Any]]], where: str) -> DiffResult:
    """``found`` with a warning when fewer than two pods are listed at ``where`` (none, null, a
    pending job's): no two roles were compared, which is not the same as roles that agree."""
    if len(pods) >= 2:
        return found
    warning = f"{plural(len(pods), 'pod')} listed in {where}: there are no roles to compare"
    return replace(found, warnings=(warning, *found.warnings))


def _pair(left: str, right: str, changes: list[Change], at: At, options: DiffOptions) -> Pair:
    kept = finish(changes, options)
    expected = Counter(_folded_path(c) for c in kept if is_expected(c))
    real = tuple(c for c in kept if not is_expected(c))
    return Pair(left, right, real, at.left, at.right, tuple(sorted(expected.items())))


def _folded_path(change: Change) -> str:
    return next((p for p in EXPECTED if _under(change.path, p)), change.path)


def _raw_text(pod: dict[str, Any]) -> str | None:
    meta = pod.get("objectMeta")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    text = annotations.get(RAW_REQUEST) if isinstance(annotations, dict) else None
    return text if isinstance(text, str) else None


def _raw_pair(pod: dict[str, Any], index: int, options: DiffOptions) -> Pair | None:
    parsed = parse_text(_raw_text(pod) or "")
    if not parsed.ok:
        return None
    raw = parsed.value
    prefix = f"/result/podList/pods/{index}/objectMeta/annotations/{escape(RAW_REQUEST)}"
    return _raw_roles(raw, prefix, options)


def _raw_roles(raw: Any, prefix: str, options: DiffOptions) -> Pair | None:
    job_spec = raw.get("jobSpec") if isinstance(raw, dict) else None
    if not isinstance(job_spec, dict) or not isinstance(job_spec.get("Worker"), dict):
        return None
    lead = next((role for role in ("Master", "Launcher") if isinstance(job_spec.get(role), dict)), None)
    if lead is None:
        return None
    plan = plan_of("aihc-raw-request", None).child("jobSpec").child("Master")
    at = At.root(f"{prefix}/jobSpec/{lead}", f"{prefix}/jobSpec/Worker")
    changes = compare(job_spec[lead], job_spec["Worker"], plan, options, at)
    return _pair(f"jobSpec.{lead}", "jobSpec.Worker", changes, at, options)


def _odd_reference(pairs: list[Pair]) -> tuple[str, ...]:
    """A warning when every other pod differs from the reference worker at the same path: then the
    reference is the pod that drifted, not all the others."""
    pods = [pair for pair in pairs if re.fullmatch(r"/result/podList/pods/\d+", pair.right_pointer)]
    if len(pods) < 2:
        return ()
    shared = set.intersection(*({c.path for c in pair.changes} for pair in pods))
    return tuple(
        f"every other pod differs from {pods[0].right} at {path}: "
        f"{pods[0].right} is probably the one that drifted"
        for path in sorted(shared)
    )


def _result(name: str, pairs: list[Pair]) -> DiffResult:
    changes = tuple(sorted((c for pair in pairs for c in pair.changes), key=Change.sort_key))
    return DiffResult(name, changes, "roles", tuple(pairs), warnings=_odd_reference(pairs))
