"""The practical limit on every core: ``limit.py`` split over N processes, as jobschema splits a run.

    python tests/benchmarks/limit_parallel.py N PATH...

The files behind PATH (sorted, as ``limit.py`` reads them) are cut into N contiguous parts, one
``limit.py`` process each, all started at once; the exit code is the worst of theirs (0: every payload
valid). One NDJSON file is cut into N byte ranges at line starts instead (``limit.py --part K/N``),
as jobschema cuts it. Start-up of every process is part of what is measured.
"""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))  # noqa: PTH100, PTH120
LIMIT = os.path.join(HERE, "limit.py")  # noqa: PTH118
SUFFIXES = (".json", ".ndjson", ".jsonl", ".har")


def _files(paths: list[str]) -> list[str]:
    found: list[str] = []
    for path in paths:
        if os.path.isdir(path):  # noqa: PTH112
            for folder, _dirs, names in os.walk(path):
                found += [os.path.join(folder, n) for n in names if n.endswith(SUFFIXES)]  # noqa: PTH118
        else:
            found.append(path)
    return sorted(found)


def main(argv: list[str]) -> int:
    jobs, files = max(1, int(argv[0])), _files(argv[1:])
    if len(files) == 1 and files[0].endswith((".ndjson", ".jsonl")):
        cmds = [[sys.executable, LIMIT, "--part", f"{k}/{jobs}", files[0]] for k in range(jobs)]
        return max(child.wait() for child in [subprocess.Popen(cmd) for cmd in cmds])
    size = -(-len(files) // jobs)
    parts = [files[i : i + size] for i in range(0, len(files), size)] or [[]]
    children = [subprocess.Popen([sys.executable, LIMIT, *part]) for part in parts if part]
    return max((child.wait() for child in children), default=0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
