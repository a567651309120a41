"""Without its extra, a command says which extra to install, in one line, exit 2 (issue 23): ``serve``
and ``record`` as ``generate`` and ``--dask`` do, and the ``jobschema_server`` pytest fixture. A
missing package is simulated with ``None`` in ``sys.modules`` (its import then raises ImportError),
in a process of its own: a command that wrongly went on would serve until the time limit."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import CAPTURES

HALTED = "import of {} halted; None in sys.modules"
SERVE_HINT = "install jobschema[serve]: pip install 'jobschema[serve]'"
RECORD_HINT = "install jobschema[record]: pip install 'jobschema[record]'"
WORKLOADS = str(CAPTURES / "runai-distributed-workload")
#: Ends a recording at once if it starts: one poll, no retry, a port nothing listens on.
ONE_POLL = ["--url", "http://127.0.0.1:9", "--count", "1", "--retries", "0"]


def _without(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``jobschema ARGS`` in a process where ``module`` cannot be imported."""
    code = (
        f"import sys; sys.modules[{module!r}] = None; sys.argv = ['jobschema', *sys.argv[1:]]\n"
        "from jobschema.cli import run\n"
        "run()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("module", "args"),
    [
        ("starlette", [WORKLOADS]),
        ("uvicorn", [WORKLOADS]),
        ("jwt", [WORKLOADS]),  # (imported at the first token request: the server started without it)
        ("baidubce", [WORKLOADS]),  # (imported at the first AIHC request)
        ("hypothesis", ["--generate"]),  # (imported at the first unknown id)
    ],
)
def test_serve_without_its_extra_says_which_to_install(module: str, args: list[str]) -> None:
    done = _without(module, "serve", "--port", "0", *args)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"Error: jobschema serve: the serve extra is not installed ({HALTED.format(module)}); {SERVE_HINT}\n",
    )


def test_serve_without_hypothesis_needs_it_only_to_generate() -> None:
    done = _without("hypothesis", "serve", "--host", "0.0.0.0", WORKLOADS)  # past the check, then stops
    assert (done.returncode, done.stdout, done.stderr.splitlines()) == (
        2,
        "",
        [
            "Error: --host 0.0.0.0: not a loopback address: anyone who can reach it could use the stub; "
            "--allow-remote (allow_remote=True) listens there anyway",
        ],
    )


RUNAI = ["runai", "--workload", "w1", "--runai-client-id", "i", "--runai-client-secret", "s", *ONE_POLL]
AIHC = [
    "aihc",
    "--job",
    "j1",
    "--resource-pool",
    "p",
    "--bce-access-key-id",
    "a",
    "--bce-secret-access-key",
    "k",
]


@pytest.mark.parametrize(
    ("module", "args"),
    [("httpx", RUNAI), ("httpx", [*AIHC, *ONE_POLL]), ("baidubce", [*AIHC, *ONE_POLL])],
    ids=["runai-httpx", "aihc-httpx", "aihc-baidubce"],
)
def test_record_without_its_extra_says_which_to_install(module: str, args: list[str]) -> None:
    done = _without(module, "record", *args)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"Error: jobschema record: the record extra is not installed ({HALTED.format(module)}); "
        f"{RECORD_HINT}\n",
    )


def test_record_runai_does_not_need_the_baidu_sdk() -> None:
    done = _without("baidubce", "record", *RUNAI)
    assert (done.returncode, done.stderr) == (
        1,  # it recorded: one poll, no answer
        "runai w1: (no snapshot) (count); 1 poll, 0 changes, 1 error (ConnectError)\n",
    )


def test_generate_and_dask_say_it_the_same_way(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datamodel_code_generator", None)
    done = run_cli(["generate", "--check"], code=2)
    assert (done.stdout, done.stderr) == (
        "",
        f"Error: datamodel-code-generator is not installed ({HALTED.format('datamodel_code_generator')}); "
        "install jobschema[codegen]: pip install 'jobschema[codegen]'\n",
    )
