"""``jobschema serve`` reads phases by the one lifecycle model (:mod:`jobschema.lifecycle`): a config
names only phases the model knows for its API, ends its lifecycles terminal (and nowhere earlier),
fails jobs in a failed phase; a served job is finished, stops and resumes as the model says, so a
client polling to a terminal phase (``record``, ``timeline``) always gets there."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jobschema.lifecycle import MAPS, TERMINAL, State, state_of
from jobschema.serve import AIHC_LIFECYCLE, ApiBehaviour, ConfigError, ServeConfig, parse_config, phases
from jobschema.serve.config import Step
from jobschema.serve.lifecycle import Job, Timeline
from jobschema.serve.runai import deleted, resumed, suspended
from tests.serve_support import bearer, client, workload_request

WORKLOADS = "/api/v1/workloads/distributed"
NAMES = {"runai": "Run:ai phase", "aihc": "AIHC status"}
KNOWN = {
    "runai": "Creating, Pending, Initializing, Resuming, Running, Updating, Degraded, Stopping, Terminating, "
    "Deleting, Completed, Failed, Stopped, Unknown",
    "aihc": "Created, ToBeSubmitted, Pending, Scheduled, Starting, Restarting, FaultTolerantStart, Running, "
    "Abnormal, Stopping, Terminating, Succeeded, Failed, Stopped, ManualTermination, Unknown",
}
TERMINAL_VALUES = {
    "runai": "Completed, Failed, Stopped",
    "aihc": "Succeeded, Failed, Stopped, ManualTermination",
}


# ---------------------------------------------------------------------------------- config files


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"aihc": {"lifecycle": ["pending", "running", "done"]}},
            "c: aihc.lifecycle[0].phase: 'pending' is not an AIHC status as the API spells it: 'Pending' "
            "(serve sends each step as written)",
        ),
        (
            {"aihc": {"lifecycle": ["Pending", {"phase": "Running", "polls": 3}]}},
            "c: aihc.lifecycle[1].phase: 'Running' is not terminal; the last step must be "
            f"(one of {TERMINAL_VALUES['aihc']})",
        ),
        (
            {"runai": {"lifecycle": ["Creating", "Completed", "Running", "Completed"]}},
            "c: runai.lifecycle[1].phase: 'Completed' is terminal; only the last step may be "
            f"(one of {TERMINAL_VALUES['runai']})",
        ),
        (
            {"runai": {"lifecycle": ["Running", "Unknown"]}},
            "c: runai.lifecycle[1].phase: 'Unknown' is not terminal; the last step must be "
            f"(one of {TERMINAL_VALUES['runai']})",
        ),
        (
            {"runai": {"lifecycle": ["Pending", "Succeeded"]}},
            f"c: runai.lifecycle[1].phase: 'Succeeded' is not a Run:ai phase (one of {KNOWN['runai']})",
        ),
        (
            {"aihc": {"lifecycle": ["Pending", "Completed"]}},
            f"c: aihc.lifecycle[1].phase: 'Completed' is not an AIHC status (one of {KNOWN['aihc']})",
        ),
        (
            {"runai": {"fail_phase": "Running"}},
            "c: runai.fail_phase: 'Running' is not a failed Run:ai phase (one of Failed)",
        ),
        (
            {"runai": {"fail_phase": "Stopped"}},
            "c: runai.fail_phase: 'Stopped' is not a failed Run:ai phase (one of Failed)",
        ),
        (
            {"aihc": {"fail_phase": "failed"}},
            "c: aihc.fail_phase: 'failed' is not a failed AIHC status as the API spells it: 'Failed' "
            "(serve sends each step as written)",
        ),
        ({"aihc": {"fail_phase": ""}}, "c: aihc.fail_phase: '' is not a failed AIHC status (one of Failed)"),
        (  # (review round 13: a Run:ai phase in another case is named as the API spells it too)
            {"runai": {"lifecycle": ["Pending", "RUNNING", "Completed"]}},
            "c: runai.lifecycle[1].phase: 'RUNNING' is not a Run:ai phase as the API spells it: 'Running' "
            "(serve sends each step as written)",
        ),
        (  # (a lookalike that only Unicode case folding makes the status is no spelling of it)
            {"aihc": {"lifecycle": ["Pending", "Running", "\u017fucceeded"]}},
            f"c: aihc.lifecycle[2].phase: '\u017fucceeded' is not an AIHC status (one of {KNOWN['aihc']})",
        ),
    ],
)
def test_a_config_names_only_phases_the_lifecycle_model_knows_and_ends_terminal(data, message):
    with pytest.raises(ConfigError) as caught:
        parse_config(data, "c")
    assert str(caught.value) == message


def test_a_lifecycle_that_never_ends_is_a_one_line_usage_error(tmp_path, run_cli):
    path = tmp_path / "lifecycle.toml"
    path.write_text('[aihc]\nlifecycle = ["Pending", "Running"]\n', encoding="utf-8")
    result = run_cli(["serve", "--config", str(path)], code=2)
    assert result.stderr == (
        f"Error: {path}: aihc.lifecycle[1].phase: 'Running' is not terminal; the last step must be "
        f"(one of {TERMINAL_VALUES['aihc']})\n"
    )
    assert result.stdout == ""


def test_a_config_built_in_code_is_held_to_the_same_rules():
    with pytest.raises(ConfigError) as caught:
        ServeConfig(aihc=ApiBehaviour(phases("Pending", "Running")))
    assert str(caught.value) == (
        "aihc.lifecycle[1].phase: 'Running' is not terminal; the last step must be "
        f"(one of {TERMINAL_VALUES['aihc']})"
    )
    assert ServeConfig(aihc=ApiBehaviour(AIHC_LIFECYCLE)).aihc.lifecycle.phases == (
        "Pending",
        "Running",
        "Succeeded",
    )


APIS = st.sampled_from(sorted(NAMES))


@given(APIS, st.data())
def test_a_lifecycle_of_known_phases_is_accepted_iff_only_its_last_step_is_terminal(api, data):
    lifecycle = data.draw(st.lists(st.sampled_from(sorted(MAPS[api])), min_size=1, max_size=6))
    terminal = [state_of(api, phase) in TERMINAL for phase in lifecycle]
    try:
        config = parse_config({api: {"lifecycle": lifecycle}}, "c")
    except ConfigError as err:
        assert terminal != [False] * (len(lifecycle) - 1) + [True]
        assert str(err).startswith(f"c: {api}.lifecycle[")
        assert "\n" not in str(err)
    else:
        assert terminal == [False] * (len(lifecycle) - 1) + [True]
        assert getattr(config, api).lifecycle.phases == tuple(lifecycle)


@given(APIS, st.data())
def test_an_unknown_phase_anywhere_is_refused_naming_its_key_and_the_known_values(api, data):
    known = sorted(MAPS[api])
    unknown = data.draw(st.text(max_size=12).filter(lambda text: text and text not in MAPS[api]))
    before = data.draw(
        st.lists(st.sampled_from([p for p in known if state_of(api, p) not in TERMINAL]), max_size=3)
    )
    after = data.draw(st.lists(st.sampled_from(known), max_size=3))
    with pytest.raises(ConfigError) as caught:
        parse_config({api: {"lifecycle": [*before, unknown, *after]}}, "c")
    article = "an" if api == "aihc" else "a"
    assert str(caught.value) == (
        f"c: {api}.lifecycle[{len(before)}].phase: {unknown!r} is not {article} {NAMES[api]} "
        f"(one of {KNOWN[api]})"
    )


def test_the_defaults_and_the_operations_walk_phases_the_model_knows():
    config = ServeConfig()
    for api in NAMES:
        assert getattr(config, api).lifecycle.phases[-1] in {v for v, s in MAPS[api].items() if s in TERMINAL}
    assert [state_of("runai", step.phase) for step in suspended()] == [State.STOPPING, State.STOPPED]
    assert [state_of("runai", step.phase) for step in deleted()] == [State.STOPPING, State.STOPPING]


# ------------------------------------------------------------------------------ served jobs


def test_a_timeline_stops_at_a_terminal_phase_and_its_job_is_finished_by_the_model():
    timeline = Timeline((Step("Pending"), Step("Failed"), Step("Running")), "aihc", 0.0)
    job = Job.live("j", {}, timeline)
    seen = []
    for _ in range(4):
        seen.append(timeline.current(0.0).phase)
        timeline.polled(0.0)
    assert seen == ["Pending", "Failed", "Failed", "Failed"]
    assert job.finished(0.0)


def test_a_job_at_its_last_step_that_is_not_terminal_is_not_finished():
    deleting = Timeline(deleted(), "runai", 0.0)
    job = Job.live("w", {}, deleting)
    deleting.polled(0.0)
    assert deleting.current(0.0).phase == "Deleting"
    assert not job.finished(0.0)
    assert not job.gone(0.0)  # only a deleted job is gone at its timeline's end


def test_resume_ends_terminal_when_the_lifecycle_has_no_running_phase(jobschema_server):
    server = jobschema_server(lifecycle={"runai": ["Creating", "Pending", "Completed"]})
    headers = bearer(server)
    with client(server) as http:
        workload_id = http.post(WORKLOADS, json=workload_request(), headers=headers).json()["workloadId"]
        assert http.post(f"{WORKLOADS}/{workload_id}/suspend", headers=headers).status_code == 202
        assert http.post(f"{WORKLOADS}/{workload_id}/resume", headers=headers).status_code == 202
        answers = [http.get(f"{WORKLOADS}/{workload_id}", headers=headers) for _ in range(4)]
    assert [answer.json()["actualPhase"] for answer in answers] == [
        "Resuming",
        "Running",
        "Completed",
        "Completed",
    ]


def test_resume_starts_again_at_the_first_running_phase_by_the_model():
    steps = phases("Creating", "Degraded", "Running", "Completed").steps
    assert [step.phase for step in resumed(steps)] == ["Resuming", "Degraded", "Running", "Completed"]
