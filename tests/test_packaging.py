"""Packaging: one import name. The wheel holds only ``jobschema`` (library, CLI, pytest plugin, models,
schemas as package data), and a project with its own ``toolkit`` and ``generated`` packages keeps
working with jobschema installed, its pytest plugin auto-loaded (editable install and wheel alike)."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel unpacked, as pip would install it into site-packages."""
    folder = tmp_path_factory.mktemp("site")
    zipfile.ZipFile(wheel).extractall(folder)
    return folder


def test_wheel_top_level_is_only_jobschema(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert sorted({name.split("/")[0] for name in names}) == ["jobschema", "jobschema-0.1.0.dist-info"]


def test_wheel_contains_schemas_models_plugin_and_entry_points(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    for name in BUNDLED:
        assert f"jobschema/schemas/bundled/{name}.schema.json" in names
    assert "jobschema/models/runai_distributed_workload.py" in names
    assert "jobschema/schemas/bundled/versions-report.schema.json" in names
    # the official specs the version annotations are written from are for maintainers and tests
    assert not [name for name in names if "/official/" in name]
    assert "jobschema/cli/__init__.py" in names
    assert "jobschema/pytest_plugin.py" in names
    entry = archive.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "jobschema = jobschema.cli:run" in entry
    assert "jobschema = jobschema.pytest_plugin" in entry


def _python(code: str, cwd: Path, pythonpath: Path | None = None) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath) if pythonpath else ""}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd, env=env
    )
    return out.stdout.splitlines()


def test_installed_wheel_finds_its_schemas_and_models(site: Path, tmp_path: Path) -> None:
    code = (
        "import jobschema, jobschema.models.aihc_error as m; from jobschema.schemas import registry;"
        "print(registry.schemas_dir()); print(registry.load('aihc-error').title); print(m.__file__);"
        "print(len(jobschema.__path__))"
    )
    folder, title, models, halves = _python(code, tmp_path, site)
    assert Path(folder) == site / "jobschema" / "schemas" / "bundled"
    assert title
    assert Path(models) == site / "jobschema" / "models" / "aihc_error.py"
    assert halves == "1"


def test_old_top_level_names_are_gone(site: Path, tmp_path: Path) -> None:
    code = (
        "import importlib.util as u;"
        "print([n for n in ('toolkit', 'generated') if u.find_spec(n) is not None])"
    )
    assert _python(code, tmp_path, site) == ["[]"]


def _scratch_project(root: Path) -> Path:
    """A project with packages named like the repository's folders, and a test using them."""
    for name in ("toolkit", "generated"):
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text(f"OWNER = 'scratch {name}'\n", encoding="utf-8")
    (root / "test_own.py").write_text(
        "import generated, toolkit\n\n\n"
        "def test_own_packages(jobschema_validate):\n"
        "    assert toolkit.OWNER == 'scratch toolkit' and generated.OWNER == 'scratch generated'\n"
        "    assert jobschema_validate({'code': 404, 'message': 'x'}).schema == 'runai-error'\n",
        encoding="utf-8",
    )
    return root


@pytest.mark.parametrize("install", ["editable", "wheel"])
def test_project_with_its_own_toolkit_runs_pytest_with_the_plugin(
    install: str, site: Path, tmp_path: Path
) -> None:
    project = _scratch_project(tmp_path / "project")
    env = {**os.environ, "PYTHONPATH": str(site) if install == "wheel" else ""}
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_own.py"],
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed" in out.stdout


def _imported_top_levels(folder: Path) -> set[str]:
    import ast

    found: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return found


def _normal(name: str) -> str:
    return name.lower().replace("_", "-")


def test_the_base_install_holds_no_package_no_module_imports() -> None:
    """Each base dependency is imported by the package (directly; its module names come from the
    installed distribution's metadata), so ``pip install jobschema`` carries only what it uses."""
    import importlib.metadata
    import re
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    modules = importlib.metadata.packages_distributions()
    imported = _imported_top_levels(REPO / "toolkit" / "jobschema") | _imported_top_levels(REPO / "generated")
    unused = []
    for requirement in project["dependencies"]:
        name = re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        provides = {
            top for top, dists in modules.items() if name in {d.lower().replace("_", "-") for d in dists}
        }
        if not provides & imported:
            unused.append(name)
    assert unused == []
