"""``jobschema timeline`` on a recording's folder as ``record`` writes it: its NDJSON and its HAR hold
the same answers (the HAR with their times); the job is drawn once, as from the HAR alone."""

from __future__ import annotations

from jobschema.timeline import timelines
from jobschema.timeline.render import report
from tests.record_support import FakeTime, run_record, submit_job, submit_workload

RUNAI = ["Creating", {"phase": "Pending", "polls": 3}, {"phase": "Running", "polls": 5}, "Completed"]
AIHC = [{"phase": "Pending", "polls": 2}, {"phase": "Running", "polls": 3, "restarts": 1}, "Succeeded"]


def test_a_recordings_ndjson_beside_its_har_draws_each_job_as_the_har_alone(
    jobschema_server, tmp_path
) -> None:
    fake = FakeTime()
    server = jobschema_server(lifecycle={"runai": RUNAI, "aihc": AIHC}, clock=fake)
    runai = run_record(server, "runai", [submit_workload(server)], tmp_path, fake, name="runai")
    aihc = run_record(server, "aihc", [submit_job(server, replicas=2)], tmp_path, fake, name="aihc")
    both = report(timelines([str(tmp_path)]), "0")
    alone = report(timelines([str(aihc.har), str(runai.har)]), "0")  # (the folder, sorted)
    assert [job["job"] for job in both["jobs"]] == [job["job"] for job in alone["jobs"]]
    for found, expected in zip(both["jobs"], alone["jobs"], strict=True):
        assert found == expected, found["job"]
