"""Realistic AIHC v2 DescribeJob answers: the schema's draws made consistent as the API's are — a
terminal status with ``finishedAt``, a running one without; pods named apart and as many as the spec's
replicas; former pods with uids of their own; a restarting job with a pod restarted; whole, positive
resource quantities; the job's timeline in time order. Every source's spelling stays possible."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from jobschema.apis import aihc_v2
from jobschema.lifecycle import is_terminal

#: When a drawn terminal job finished (any RFC 3339 time passes; a fixed one keeps draws readable).
FINISHED = "2026-07-04T09:30:00Z"


def answers(drawn: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """``drawn`` (the schema's own draws) made consistent."""
    return drawn.map(consistent)


def consistent(value: dict[str, Any]) -> dict[str, Any]:
    """A drawn answer as the API would send it (``value`` is not changed)."""
    import copy

    value = copy.deepcopy(value)
    job = aihc_v2.job_of(value)
    _finished(job)
    pods = [pod for pod in job.get("pods") or [] if isinstance(pod, dict)]
    _pods(job, pods)
    _history(job, pods)
    _resources(aihc_v2.spec_of(job))
    if isinstance(job.get("jobTimeLine"), list):
        job["jobTimeLine"] = sorted(job["jobTimeLine"], key=_moment)
    return value


def _moment(entry: Any) -> float:
    """When a timeline entry happened, as a number (its offset applied: ``08:00+08:00`` is ``00:00Z``);
    an entry without a readable time first."""
    from datetime import datetime

    text = str(entry.get("time", "")) if isinstance(entry, dict) else ""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return float("-inf")


def _finished(job: dict[str, Any]) -> None:
    status = job.get("status")
    if isinstance(status, str) and is_terminal("aihc", status) and not job.get("finishedAt"):
        job["finishedAt"] = FINISHED
    elif status == "Running" and job.get("finishedAt"):
        job["finishedAt"] = ""


def _pods(job: dict[str, Any], pods: list[dict[str, Any]]) -> None:
    for index, pod in enumerate(pods):
        pod["name"] = f"{pod.get('name', 'pod')}-{index}"
    spec = aihc_v2.spec_of(job)
    if pods and spec:
        spec["replicas"] = len(pods)
    if job.get("status") == "Restarting" and pods and not any(pod.get("restartCount") for pod in pods):
        pods[0]["restartCount"] = 1


def _history(job: dict[str, Any], pods: list[dict[str, Any]]) -> None:
    current = {pod.get("uid") for pod in pods}
    for index, former in enumerate(job.get("historyPods") or []):
        if isinstance(former, dict) and former.get("uid") in current:
            former["uid"] = f"{former['uid']}-former-{index}"


def _resources(spec: dict[str, Any]) -> None:
    for resource in spec.get("resources") or []:
        quantity = resource.get("quantity") if isinstance(resource, dict) else None
        if isinstance(quantity, int | float) and not isinstance(quantity, bool):
            resource["quantity"] = abs(int(quantity))
