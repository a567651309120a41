"""ajv-cli (draft 2020-12, ajv-formats), the JavaScript contender of issue #13.

The versions are pinned in ``tests/benchmarks/ajv/package.json`` and its ``package-lock.json``
(every transitive package too); :func:`install` copies both into ``tests/benchmarks/.cache/ajv``
(git-ignored) and runs ``npm ci`` there once, again only when the lock file changes. Without node,
npm or the network the contender is reported as not available, with the reason, and the run goes on.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPEC = HERE / "ajv"
CACHE = HERE / ".cache" / "ajv"
#: ajv-cli's own entry point (run with node directly: the .bin shim adds nothing but a hop).
ENTRY = Path("node_modules") / "ajv-cli" / "dist" / "index.js"
STAMP = ".installed-lock-sha256"


@dataclass(frozen=True)
class Ajv:
    """The command prefix of ``ajv validate`` and the versions installed, or why there is none."""

    command: tuple[str, ...] | None
    versions: str
    note: str = ""


def install(cache: Path = CACHE, timeout: float = 300.0) -> Ajv:
    """ajv-cli from the pinned lock file, installed into ``cache`` when it is not there yet."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return Ajv(None, "", "not run: node and npm are not installed here")
    lock = (SPEC / "package-lock.json").read_bytes()
    digest = hashlib.sha256(lock).hexdigest()
    stamp = cache / STAMP
    if not (stamp.is_file() and stamp.read_text(encoding="utf-8") == digest and (cache / ENTRY).is_file()):
        cache.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(SPEC / name, cache / name)
        try:
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                cwd=cache,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Ajv(None, "", f"not run: npm ci did not finish in {timeout:.0f} s (no network?)")
        if done.returncode != 0:
            last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or [""]
            return Ajv(None, "", f"not run: npm ci failed (exit {done.returncode}): {last[0][:200]}")
        stamp.write_text(digest, encoding="utf-8")
    return Ajv((node, str(cache / ENTRY)), versions(cache))


def versions(cache: Path) -> str:
    """``ajv-cli 5.0.0, ajv 8.17.1, ajv-formats 3.0.1`` as installed, and node's version."""
    import json

    found = []
    for name in ("ajv-cli", "ajv", "ajv-formats"):
        meta = cache / "node_modules" / name / "package.json"
        version = json.loads(meta.read_text(encoding="utf-8"))["version"] if meta.is_file() else "?"
        found.append(f"{name} {version}")
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    return ", ".join([*found, f"node {node}"])


def validate(ajv: Ajv, schema: Path, data_glob: str) -> list[str]:
    """``ajv validate`` of the files matching ``data_glob`` (ajv-cli expands it) against ``schema``:
    draft 2020-12, formats from ajv-formats, strict mode off (the schemas carry ``x-jobschema-*``
    annotations that strict mode rejects as unknown keywords)."""
    assert ajv.command is not None
    return [
        *ajv.command,
        "validate",
        "--spec=draft2020",
        "-c",
        "ajv-formats",
        "--strict=false",
        "-s",
        str(schema),
        "-d",
        data_glob,
    ]
