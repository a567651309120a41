"""``jobschema diff``, round 6: the same bytes for inputs that mean the same (member order), keyed
lists whose key repeats (matched by key and occurrence), and a report never written into the
history folder it reads."""

from __future__ import annotations

import contextlib
import copy
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import RunCli
from tests.support import CAPTURES, REPO, load_json

RUNAI = CAPTURES / "runai-distributed-workload"
AIHC = CAPTURES / "aihc-job-detail"


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("JOBSCHEMA_MASK_KEY", "jobschema-example")


# ------------------------------------------------------------------ member order is no meaning


def _shuffled(value: Any, rng: random.Random) -> Any:
    """``value`` with the members of every object in another order (lists keep theirs)."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: _shuffled(item, rng) for key, item in items}
    if isinstance(value, list):
        return [_shuffled(item, rng) for item in value]
    return value


def _runai_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two snapshots whose changes carry objects: an env var added and one removed whole, a list of
    objects where there was null, an object where there was a string, a nested object changed."""
    left = load_json(RUNAI / "pytorch-master-differs.json")
    right = copy.deepcopy(left)
    spec = right["spec"]
    spec["environmentVariables"] = [
        *spec.get("environmentVariables", [])[1:],
        {"name": "ZZ_NEW", "value": "1", "exclude": False, "description": {"b": 1, "a": [{"y": 2, "x": 1}]}},
    ]
    spec["ports"] = [{"container": 6006, "serviceType": "ClusterIP", "name": "tb", "exclude": False}]
    spec["args"] = {"zeta": 1, "alpha": {"d": 4, "c": 3}}
    spec["compute"] = {**spec["compute"], "extra": {"q": 1, "p": 2}}
    return left, right


def _aihc_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    left = load_json(AIHC / "multi-pod-pytorch.json")
    right = copy.deepcopy(left)
    pods = right["result"]["podList"]["pods"]
    removed = pods.pop(1)
    pods.append({**removed, "objectMeta": {**removed["objectMeta"], "name": "llama2-7b-sft-worker-9"}})
    pods[0]["restartCount"] = 3
    return left, right


_FORMATS = [["-f", "text"], ["-f", "json"], ["-f", "markdown"], ["-f", "patch"], ["-f", "json", "--stat"]]


def _outputs(run_cli: RunCli, folder: Path, sides: list[Any], roles: bool = False) -> list[str]:
    """Every format's report of ``sides`` (two snapshots; a history of them; or the roles of the first)."""
    for number, side in enumerate(sides):
        (folder / f"{number}.json").write_text(json.dumps(side), encoding="utf-8")
    (folder / "h.ndjson").write_text("".join(json.dumps(side) + "\n" for side in sides), encoding="utf-8")
    runs = [[*fmt, "0.json", "1.json"] for fmt in _FORMATS]
    runs += [["--history", "-f", fmt, "h.ndjson"] for fmt in ("text", "json", "markdown")]
    if roles:
        runs += [
            ["--roles", "-f", fmt, name]
            for fmt in ("text", "json", "markdown")
            for name in ("0.json", "1.json")
        ]
    outputs = []
    with contextlib.chdir(folder):  # (the files named alike in every run)
        for args in runs:
            result = run_cli(["diff", *args])
            assert result.exit_code in (0, 1), (args, result.stderr)
            outputs.append(result.stdout)
    return outputs


@settings(database=None, max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["runai", "aihc"]), st.integers(0, 2**32), st.integers(0, 2**32))
def test_member_order_never_changes_a_byte_of_any_format(
    run_cli: RunCli, which: str, left_seed: int, right_seed: int
) -> None:
    """Servers write an object's members in any order: every format, every mode, the same bytes."""
    left, right = _runai_pair() if which == "runai" else _aihc_pair()
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        expected = _outputs(run_cli, Path(first), [left, right], roles=True)
        shuffled = [_shuffled(left, random.Random(left_seed)), _shuffled(right, random.Random(right_seed))]
        assert _outputs(run_cli, Path(second), shuffled, roles=True) == expected


def test_shown_values_have_their_members_sorted_in_the_json_report_and_the_patch(
    run_cli: RunCli, tmp_path: Path
) -> None:
    left, right = _runai_pair()
    (tmp_path / "l.json").write_text(json.dumps(left), encoding="utf-8")
    (tmp_path / "r.json").write_text(json.dumps(right), encoding="utf-8")
    report = json.loads(
        run_cli(["diff", "-f", "json", str(tmp_path / "l.json"), str(tmp_path / "r.json")]).stdout
    )
    args = next(change for change in report["changes"] if change["path"] == "spec.args")
    assert json.dumps(args["new"]) == '{"alpha": {"c": 3, "d": 4}, "zeta": 1}'
    patch = json.loads(
        run_cli(["diff", "-f", "patch", str(tmp_path / "l.json"), str(tmp_path / "r.json")]).stdout
    )
    value = next(op["value"] for op in patch if op["path"] == "/spec/args")
    assert json.dumps(value) == '{"alpha": {"c": 3, "d": 4}, "zeta": 1}'
