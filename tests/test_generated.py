"""generated/jobschema/models matches the schemas, and the models round-trip every valid payload exactly."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO, ROOT_CLASSES, SCHEMAS, case_id, load_json, valid_cases

MODELS = REPO / "generated" / "jobschema" / "models"


def test_generate_check_passes_on_committed_models(run_cli) -> None:
    result = run_cli(["generate", "--check"], code=0)
    assert result.stdout == "generated/jobschema/models/ is up to date with schemas/\n"


def test_generate_check_names_stale_files(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "models"
    shutil.copytree(MODELS, out)
    (out / "runai_error.py").write_text("# edited by hand\n", encoding="utf-8")
    (out / "aihc_error.py").unlink()
    result = run_cli(["generate", "--check", "--output-dir", str(out)], code=1)
    assert result.stdout == f"stale: {out}/aihc_error.py (missing)\nstale: {out}/runai_error.py\n"
    assert "2 generated file(s) out of date" in result.stderr
    assert (out / "runai_error.py").read_text(encoding="utf-8") == "# edited by hand\n"


def test_generate_writes_what_check_expects(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "models"
    result = run_cli(["generate", "--output-dir", str(out)], code=0)
    assert f"wrote {out}/runai_distributed_workload.py" in result.stdout
    for path in sorted(MODELS.glob("*.py")):
        assert (out / path.name).read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), path.name
    run_cli(["generate", "--check", "--output-dir", str(out)], code=0)


def test_generate_reports_a_broken_schema(run_cli, tmp_path: Path) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(SCHEMAS, schemas, ignore=shutil.ignore_patterns("examples"))
    (schemas / "runai-error.schema.json").write_text("{not json", encoding="utf-8")
    result = run_cli(
        ["generate", "--schemas-dir", str(schemas), "--output-dir", str(tmp_path / "out")], code=2
    )
    assert result.stderr == (
        f"Error: {schemas / 'runai-error.schema.json'}:1:2: schema is not valid JSON: "
        "Expecting property name enclosed in double quotes\n"
    )
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("name", sorted(ROOT_CLASSES))
def test_root_classes_exist(name: str) -> None:
    module, cls = ROOT_CLASSES[name]
    assert hasattr(importlib.import_module(module), cls)


@pytest.mark.parametrize("case", valid_cases(), ids=case_id)
def test_model_round_trips_payload_exactly(case: tuple[str, Path]) -> None:
    name, path = case
    module, cls = ROOT_CLASSES[name]
    model = getattr(importlib.import_module(module), cls)
    payload = load_json(path)
    dumped = model.model_validate(payload).model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert json.dumps(dumped, sort_keys=True) == json.dumps(payload, sort_keys=True)


def test_import_jobschema_loads_neither_pydantic_nor_models() -> None:
    code = (
        "import sys, jobschema, jobschema.schemas.registry, jobschema.validate.strict, jobschema.pointer;"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'click')"
        " or m.startswith('jobschema.models'));"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_outside_a_checkout_check_names_what_it_compares_and_writing_is_refused(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jobschema.cli.generate

    installed = tmp_path / "site-packages" / "jobschema" / "models"
    shutil.copytree(MODELS, installed)
    monkeypatch.setattr(jobschema.cli.generate, "_default_generated_dir", lambda: installed)
    result = run_cli(["generate", "--check"], code=0)
    assert result.stdout == f"{installed}/ is up to date with schemas/\n"
    refused = run_cli(["generate"], code=2)
    assert refused.stderr.splitlines()[-1] == (
        f"Error: {installed}: the installed models, not a checkout's generated/; "
        "pass --output-dir to write models elsewhere"
    )
    assert sorted(p.name for p in installed.iterdir()) == sorted(p.name for p in MODELS.iterdir())
