"""Semantic rules for Baidu AIHC job details (``GET /api/v1/aijobs/{jobId}``) and raw create requests.

Every check reads the payload loosely: a field of an unexpected type is skipped, never an error here
(the schema reports it). Booleans are not numbers, although Python makes ``bool`` an ``int``. Of the
pods' environment variables only ``WORLD_SIZE`` and ``RANK`` are read, so no other value (which may
be a secret) ever reaches a message.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from jobschema.apis.aihc import JOB_ID_KEY, RANK_VARIABLES
from jobschema.apis.aihc import JOB_SCHEMA as DETAIL
from jobschema.apis.aihc import RAW_REQUEST_SCHEMA as RAW_REQUEST
from jobschema.lifecycle import terminal_values
from jobschema.pointer import Tokens
from jobschema.validate.rules import memo, number, quiet, rule, short

Findings = Iterator[tuple[Tokens, str]]
TERMINAL_STATUSES = terminal_values("aihc")

PODS_PATH = ("result", "podList", "pods")


# At most 18 digits: an integer string int() always converts, and far beyond any pod count.
_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def _result(payload: dict[str, Any]) -> dict[str, Any]:
    return _object(payload.get("result"))


def _pods(payload: dict[str, Any]) -> list[Any] | None:
    """``result.podList.pods``, or ``None`` when it is not an array."""
    pods = _object(_result(payload).get("podList")).get("pods")
    return pods if isinstance(pods, list) else None


#: What the pod rules read of one pod: its ``objectMeta`` (empty when it is not an object) and its
#: ``envs`` (empty when not an array).
Pod = tuple[dict[str, Any], list[Any]]


def _pod_rows(payload: dict[str, Any]) -> list[Pod]:
    """Each pod's :data:`Pod`, read once per payload (four rules walk the pods)."""
    shared = memo()
    rows: list[Pod] | None = shared.get("pods")
    if rows is None:
        rows = shared["pods"] = []
        for pod in _pods(payload) or ():
            if isinstance(pod, dict):
                meta, envs = pod.get("objectMeta"), pod.get("envs")
                rows.append((meta if isinstance(meta, dict) else {}, envs if isinstance(envs, list) else []))
            else:
                rows.append(({}, []))
    return rows


def _rank_variables(payload: dict[str, Any]) -> list[dict[str, tuple[int, Any]]]:
    """For each pod, ``name -> (index in envs, value)`` of its last WORLD_SIZE and RANK variables
    (read once per payload: two rules need them)."""
    shared = memo()
    table: list[dict[str, tuple[int, Any]]] | None = shared.get("rank-variables")
    if table is None:
        table = shared["rank-variables"] = [_last_rank_variables(envs) for _, envs in _pod_rows(payload)]
    return table


def _last_rank_variables(envs: list[Any]) -> dict[str, tuple[int, Any]]:
    """The last of each, read from the end and stopping once both are found: the operators append
    them after the user's variables, so most of a long list is never read."""
    found: dict[str, tuple[int, Any]] = {}
    for index in range(len(envs) - 1, -1, -1):
        env = envs[index]
        name = env.get("name") if isinstance(env, dict) else None
        if name in RANK_VARIABLES and name not in found:
            found[name] = (index, env.get("value"))
            if len(found) == len(RANK_VARIABLES):
                break
    return found


def _env_values(payload: dict[str, Any], name: str) -> list[tuple[int, int, int]]:
    """``(pod index, index in its envs, value)`` for each pod whose ``name`` variable is an integer
    string, in pod order (indices, not paths: a path is built only for a finding, :func:`_env_path`)."""
    values: list[tuple[int, int, int]] = []
    for pod_index, found in enumerate(_rank_variables(payload)):
        index, value = found.get(name, (0, None))
        if isinstance(value, str) and _is_integer(value):
            values.append((pod_index, index, int(value)))
    return values


def _is_integer(value: str) -> bool:
    """Whether ``value`` matches :data:`_INTEGER` (plain ASCII digits, the usual case, without it)."""
    if value.isascii() and value.isdigit():
        return len(value) <= 18
    return _INTEGER.fullmatch(value) is not None


def _env_path(pod_index: int, index: int) -> Tokens:
    return (*PODS_PATH, pod_index, "envs", index, "value")


@rule(
    "aihc-total-items-mismatch",
    DETAIL,
    "error",
    "podList.listMeta.totalItems must equal the number of pods listed",
)
def total_items_mismatch(payload: dict[str, Any]) -> Findings:
    pods = _pods(payload)
    list_meta = _object(_object(_result(payload).get("podList")).get("listMeta"))
    total = number(list_meta.get("totalItems"))
    if pods is not None and total is not None and total != len(pods):
        message = f"totalItems {short(total)} differs from the number of pods listed, {len(pods)}"
        yield ("result", "podList", "listMeta", "totalItems"), message


@rule("aihc-duplicate-pod-name", DETAIL, "error", "Pod names must be unique within a job")
def duplicate_pod_name(payload: dict[str, Any]) -> Findings:
    first_seen: dict[str, int] = {}
    for index, (meta, _) in enumerate(_pod_rows(payload)):
        name = meta.get("name")
        if not isinstance(name, str):
            continue
        if name in first_seen:
            pointer = (*PODS_PATH, index, "objectMeta", "name")
            yield pointer, f"pod name {short(name)} repeats the name of pod {first_seen[name]}"
        else:
            first_seen[name] = index


@rule(
    "aihc-world-size-mismatch",
    DETAIL,
    "warning",
    "Every pod should have the same WORLD_SIZE, equal to the number of pods",
)
def world_size_mismatch(payload: dict[str, Any]) -> Findings:
    values = _env_values(payload, "WORLD_SIZE")
    if not values:
        return
    sizes = [value for _, _, value in values]
    agree = sizes.count(sizes[0]) == len(sizes)  # the usual case, without counting
    common = sizes[0] if agree else Counter(sizes).most_common(1)[0][0]
    odd = [(pod, index, value) for pod, index, value in values if value != common]
    for pod, index, value in odd:
        yield (
            _env_path(pod, index),
            f"WORLD_SIZE {short(value)} differs from {short(common)}, the value most pods have",
        )
    pods = len(_pod_rows(payload))
    if not odd and common != pods:
        yield (
            _env_path(values[0][0], values[0][1]),
            f"WORLD_SIZE {short(common)} differs from the number of pods, {pods}",
        )


@rule(
    "aihc-rank-not-permutation",
    DETAIL,
    "warning",
    "The pods' RANK values should be 0..n-1, each once",
)
def rank_not_permutation(payload: dict[str, Any]) -> Findings:
    values = _env_values(payload, "RANK")
    seen: set[int] = set()
    for pod, index, value in values:
        if not 0 <= value < len(values):
            yield (
                _env_path(pod, index),
                f"RANK {short(value)} is outside 0..{len(values) - 1} ({len(values)} pods define RANK)",
            )
        elif value in seen:
            yield _env_path(pod, index), f"RANK {short(value)} is repeated"
        seen.add(value)


def _result_labels_off(result: dict[str, Any], job_id: str) -> Iterator[tuple[Tokens, Any]]:
    """:func:`_job_id_labels` of the result's own labels."""
    for index, label in enumerate(_list(result.get("labels"))):
        if not isinstance(label, dict) or label.get("key") != JOB_ID_KEY:
            continue
        if label.get("value", job_id) != job_id:
            yield ("result", "labels", index, "value"), label["value"]


def _job_id_labels(payload: dict[str, Any], job_id: str) -> Iterator[tuple[Tokens, Any]]:
    """``(path, value)`` of every job-id label or annotation in the result and its pods that differs
    from ``job_id`` (a path is built only for those)."""
    yield from _result_labels_off(_result(payload), job_id)
    for index, (meta, _) in enumerate(_pod_rows(payload)):
        for section in ("labels", "annotations"):
            marks = meta.get(section)
            value = marks.get(JOB_ID_KEY, job_id) if isinstance(marks, dict) else job_id
            if value != job_id:
                yield (*PODS_PATH, index, "objectMeta", section, JOB_ID_KEY), value


@rule(
    "aihc-jobid-label-mismatch",
    DETAIL,
    "warning",
    f"The {JOB_ID_KEY} labels and annotations should equal result.jobId",
)
def jobid_label_mismatch(payload: dict[str, Any]) -> Findings:
    result = _result(payload)
    job_id = result.get("jobId")
    if not isinstance(job_id, str):
        return
    for path, value in _job_id_labels(payload, job_id):
        yield path, f"{JOB_ID_KEY} {short(value)} differs from jobId {short(job_id)}"


@rule(
    "aihc-terminal-without-finished-at",
    DETAIL,
    "warning",
    "A job in a terminal status (Succeeded, Failed, Stopped, ManualTermination) should have finishedAt",
)
def terminal_without_finished_at(payload: dict[str, Any]) -> Findings:
    yield from unfinished(_result(payload), ("result",))


def unfinished(job: dict[str, Any], where: Tokens) -> Findings:
    """A job (its members at ``where``; v1's ``result``, v2's job) in a terminal status without a
    ``finishedAt``, or with an empty one."""
    status = job.get("status")
    if not isinstance(status, str) or status not in TERMINAL_STATUSES:
        return
    if "finishedAt" not in job:
        yield where, f"status {short(status)} is terminal but finishedAt is missing"
    elif job["finishedAt"] == "":
        yield (*where, "finishedAt"), f"status {short(status)} is terminal but finishedAt is empty"


@rule(
    "aihc-running-with-finished-at",
    DETAIL,
    "warning",
    "A Running job should have an empty finishedAt",
)
def running_with_finished_at(payload: dict[str, Any]) -> Findings:
    result = _result(payload)
    finished = result.get("finishedAt")
    if result.get("status") == "Running" and isinstance(finished, str) and finished:
        yield ("result", "finishedAt"), f'status "Running" but finishedAt is {short(finished)}, not empty'


@rule("aihc-negative-quantity", DETAIL, "error", "Resource quantities must not be negative")
def negative_quantity(payload: dict[str, Any]) -> Findings:
    for index, resource in enumerate(_list(_result(payload).get("resources"))):
        item = _object(resource)
        quantity = number(item.get("quantity"))
        if quantity is not None and quantity < 0:
            name = item.get("name")
            of = f" of {short(name)}" if isinstance(name, str) else ""
            yield (
                ("result", "resources", index, "quantity"),
                f"quantity {short(quantity)}{of} is negative",
            )


@quiet(
    DETAIL,
    covers=(
        "aihc-total-items-mismatch",
        "aihc-duplicate-pod-name",
        "aihc-world-size-mismatch",
        "aihc-rank-not-permutation",
        "aihc-jobid-label-mismatch",
        "aihc-terminal-without-finished-at",
        "aihc-running-with-finished-at",
        "aihc-negative-quantity",
    ),
)
def detail_quiet(payload: dict[str, Any]) -> bool:
    """True when no rule above finds anything in ``payload`` (read once; :mod:`jobschema.validate.rules`)."""
    result = _result(payload)
    status, finished = result.get("status"), result.get("finishedAt")
    if (
        isinstance(status, str)
        and status in TERMINAL_STATUSES
        and ("finishedAt" not in result or finished == "")
    ):
        return False
    if status == "Running" and isinstance(finished, str) and finished:
        return False
    for resource in _list(result.get("resources")):
        quantity = number(_object(resource).get("quantity"))
        if quantity is not None and quantity < 0:
            return False
    return _pods_quiet(payload, result)


_EMPTY: dict[str, Any] = {}
_WORLD_SIZE, _RANK = RANK_VARIABLES


def _pods_quiet(payload: dict[str, Any], result: dict[str, Any]) -> bool:
    """The pod rules' part, every pod read once in one loop. It reads the shape AIHC answers with
    (objects where objects belong) and says False, for the rules to decide, on any other: an
    attribute or type error on the way, a name seen twice (of any type), a job-id mark or a rank
    variable written otherwise than the rules would find nothing in."""
    listed = _pods(payload)
    pods = listed or []
    total = number(_object(_object(result.get("podList")).get("listMeta")).get("totalItems"))
    if listed is not None and total is not None and total != len(pods):
        return False
    job_id = result.get("jobId")
    mark = job_id if isinstance(job_id, str) else None
    if mark is not None and next(_result_labels_off(result, mark), None) is not None:
        return False
    names: set[Any] = set()
    sizes: set[Any] = set()
    ranks: list[Any] = []
    try:
        for pod in pods:
            if not _meta_quiet(pod.get("objectMeta", _EMPTY), names, mark):
                return False
            envs = pod.get("envs")
            found = _last_rank_variables(envs) if isinstance(envs, list) else {}
            if _WORLD_SIZE in found:
                sizes.add(found[_WORLD_SIZE][1])
            if _RANK in found:
                ranks.append(found[_RANK][1])
        return sizes <= {str(len(pods))} and _permutation(ranks)
    except (AttributeError, TypeError):  # (not an object where one belongs, an unhashable value)
        return False


def _meta_quiet(meta: dict[str, Any], names: set[Any], mark: str | None) -> bool:
    """A pod's name not seen before (then remembered), and its job-id marks ``mark``."""
    name = meta.get("name")
    if name is not None:
        if name in names:
            return False
        names.add(name)
    return mark is None or (
        meta.get("labels", _EMPTY).get(JOB_ID_KEY, mark) == mark
        and meta.get("annotations", _EMPTY).get(JOB_ID_KEY, mark) == mark
    )


def _permutation(ranks: list[Any]) -> bool:
    """Whether ``ranks`` are the strings ``"0"`` to ``"n-1"``, each once (in any order)."""
    distinct = set(ranks)
    return len(distinct) == len(ranks) and distinct == {str(rank) for rank in range(len(ranks))}


@rule("aihc-raw-negative-resource", RAW_REQUEST, "error", "jobSpec resource amounts must not be negative")
def raw_negative_resource(payload: dict[str, Any]) -> Findings:
    for role, replica_spec in _object(payload.get("jobSpec")).items():
        for name, amount in _object(_object(replica_spec).get("resource")).items():
            value = number(amount)
            if value is not None and value < 0:
                message = f"{short(role)} resource {short(name)} is {short(value)}, below 0"
                yield ("jobSpec", role, "resource", name), message
