"""``jobschema record`` as a command: exit codes, one-line auth errors, findings printed as validate
prints them, the recording checked by validate and diff --history, resume, and kill -9 / SIGTERM /
SIGINT of a recording subprocess. Every recording here is bounded by --count (or a signal)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jobschema.secrets import mask
from jobschema.serve import Credentials
from tests.record_support import FIXTURES, submit_job, submit_workload
from tests.serve_support import HISTORY_WORKLOAD, POOL, RUNAI_EXAMPLES, RUNAI_HISTORY, ended
from tests.support import REPO

COMMAND = [sys.executable, "-m", "jobschema", "record"]
LONG = {"runai": ["Creating", {"phase": "Running", "polls": 100000}, "Completed"]}


def _env(monkeypatch, server, **override) -> None:
    for name, value in {**server.credentials.as_env(), **override}.items():
        monkeypatch.setenv(name, value)
    for name in ("RUNAI_APP_ID", "RUNAI_APP_SECRET"):
        if name not in override:
            monkeypatch.delenv(name, raising=False)


def _runai(server, tmp_path, *extra) -> list[str]:
    return [
        "record",
        "runai",
        "--url",
        server.url,
        "-o",
        str(tmp_path / "r.ndjson"),
        "--interval",
        "0",
        *extra,
    ]


# ------------------------------------------------------------------- auth errors: one line, exit 2


def test_a_wrong_runai_secret_is_one_line_naming_it(jobschema_server, tmp_path, run_cli, monkeypatch):
    server = jobschema_server([RUNAI_HISTORY])
    _env(monkeypatch, server, RUNAI_CLIENT_SECRET="not-the-secret")
    result = run_cli([*_runai(server, tmp_path, "--workload", HISTORY_WORKLOAD)], code=2)
    assert result.stderr == (
        f"Error: RUNAI_CLIENT_ID/RUNAI_CLIENT_SECRET rejected by {server.url}/api/v1/token (401)\n"
    )
    assert result.stdout == ""
    assert (tmp_path / "r.ndjson").read_bytes() == b""


def test_the_rejected_credential_is_named_by_where_it_came_from(
    jobschema_server, tmp_path, run_cli, monkeypatch
):
    server = jobschema_server([RUNAI_HISTORY])
    _env(monkeypatch, server)
    args = _runai(server, tmp_path, "--workload", HISTORY_WORKLOAD, "--runai-client-secret", "wrong-one")
    assert run_cli(args, code=2).stderr == (
        f"Error: RUNAI_CLIENT_ID/--runai-client-secret rejected by {server.url}/api/v1/token (401)\n"
    )
    file = tmp_path / "creds.toml"
    file.write_text('[runai]\nclient_id = "nobody"\nclient_secret = "wrong"\n', encoding="utf-8")
    file.chmod(0o600)
    args = _runai(server, tmp_path, "--workload", HISTORY_WORKLOAD, "--credentials", str(file))
    assert run_cli(args, code=2).stderr == (
        f"Error: {file}: runai.client_id/client_secret rejected by {server.url}/api/v1/token (401)\n"
    )


@pytest.mark.parametrize(
    ("override", "blamed", "answer"),
    [
        ({"BCE_SECRET_ACCESS_KEY": "0" * 32}, "BCE_SECRET_ACCESS_KEY", "400 SignatureDoesNotMatch"),
        ({"BCE_ACCESS_KEY_ID": "f" * 32}, "BCE_ACCESS_KEY_ID", "403 InvalidAccessKeyId"),
    ],
)
def test_a_wrong_bce_key_is_one_line_naming_it(
    jobschema_server, tmp_path, run_cli, monkeypatch, override, blamed, answer
):
    server = jobschema_server()
    job = submit_job(server)
    _env(monkeypatch, server, **override)
    args = ["record", "aihc", "--url", server.url, "--job", job, "--resource-pool", POOL, "--interval", "0"]
    result = run_cli(args, code=2)
    url = f"{server.url}/api/v1/aijobs/{job}?resourcePoolId={POOL}"
    assert result.stderr == f"Error: {blamed} rejected by {url} ({answer})\n"
    assert next(iter(override.values())) not in result.stderr


def test_missing_credentials_are_one_line(jobschema_server, tmp_path, run_cli, monkeypatch):
    server = jobschema_server()
    for name in ("RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET", "RUNAI_APP_ID", "RUNAI_APP_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RUNAI_CLIENT_ID", "someone")
    result = run_cli([*_runai(server, tmp_path, "--workload", "w")], code=2)
    assert result.stderr == (
        "Error: no Run:ai client credentials: set RUNAI_CLIENT_SECRET "
        "(or --runai-client-secret, or --credentials FILE)\n"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[runai]\nclient_secret = "x\n', "not valid TOML: at line 2, column 19"),
        (
            '[runai]\nclientsecret = "s3cr3t-value"\n',
            "runai.clientsecret: unknown key (known: app_id, app_secret, client_id, client_secret)",
        ),
        ('[bce]\nkey = "s3cr3t-value"\n', "bce: unknown table (known: aihc, runai)"),
        ("[runai]\nclient_secret = 12345678\n", "runai.client_secret: must be a string"),
    ],
)
def test_a_bad_credentials_file_is_one_line_without_its_values(tmp_path, run_cli, content, message):
    file = tmp_path / "creds.toml"
    file.write_text(content, encoding="utf-8")
    args = ["record", "runai", "--url", "http://127.0.0.1:9", "--workload", "w", "--credentials", str(file)]
    result = run_cli(args, code=2)
    assert result.stderr == f"Error: {file}: {message}\n"
    assert "s3cr3t" not in result.stderr and "12345678" not in result.stderr


def test_a_credentials_file_readable_by_others_is_warned_about(jobschema_server, tmp_path, run_cli):
    server = jobschema_server([RUNAI_HISTORY])
    creds = server.credentials
    file = tmp_path / "creds.toml"
    file.write_text(
        f'[runai]\nclient_id = "{creds.runai_client_id}"\nclient_secret = "{creds.runai_client_secret}"\n'
    )
    file.chmod(0o644)
    args = _runai(server, tmp_path, "--workload", HISTORY_WORKLOAD, "--credentials", str(file))
    result = run_cli(args, code=0)
    assert result.stderr.splitlines()[0] == f"warning: {file}: readable by other users (chmod 600 it)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["runai", "--url", "tenant.run.ai", "--workload", "w"],
            "Error: --url tenant.run.ai: give the API's base URL, e.g. https://tenant.run.ai",
        ),
        (
            ["runai", "--url", "http://127.0.0.1:9", "--workload", "w", "-o", "same.x", "--har", "same.x"],
            "Error: -o and --har name the same file",
        ),
        (
            ["runai", "--url", "http://127.0.0.1:9", "--workload", "w", "--interval", "soon"],
            "Error: Invalid value for '--interval': 'soon' is not a duration (90, 90s, 15m, 2h, 1d)",
        ),
        (
            ["runai", "--url", "ftp://me:PLANTED-url-pass@tenant", "--workload", "w"],
            f"Error: --url ftp://{mask('me:PLANTED-url-pass')}@tenant: give the API's base URL, e.g. https://tenant.run.ai",
        ),
        (
            ["runai", "--url", "https://tenant.run.ai", "--workload", "w", "--interval", "0.5"],
            "Error: --interval 0.5: at least 1 s (shorter only against a loopback test server)",
        ),
        (
            ["runai", "--url", "http://127.0.0.1:9", "--workload", "w", "-o", "-"],
            "Error: -o/--har -: the recording goes to files (stdout carries the findings)",
        ),
        (["aihc", "--url", "http://127.0.0.1:9", "--job", "j"], "Error: Missing option '--resource-pool'."),
        (
            ["runai", "--url", "http://127.0.0.1:99999", "--workload", "w"],
            "Error: --url http://127.0.0.1:99999: give the API's base URL, e.g. https://tenant.run.ai",
        ),
        (
            ["runai", "--url", "https://tenant.run.ai:0", "--workload", "w"],
            "Error: --url https://tenant.run.ai:0: give the API's base URL, e.g. https://tenant.run.ai",
        ),
        (
            ["runai", "--url", "http://127.0.0.1:9", "--workload", ""],
            'Error: --workload "": not an id (empty, or holds spacing or / ? # & % \\)',
        ),
        (
            ["runai", "--url", "http://127.0.0.1:9", "--workload", "w", "--workload", "../admin"],
            'Error: --workload "../admin": not an id (empty, or holds spacing or / ? # & % \\)',
        ),
        (
            ["aihc", "--url", "http://127.0.0.1:9", "--job", "j?x=1", "--resource-pool", "p"],
            'Error: --job "j?x=1": not an id (empty, or holds spacing or / ? # & % \\)',
        ),
        (
            ["aihc", "--url", "http://127.0.0.1:9", "--job", "j", "--resource-pool", "p q"],
            'Error: --resource-pool "p q": not an id (empty, or holds spacing or / ? # & % \\)',
        ),
        (
            ["aihc", "--url", "http://127.0.0.1:9", "--job", "j", "--resource-pool", "p", "--queue", "a\tb"],
            'Error: --queue "a\\tb": not an id (empty, or holds spacing or / ? # & % \\)',
        ),
        (
            ["runai", "--url", "http://127.0.0.1:9", "--workload", "w", "--max-body", "64XB"],
            "Error: Invalid value for '--max-body': '64XB' is not a size (1048576, 512KiB, 64MiB, 1GiB)",
        ),
        (
            ["runai", "--url", "http://127.0.0.1:9", "--workload", "w", "--max-body", "100"],
            "Error: Invalid value for '--max-body': '100' must be between 1024 bytes and 4GiB",
        ),
        (
            ["runai", "--url", "http://127.0.0.1:9", "--workload", "w", "--max-body", "5GiB"],
            "Error: Invalid value for '--max-body': '5GiB' must be between 1024 bytes and 4GiB",
        ),
    ],
)
def test_usage_errors_exit_2(run_cli, args, message, monkeypatch):
    monkeypatch.setenv("RUNAI_CLIENT_ID", "i")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "s")
    result = run_cli(["record", *args], code=2)
    assert result.stderr.strip().splitlines()[-1] == message


BASE = "give the API's base URL, e.g. https://tenant.run.ai"
NO_QUERY = "a base URL has no query or fragment (? or #); give the API's base URL"
LONG_LABEL = "a" * 70 + ".example"


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[::1", BASE),
        ("http://xn--/", "'xn--' is not a host name or address"),
        ("http://a..b/", "'a..b' is not a host name or address"),
        ("http://999.1.1.1/", "'999.1.1.1' is not a host name or address"),
        (f"https://{LONG_LABEL}/", f"'{LONG_LABEL}' is not a host name or address"),
        ("http://127.0.0.1:9/base?v=2", NO_QUERY),
        ("http://127.0.0.1:9/base?", NO_QUERY),
        ("http://127.0.0.1:9/#top", NO_QUERY),
    ],
)
@pytest.mark.parametrize("api", ["runai", "aihc"])
def test_a_base_url_that_cannot_be_sent_is_one_usage_line(run_cli, monkeypatch, url, problem, api):
    for name, value in {"RUNAI_CLIENT_ID": "i", "RUNAI_CLIENT_SECRET": "s"}.items():
        monkeypatch.setenv(name, value)
    job = ["--workload", "w"] if api == "runai" else ["--job", "j", "--resource-pool", "p"]
    result = run_cli(["record", api, "--url", url, *job, "--count", "1", "--retries", "0"], code=2)
    assert result.stderr == f"Error: --url {url}: {problem}\n"
    assert result.stdout == ""


def test_a_request_url_httpx_refuses_is_a_usage_error_not_a_crash():
    import httpx

    from jobschema.record.retry import RetryPolicy, Runtime
    from jobschema.record.transport import Call, RequestUrlError, Transport

    def build() -> httpx.Request:
        return httpx.Request("GET", "http://xn--/api")

    with httpx.Client() as client:
        transport = Transport(client, RetryPolicy(retries=0), Runtime(), lambda exchange: None)
        with pytest.raises(RequestUrlError, match=r"^the request URL cannot be sent: Malformed A-label"):
            transport.send(Call("job", "w"), build, float("inf"))
    assert RequestUrlError.exit_code == 2


def test_a_file_another_recording_writes_is_refused(jobschema_server, tmp_path, run_cli, monkeypatch):
    import fcntl

    server = jobschema_server([RUNAI_HISTORY])
    _env(monkeypatch, server)
    target = tmp_path / "r.ndjson"
    with target.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = run_cli([*_runai(server, tmp_path, "--workload", HISTORY_WORKLOAD)], code=2)
    assert result.stderr == f"Error: {target}: another jobschema record is writing this file\n"


# ------------------------------------------------------- findings as validate prints them; checks


def _invalid_capture(tmp_path: Path) -> Path:
    value = json.loads((RUNAI_EXAMPLES / "seed.json").read_text(encoding="utf-8"))
    value["desiredPhase"] = "Sleeping"
    value["spec"]["undeclaredKnob"] = True
    path = tmp_path / "invalid.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_findings_print_as_validate_prints_the_recording(jobschema_server, tmp_path, run_cli, monkeypatch):
    capture = _invalid_capture(tmp_path)
    server = jobschema_server([capture], serve_invalid=True)
    _env(monkeypatch, server)
    job = json.loads(capture.read_text())["workloadId"]
    recorded = run_cli([*_runai(server, tmp_path, "--workload", job, "--count", "2")], code=1)
    checked = run_cli(["validate", str(tmp_path / "r.ndjson")], code=1)
    assert recorded.stdout == checked.stdout
    assert f"{tmp_path / 'r.ndjson'}:1:" in recorded.stdout and "/desiredPhase" in recorded.stdout
    strict_args = ["record", "runai", "--url", server.url, "--workload", job, "--count", "1", "--strict"]
    strict = run_cli([*strict_args, "-o", str(tmp_path / "s.ndjson")], code=1)
    assert strict.stdout == run_cli(["validate", "--strict", str(tmp_path / "s.ndjson")], code=1).stdout
    assert "/spec/undeclaredKnob" in strict.stdout and "/spec/undeclaredKnob" not in recorded.stdout


def test_a_recording_of_two_apis_validates_and_diffs_per_job(
    jobschema_server, tmp_path, run_cli, monkeypatch
):
    server = jobschema_server(
        lifecycle={"runai": ["Creating", {"phase": "Running", "polls": 2}, "Completed"]}
    )
    _env(monkeypatch, server)
    first, second = submit_workload(server), submit_workload(server)
    job = submit_job(server)
    out = str(tmp_path / "r.ndjson")
    run_cli([*_runai(server, tmp_path, "--workload", first, "--workload", second)], code=0)
    run_cli(
        [
            "record",
            "aihc",
            "--url",
            server.url,
            "--job",
            job,
            "--resource-pool",
            POOL,
            "-o",
            out,
            "--interval",
            "0",
        ],
        code=0,
    )
    run_cli(["validate", out], code=0)
    diff = run_cli(
        ["diff", "--history", out, "--only", "/actualPhase", "--only", "/result/status"], code=1
    ).stdout
    rel = out
    assert diff.splitlines()[0] == f"job {first} (runai-distributed-workload)"
    assert f"job {second} (runai-distributed-workload)" in diff
    assert f"job {job} (aihc-job-detail)" in diff
    assert '  ± actualPhase: "Creating" → "Running"' in diff
    assert '  ± result.status: "Pending" → "Running"' in diff
    assert diff.splitlines()[-1] == (
        "different (runai-distributed-workload, aihc-job-detail, history): 6 changed, 0 added, 0 removed"
    )
    report = json.loads(run_cli(["diff", "--history", rel, "-f", "json"], code=1).stdout)
    assert [entry["job"] for entry in report["jobs"]] == [first, second, job]
    assert {pair["job"] for pair in report["pairs"]} == {first, second, job}


def test_resuming_a_finished_recording_writes_nothing_new(jobschema_server, tmp_path, run_cli, monkeypatch):
    server = jobschema_server([RUNAI_HISTORY])
    _env(monkeypatch, server)
    args = _runai(server, tmp_path, "--workload", HISTORY_WORKLOAD)
    run_cli(args, code=0)
    before = (tmp_path / "r.ndjson").read_bytes()
    again = run_cli(args, code=0)  # the capture's last snapshot repeats: Completed, unchanged
    assert (tmp_path / "r.ndjson").read_bytes() == before
    assert again.stderr == f"runai {HISTORY_WORKLOAD}: Completed (terminal); 1 poll, 0 changes, 0 errors\n"
    assert again.stdout == "0 payloads: 0 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"


def test_help_lists_every_option_and_the_exit_codes(run_cli):
    for api, own in (
        ("runai", ["--workload", "--grant", "--runai-client-id", "--runai-app-secret", "--credentials"]),
        ("aihc", ["--job", "--resource-pool", "--bce-access-key-id", "--bce-secret-access-key"]),
    ):
        out = run_cli(["record", api, "--help"], code=0).stdout
        for text in (
            *own,
            "--url",
            "--output",
            "--har",
            "--all",
            "--interval",
            "--count",
            "--duration",
            "--strict",
            "--ignore",
            "--ignore-volatile",
            "--retries",
            "--timeout",
            "--max-body",
            "64MiB",
            "Retry-After",
            "_truncated",
            "--credentials",
            "Exit codes:",
            "0  every recorded payload is valid",
            "2  usage error",
            "130  interrupted",
        ):
            assert text in out, (api, text)
    assert "runai" in run_cli(["record", "--help"], code=0).stdout
    assert "record" in run_cli(["--help"], code=0).stdout


@pytest.mark.parametrize(
    ("given", "size"),
    [("1048576", 1048576), ("512KiB", 524288), ("64MiB", 64 * 1024**2), ("1.5k", 1536), ("2MB", 2_000_000)],
)
def test_max_body_takes_bytes_and_binary_units(given, size):
    from jobschema.cli.record import Size

    assert Size(1024, 4 * 1024**3).convert(given, None, None) == size


# ---------------------------------------------------------------- a recording subprocess, killed


def _start(server, out: Path, *jobs: str, har: Path | None = None) -> subprocess.Popen[str]:
    args = [
        *COMMAND,
        "runai",
        "--url",
        server.url,
        "-o",
        str(out),
        "--interval",
        "0.01",
        "--all",
        "--count",
        "100000",
    ]
    args += [part for job in jobs for part in ("--workload", job)]
    if har is not None:
        args += ["--har", str(har)]
    env = {**os.environ, **server.credentials.as_env()}
    return subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO
    )


def _wait_for_lines(path: Path, process: subprocess.Popen[str], count: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # bounded
        if path.exists() and path.read_bytes().count(b"\n") >= count:
            return
        if process.poll() is not None:
            pytest.fail(f"the recorder ended early: {process.communicate(timeout=30)}")
        time.sleep(0.02)
    pytest.fail("no lines were recorded in 60 s")


def _valid_ndjson(path: Path) -> list[dict]:
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return [json.loads(line) for line in data.splitlines()]


def test_kill_9_leaves_a_valid_prefix_that_resumes_validates_and_diffs(
    jobschema_server, tmp_path, run_cli, monkeypatch
):
    server = jobschema_server(lifecycle=LONG)
    first, second = submit_workload(server), submit_workload(server)
    out, har = tmp_path / "r.ndjson", tmp_path / "r.har"
    process = _start(server, out, first, second, har=har)
    try:
        _wait_for_lines(out, process, 12)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
    finally:
        ended(process)
    kept = _valid_ndjson(out)
    assert len(kept) >= 12 and {line["workloadId"] for line in kept} == {first, second}
    entries = json.loads(har.read_text(encoding="utf-8"))["log"]["entries"]  # complete after every entry
    assert entries and entries[0]["request"]["method"] == "POST"
    args = [
        "record",
        "runai",
        "--url",
        server.url,
        "-o",
        str(out),
        "--har",
        str(har),
        "--interval",
        "0",
        "--all",
        "--count",
        "2",
        "--workload",
        first,
        "--workload",
        second,
    ]
    _env(monkeypatch, server)  # (restored after the test, whatever the environment held before)
    run_cli(args, code=0)
    assert len(_valid_ndjson(out)) == len(kept) + 4
    assert len(json.loads(har.read_text(encoding="utf-8"))["log"]["entries"]) >= len(entries) + 4
    run_cli(["validate", str(out), str(har)], code=0)
    diff = run_cli(["diff", "--history", str(out)], code=1).stdout
    assert (
        f"job {first} (runai-distributed-workload)" in diff
        and f"job {second} (runai-distributed-workload)" in diff
    )


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_ends_the_recording_cleanly(jobschema_server, tmp_path, signum, code):
    server = jobschema_server(lifecycle=LONG)
    job = submit_workload(server)
    out, har = tmp_path / "r.ndjson", tmp_path / "r.har"
    process = _start(server, out, job, har=har)
    try:
        _wait_for_lines(out, process, 3)
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        ended(process)
    assert process.returncode == code
    assert "Traceback" not in stderr
    lines = _valid_ndjson(out)
    json.loads(har.read_text(encoding="utf-8"))
    last = stderr.splitlines()
    assert last[-1 if signum == signal.SIGTERM else -2].startswith(f"runai {job}: Running (interrupted); ")
    if signum == signal.SIGINT:
        assert last[-1] == "interrupted"
    assert (
        stdout == f"{len(lines)} payloads: {len(lines)} valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"
    )
    for secret in server.credentials.as_env().values():
        assert secret not in stdout + stderr


def test_credentials_given_to_the_server_never_reach_the_subprocess_output(jobschema_server, tmp_path):
    credentials = Credentials(
        "client-x", "PLANTED-subprocess-secret-1", None, None, {"PLANTEDak-sub-0001": "PLANTED-sub-sk-0002"}
    )
    server = jobschema_server([RUNAI_HISTORY, FIXTURES / "aihc-planted.json"], credentials=credentials)
    env = {**os.environ, **server.credentials.as_env()}
    for api, flag, job, extra in (
        ("runai", "--workload", HISTORY_WORKLOAD, []),
        (
            "aihc",
            "--job",
            "pytorchjob-3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
            ["--resource-pool", "cce-6zwnp4zf"],
        ),
    ):
        result = subprocess.run(
            [
                *COMMAND,
                api,
                "--url",
                server.url,
                flag,
                job,
                *extra,
                "--interval",
                "0",
                "-o",
                str(tmp_path / f"{api}.ndjson"),
                "--har",
                str(tmp_path / f"{api}.har"),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        written = (
            result.stdout
            + result.stderr
            + (tmp_path / f"{api}.ndjson").read_text()
            + (tmp_path / f"{api}.har").read_text()
        )
        for marker in (
            "PLANTED-subprocess-secret-1",
            "PLANTED-sub-sk-0002",
            "PLANTEDak-sub-0001",
            "PLANTED-registry-pass-1a2b3c",
        ):
            assert marker not in written, (api, marker)
