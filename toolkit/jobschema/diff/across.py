"""A v1 and a v2 capture of the same AIHC job, compared: through the one mapping of
:mod:`jobschema.apis.aihc_map`, the fields both APIs say (name, status, image, resources, envs, labels,
pods by name, created and finished times, ...) are compared as any snapshot's are, keyed and by
meaning; what only one side has is listed apart, never reported as removed or added."""

from __future__ import annotations

from functools import cache
from typing import Any

from jobschema.apis import aihc_map
from jobschema.apis.aihc_v2 import SPEC_KEYS
from jobschema.diff.ops import compare, finish
from jobschema.diff.plan import Plan, plan_for
from jobschema.diff.result import DiffOptions, DiffResult
from jobschema.diff.secrets import masked_token

V1, V2 = "aihc-job-detail", "aihc-v2-job"
#: The pairs of schemas compared across APIs.
ACROSS = frozenset({V1, V2})

_KEYED = {"type": "array", "items": {"type": "object"}}
_VOLATILE = {"x-jobschema-volatile": True}
#: How the shared view is diffed: its lists keyed as both schemas key them, server-populated
#: members volatile (as in both schemas).
SHARED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "createdAt": _VOLATILE,
        "finishedAt": _VOLATILE,
        "resources": {**_KEYED, "x-jobschema-list-key": "name"},
        "envs": {**_KEYED, "x-jobschema-list-key": "name"},
        "labels": {**_KEYED, "x-jobschema-list-key": "key"},
        "datasources": {**_KEYED, "x-jobschema-list-key": "mountPath"},
        "pods": {
            "type": "array",
            "x-jobschema-list-key": "name",
            "items": {
                "type": "object",
                "properties": {
                    "envs": {**_KEYED, "x-jobschema-list-key": "name"},
                    "ip": _VOLATILE,
                    "node": _VOLATILE,
                    "createdAt": _VOLATILE,
                    "finishedAt": _VOLATILE,
                },
            },
        },
    },
}


@cache
def _plan() -> Plan:
    return plan_for(SHARED_SCHEMA)


def diff_across(left: Any, right: Any, left_schema: str, options: DiffOptions) -> DiffResult:
    """Compare a v1 and a v2 answer (either order) through the shared view."""
    views = {V1: (aihc_map.shared_v1, "v1"), V2: (aihc_map.shared_v2, "v2")}
    right_schema = V2 if left_schema == V1 else V1
    (to_left, left_api), (to_right, right_api) = views[left_schema], views[right_schema]
    changes = compare(to_left(left), to_right(right), _plan(), options)
    shown = (lambda names: names) if options.show_secrets else _masked_members
    extra = {
        "only_left": shown(aihc_map.only_in(left, left_api)),
        "only_right": shown(aihc_map.only_in(right, right_api)),
    }
    return DiffResult(f"{left_schema} ~ {right_schema}", finish(changes, options), "across", extra=extra)


#: The parents a member that only one API has is listed under (the longest first).
_PARENTS = tuple(
    sorted({"result.", "job.", *(f"{top}{spec}." for top in ("job.", "") for spec in SPEC_KEYS)}, key=len)
)[::-1]


def _masked_members(names: list[str]) -> list[str]:
    """The members only one API has (``result.KEY``, ``job.Job.KEY``), each ``KEY`` (a payload's own
    key) read by :func:`~jobschema.diff.secrets.masked_token` before it is joined to its parent."""
    return [_masked_member(name) for name in names]


def _masked_member(name: str) -> str:
    parent = next((p for p in _PARENTS if name.startswith(p)), "")
    return parent + masked_token(name[len(parent) :])
