"""``jobschema serve`` as a command: the first line, clean shutdown on signals, exit codes, config errors."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

import httpx
import pytest

from jobschema.serve import ConfigError, ServeFailed, load_config, parse_config, start
from jobschema.serve.server import REMOTE_REFUSED
from tests.serve_support import COMPLETED, RUNAI_EXAMPLES, RUNAI_HISTORY, TIMEOUT, ended
from tests.support import REPO

pytest_plugins = ["pytester"]

COMMAND = [sys.executable, "-m", "jobschema", "serve"]
ENV = {
    "RUNAI_CLIENT_ID": "cli-client",
    "RUNAI_CLIENT_SECRET": "cli-secret-value",
    "BCE_ACCESS_KEY_ID": "ak-cli",
    "BCE_SECRET_ACCESS_KEY": "sk-cli-secret",
}


SIZE_PROBLEM = "'lots' is not a size (bytes, or a number with B, KiB, MiB, GiB, KB, MB, GB)"


def _serve(*args, env=None):
    return subprocess.Popen(
        [*COMMAND, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **ENV, **(env or {})},
        cwd=REPO,
    )


def _first_line(process):
    line = process.stdout.readline()
    assert line.startswith("listening on http://127.0.0.1:"), line + process.stderr.read()
    return line


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_shuts_the_server_down_cleanly(signum):
    process = _serve(str(RUNAI_EXAMPLES))
    try:
        line = _first_line(process)
        url = line.removeprefix("listening on ").strip()
        assert line == f"listening on {url}\n"
        body = {
            "grantType": "client_credentials",
            "clientId": "cli-client",
            "clientSecret": "cli-secret-value",
        }
        token = httpx.post(f"{url}/api/v1/token", json=body, timeout=TIMEOUT).json()["accessToken"]
        answer = httpx.get(
            f"{url}/api/v1/workloads/distributed/{COMPLETED}?token={token}",
            headers={"Authorization": f"Bearer {token}"},
            timeout=TIMEOUT,
        )
        assert answer.json() == json.loads(
            (RUNAI_EXAMPLES / "completed-job.json").read_text(encoding="utf-8")
        )
        process.send_signal(signum)
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        ended(process)
    assert process.returncode == 0
    assert out == ""
    assert "Traceback" not in err
    for secret in (*ENV.values(), token):
        assert secret not in err
    lines = err.splitlines()
    assert lines[0] == "serving 5 Run:ai workloads and 0 AIHC jobs"
    assert [line.rsplit(" ", 1)[0] for line in lines[1:3]] == [
        "POST /api/v1/token 200",
        lines[2].rsplit(" ", 1)[0],
    ]
    assert lines[2].startswith(f"GET /api/v1/workloads/distributed/{COMPLETED}?token=<secret:")


def test_an_invalid_capture_exits_1_with_its_findings():
    result = subprocess.run(
        [*COMMAND, str(REPO / "tests" / "fixtures" / "captures" / "invalid-workload.json")],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={**os.environ, **ENV},
    )
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[-1] == (
        "Error: 1 capture refused (not valid); --serve-invalid serves invalid captures as they are, as faults"
    )
    assert lines[-2].startswith("1 payload: 0 valid, 1 invalid")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-dir"], "Error: no-such-dir: no such file or folder"),
        (
            ["--config", "missing.toml"],
            "Error: missing.toml: cannot read the config file: No such file or directory",
        ),
        (["--host", "0.0.0.0"], f"Error: --host 0.0.0.0: {REMOTE_REFUSED}"),
        (["--max-body", "lots"], f"Error: Invalid value for '--max-body': {SIZE_PROBLEM}"),
        (
            ["--request-timeout", "0"],
            "Error: Invalid value for '--request-timeout': 0.0 is not in the range x>0.",
        ),
    ],
)
def test_usage_and_tool_errors_exit_2(args, message):
    result = subprocess.run(
        check=False, args=[*COMMAND, *args], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == message


# ------------------------------------------------------------------------------------ listening


def _addresses(*addresses):
    """A ``socket.getaddrinfo`` answering ``addresses`` for any name."""

    def getaddrinfo(host, port, *args, **kwargs):
        family = {4: socket.AF_INET, 6: socket.AF_INET6}
        return [(family[6 if ":" in a else 4], socket.SOCK_STREAM, 6, "", (a, 0)) for a in addresses]

    return getaddrinfo


@pytest.mark.parametrize(
    ("host", "addresses", "shown"),
    [
        ("::", (), "::"),
        ("192.0.2.7", (), "192.0.2.7"),
        ("build-box.internal", ("10.1.2.3",), "build-box.internal (10.1.2.3)"),
        ("dual.internal", ("127.0.0.1", "10.1.2.3"), "dual.internal (127.0.0.1, 10.1.2.3)"),
    ],
)
def test_a_host_others_can_reach_needs_allow_remote(run_cli, monkeypatch, host, addresses, shown):
    monkeypatch.setattr(socket, "getaddrinfo", _addresses(*addresses))
    result = run_cli(["serve", "--host", host], code=2)
    assert result.stderr == f"Error: --host {shown}: {REMOTE_REFUSED}\n"
    assert result.stdout == ""


def test_a_host_name_that_does_not_resolve_exits_2(run_cli, monkeypatch):
    def unknown(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    result = run_cli(["serve", "--host", "nowhere.invalid"], code=2)
    assert (
        result.stderr == "Error: --host nowhere.invalid: cannot resolve the name: Name or service not known\n"
    )


def test_localhost_listens_on_its_loopback_address():
    process = _serve("--host", "localhost", "--quiet")
    try:
        url = _first_line(process).removeprefix("listening on ").strip()
        assert httpx.post(f"{url}/api/v1/token", json={}, timeout=TIMEOUT).status_code == 400
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=TIMEOUT)
    finally:
        ended(process)
    assert process.returncode == 0
    assert "not loopback" not in err


def test_allow_remote_listens_on_every_interface_with_a_warning():
    process = _serve("--host", "0.0.0.0", "--allow-remote", "--quiet")
    try:
        line = process.stdout.readline()
        assert line.startswith("listening on http://0.0.0.0:"), line + process.stderr.read()
        port = line.strip().rsplit(":", 1)[1]
        answer = httpx.post(f"http://127.0.0.1:{port}/api/v1/token", json={}, timeout=TIMEOUT)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=TIMEOUT)
    finally:
        ended(process)
    assert answer.status_code == 400
    assert (
        err.splitlines()[0] == "warning: listening on 0.0.0.0, not loopback: anyone who reaches it can use it"
    )
    assert process.returncode == 0


def test_the_library_refuses_a_remote_host_unless_allowed():
    with pytest.raises(ServeFailed, match="not a loopback address"):
        start(host="0.0.0.0")
    with start(host="0.0.0.0", allow_remote=True) as server:
        answer = httpx.post(f"http://127.0.0.1:{server.port}/api/v1/token", json={}, timeout=TIMEOUT)
    assert answer.status_code == 400


def test_a_taken_port_exits_2(jobschema_server):
    server = jobschema_server()
    result = subprocess.run(
        [*COMMAND, "--port", str(server.port)], check=False, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f"Error: 127.0.0.1:{server.port}: cannot listen: Address already in use"


def test_generate_in_the_command_serves_the_same_bytes_as_the_library(jobschema_server):
    workload_id = "5f0c8b2e-1d3a-4c6e-9b7f-2a4d6e8f0a1c"
    library = jobschema_server(generate=True, credentials=None)
    from tests.serve_support import bearer

    expected = httpx.get(
        f"{library.url}/api/v1/workloads/distributed/{workload_id}", headers=bearer(library), timeout=60
    ).content
    process = _serve("--generate", "--quiet")
    try:
        url = _first_line(process).removeprefix("listening on ").strip()
        body = {
            "grantType": "client_credentials",
            "clientId": "cli-client",
            "clientSecret": "cli-secret-value",
        }
        token = httpx.post(f"{url}/api/v1/token", json=body, timeout=TIMEOUT).json()["accessToken"]
        got = httpx.get(
            f"{url}/api/v1/workloads/distributed/{workload_id}",
            headers={"Authorization": f"Bearer {token}"},
            timeout=60,
        ).content
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=TIMEOUT)
    finally:
        ended(process)
    assert got == expected
    assert process.returncode == 0


# ---------------------------------------------------------------------------------- config files


def test_the_example_config_file_loads():
    config = load_config(REPO / "tests" / "fixtures" / "serve" / "lifecycle.toml")
    assert config.seed == 7
    assert config.runai.lifecycle.phases == ("Creating", "Pending", "Running", "Completed")
    assert [step.polls for step in config.runai.lifecycle.steps] == [1, 2, 2, 1]
    assert config.runai.unknown_after_submit == 1
    assert [(f.route, f.rate, f.status, f.retry_after) for f in config.faults] == [
        ("runai.get", 0.25, (429, 503), 1)
    ]


def test_a_json_config_reads_like_toml(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(
        json.dumps({"aihc": {"lifecycle": ["Pending", {"phase": "Running", "seconds": 5}, "Failed"]}})
    )
    config = load_config(path)
    assert config.aihc.lifecycle.phases == ("Pending", "Running", "Failed")
    assert config.aihc.lifecycle.steps[1].seconds == 5.0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"runai": {"lifecycle": ["Creating", "Sleeping"]}},
            "c: runai.lifecycle[1].phase: 'Sleeping' is not a Run:ai phase (one of Creating, Pending, "
            "Initializing, Resuming, Running, Updating, Degraded, Stopping, Terminating, Deleting, "
            "Completed, Failed, Stopped, Unknown)",
        ),
        (
            {"runai": {"lifecycle": [{"phase": "Running", "polls": 0}]}},
            "c: runai.lifecycle[0].polls: must be at least 1",
        ),
        (
            {"runai": {"lifecycle": [{"phase": "Running", "polls": 1, "seconds": 2}]}},
            "c: runai.lifecycle[0]: give polls or seconds, not both",
        ),
        ({"runai": {"lifecycle": []}}, "c: runai.lifecycle: needs at least one phase"),
        ({"aihc": {"fail_rate": 2}}, "c: aihc.fail_rate: must be between 0 and 1"),
        (
            {"faults": [{"route": "runai.list"}]},
            "c: faults[0].route: 'runai.list' is not a route (one of *, runai.token, runai.get, "
            "runai.cluster, runai.submit, runai.suspend, runai.resume, runai.delete, aihc.get, aihc.submit, "
            "aihc.stop, aihc.delete, aihc.update)",
        ),
        (
            {"faults": [{"status": [418]}]},
            "c: faults[0].status: must list statuses among 403, 404, 429, 500, 502, 503, 504",
        ),
        ({"faults": {"route": "*"}}, "c: faults: must be an array"),
        ({"seeds": 1}, "c: seeds: unknown key (known: aihc, faults, runai, seed)"),
        ({"runai": {"token_expiry": 0}}, "c: runai.token_expiry: must be positive"),
    ],
)
def test_config_errors_name_the_file_and_the_key(data, message):
    with pytest.raises(ConfigError) as caught:
        parse_config(data, "c")
    assert str(caught.value) == message


def test_a_broken_toml_file_is_a_one_line_error(tmp_path, run_cli):
    path = tmp_path / "bad.toml"
    path.write_text("[runai\n", encoding="utf-8")
    result = run_cli(["serve", "--config", str(path)], code=2)
    assert result.stderr.startswith(f"Error: {path}: not valid TOML: ")
    assert len(result.stderr.splitlines()) == 1


def test_help_documents_the_routes_credentials_and_exit_codes(run_cli):
    text = run_cli(["serve", "--help"], code=0).stdout
    for needle in (
        "RUNAI_CLIENT_ID",
        "RUNAI_APP_SECRET",
        "BCE_SECRET_ACCESS_KEY",
        "listening on http://HOST:PORT",
        "Exit codes:",
        "--generate",
        "--serve-invalid",
        "[[faults]]",
        "/api/v1/aijobs",
        "--allow-remote",
        "--max-body",
        "--max-headers",
        "--max-url",
        "--idle-timeout",
        "--request-timeout",
        "--max-connections",
        "EXPIRY at most 3600 seconds",
        "idToken",
    ):
        assert needle in text
    assert RUNAI_HISTORY.exists()


# ---------------------------------------------------------------------------------------- README


@pytest.mark.parametrize("page", ["README.md", "docs/serve.md"])
def test_the_documented_consumer_test_passes_as_written(pytester, monkeypatch, page: str):
    import re

    text = (REPO / page).read_text(encoding="utf-8")
    [example] = [b for b in re.findall(r"```python\n(.*?)```", text, re.DOTALL) if "jobschema_server(" in b]
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.chdir(REPO)  # (the examples name the bundled captures by their place in the repository)
    pytester.makepyfile(test_my_poller=example)
    result = pytester.runpytest_subprocess(
        "-p", "jobschema.pytest_plugin", "-q", "-W", "error", str(pytester.path / "test_my_poller.py")
    )
    result.assert_outcomes(passed=1)


def _documented_serve_example():
    """The docs' ``jobschema serve`` example: the bash block's lines and the text block's lines."""
    import re

    readme = (REPO / "docs" / "serve.md").read_text(encoding="utf-8")
    section = readme.split("# A stub of both job APIs", 1)[1]
    command = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    output = re.search(r"```text\n(.*?)```", section, re.DOTALL)
    assert command is not None and output is not None
    return command.group(1).splitlines(), output.group(1).splitlines()


def _comparable(lines):
    """Lines with what varies from run to run (the port, the milliseconds) made constant."""
    import re

    return [
        re.sub(r" \d+\.\dms$", " MSms", re.sub(r"^(listening on http://[^:]+):\d+$", r"\1:PORT", line))
        for line in lines
    ]


def test_the_documented_serve_example_runs_as_written_and_prints_what_it_shows():
    """tests/test_docs.py runs the ```console blocks, which end by themselves; this example serves
    until a signal, with a random port and times, after requests from a client, so it runs here: the
    exact command line with the exported variables, the client's two requests, then SIGTERM."""
    import shlex

    lines, shown = _documented_serve_example()
    env = {}
    for line in lines[:-1]:
        words = shlex.split(line)
        assert words[0] == "export"
        env.update(word.split("=", 1) for word in words[1:])
    command = shlex.split(lines[-1])
    assert command[:2] == ["jobschema", "serve"]
    paths = [arg for arg in command[2:] if not arg.startswith("-")]
    tracked = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "--", *paths], capture_output=True, text=True, check=False
    )
    if tracked.returncode == 0:  # a checkout: every file the example names is in the repository
        assert all(
            any(f == p or f.startswith(p.rstrip("/") + "/") for f in tracked.stdout.split()) for p in paths
        )
    workload_path = shown[-1].split(" ")[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "jobschema", *command[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
        cwd=REPO,
    )
    try:
        first = process.stdout.readline()
        url = first.removeprefix("listening on ").strip()
        grant = {
            "grantType": "client_credentials",
            "clientId": env["RUNAI_CLIENT_ID"],
            "clientSecret": env["RUNAI_CLIENT_SECRET"],
        }
        token = httpx.post(f"{url}/api/v1/token", json=grant, timeout=TIMEOUT).json()["accessToken"]
        answer = httpx.get(
            f"{url}{workload_path}", headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT
        )
        assert answer.status_code == 200
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        ended(process)
    assert process.returncode == 0, err
    assert _comparable([first.rstrip("\n"), *out.splitlines(), *err.splitlines()]) == _comparable(shown)


def test_the_help_names_every_fault_route(run_cli) -> None:
    """A route a fault may name is one the help lists (the AIHC actions were missing from it)."""
    from jobschema.serve.config import ROUTES

    shown = " ".join(run_cli(["serve", "--help"]).stdout.split())
    for api in ("runai", "aihc"):
        names = "|".join(route.split(".", 1)[1] for route in ROUTES if route.startswith(f"{api}."))
        assert f"{api}.{names}" in shown
