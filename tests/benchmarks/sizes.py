"""Installed size of jobschema's base install and of each extra: a fresh virtual environment per
install, ``pip install .`` (or ``.[EXTRA]``), then the packages and bytes its site-packages holds
beyond an empty environment's. ``python -m tests.benchmarks.sizes [EXTRA...]`` prints a Markdown
table (docs/install.md carries the last one)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _site(venv: Path) -> Path:
    return next((venv / "lib").glob("python*/site-packages"))


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _distributions(site: Path) -> set[str]:
    return {p.name.split("-")[0].lower() for p in site.glob("*.dist-info")}


def measure(extra: str | None, work: Path) -> tuple[int, int]:
    """(packages, bytes) that ``pip install .[extra]`` adds to a fresh environment."""
    venv = work / (extra or "base")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = _site(venv)
    empty_packages, empty_bytes = _distributions(site), _size(site)
    target = f"{REPO}[{extra}]" if extra else str(REPO)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, target], check=True, env={**os.environ, "PIP_NO_CACHE_DIR": "0"})
    return len(_distributions(site) - empty_packages), _size(site) - empty_bytes


def main(argv: list[str]) -> None:
    extras = argv or [
        None,
        *tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"],
    ]
    print("| install | packages | size |\n|---|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        for extra in extras:
            packages, size = measure(extra, Path(work))
            name = f"`jobschema[{extra}]`" if extra else "`jobschema`"
            print(f"| {name} | {packages} | {size / 1e6:.0f} MB |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
