"""The wheel ships the schemas as package data, and the library finds them without the source tree."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support import BUNDLED, REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("hatchling")
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    return next(out.glob("jobschema-*.whl"))


def test_wheel_contains_schemas_models_and_entry_point(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in BUNDLED:
        assert f"toolkit/_schemas/{name}.schema.json" in names
    assert "generated/runai_distributed_workload.py" in names
    assert "toolkit/cli/__init__.py" in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "jobschema = toolkit.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_installed_wheel_finds_its_schemas(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "from toolkit import registry;print(registry.schemas_dir()); print(registry.load('aihc-error').title)"
    )

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": ""},
    )
    folder, title = out.stdout.splitlines()
    assert Path(folder) == site / "toolkit" / "_schemas"
    assert title
