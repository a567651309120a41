"""AIHC v1 against v2: the one mapping (:mod:`jobschema.apis.aihc_map`) turns any v1 job detail into
a valid v2 DescribeJob answer that the v1-against-v2 diff finds the same, and a real difference
planted on either side is the only change reported; what one API alone has is listed apart."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings

from jobschema.apis.aihc_map import only_in, to_v2
from jobschema.diff import diff_documents
from jobschema.testing import payloads
from jobschema.validate import validate_payload


@settings(max_examples=40, deadline=None, derandomize=True)
@given(payloads("aihc-job-detail"))
def test_a_v1_job_and_its_v2_answer_are_the_same_job(v1: dict[str, Any]) -> None:
    v2 = to_v2(v1, "r-1")
    result = validate_payload(v2)
    assert (result.schema, [f.message for f in result.findings if f.severity == "error"]) == (
        "aihc-v2-job",
        [],
    )
    assert diff_documents(v1, v2).changes == ()
    assert diff_documents(v2, v1).changes == ()


@settings(max_examples=40, deadline=None, derandomize=True)
@given(payloads("aihc-job-detail"))
def test_a_planted_difference_is_the_only_change(v1: dict[str, Any]) -> None:
    v2 = to_v2(v1, "r-1")
    changed = copy.deepcopy(v2)
    changed["job"]["name"] = v2["job"]["name"] + "-renamed"
    assert [(c.op, c.path) for c in diff_documents(v1, changed).changes] == [("changed", "name")]


def test_what_one_side_alone_has_is_listed_not_compared() -> None:
    v1 = {"requestId": "r", "result": {"jobId": "j", "name": "n", "status": "Running", "k8sUID": "u"}}
    v2 = to_v2(v1, "r-2")
    assert only_in(v1, "v1") == ["result.k8sUID"]
    assert "job.jobTimeLine" in only_in(v2, "v2")
    result = diff_documents(v1, v2)
    assert (result.mode, result.changes, result.extra["only_left"]) == ("across", (), ["result.k8sUID"])


def test_without_detail_pods_are_left_out() -> None:
    v1 = {
        "requestId": "r",
        "result": {"jobId": "j", "name": "n", "status": "Running", "podList": {"pods": []}},
    }
    assert "pods" not in to_v2(v1, "r", need_detail=False)["job"]
