"""AIHC v2 answers keep their secrets out of every output: the image pull credentials and credential
environment values are secret places of aihc-v2-job, found by ``redact --check`` and masked by
``redact``, in the wrapped and the flattened shape alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import REPO

CAPTURE = REPO / "schemas" / "examples" / "aihc-v2-job" / "sdk-running-4-pods.json"
PASSWORD = "Zq8#hunter2-image-pull"
TOKEN = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"


def _planted(flattened: bool) -> dict:
    value = json.loads(CAPTURE.read_text(encoding="utf-8"))
    value["job"]["Job"]["imageConfig"] = {"username": "robot$ci", "password": PASSWORD}
    value["job"]["Job"].setdefault("envs", []).append({"name": "HF_TOKEN", "value": TOKEN})
    if flattened:
        job = value.pop("job")
        job["jobSpec"] = job.pop("Job")
        value |= job
    return value


@pytest.mark.parametrize("flattened", [False, True], ids=["wrapped", "flattened"])
def test_redact_finds_and_masks_the_v2_secret_places(run_cli, tmp_path: Path, flattened: bool) -> None:
    path = tmp_path / "job.json"
    path.write_text(json.dumps(_planted(flattened), indent=2), encoding="utf-8")
    checked = run_cli(["redact", "--check", str(path)], code=1).stdout
    spec = "/jobSpec" if flattened else "/job/Job"
    assert f"{spec}/imageConfig/password: unmasked secret" in checked
    assert "/envs/" in checked and PASSWORD not in checked and TOKEN not in checked
    redacted = run_cli(["redact", str(path)], code=0).stdout
    assert PASSWORD not in redacted and TOKEN not in redacted
    shown = run_cli(["validate", "-v", "-f", "json", str(path)]).stdout
    assert PASSWORD not in shown and TOKEN not in shown
