"""Clients and clocks for the ``jobschema serve`` tests: every request loop here is bounded."""

from __future__ import annotations

import contextlib
import copy
import json
import socket
import subprocess
import time
import warnings
from dataclasses import dataclass
from typing import Any

import httpx

from jobschema.serve import RunningServer
from jobschema.validate import validate_payload
from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures" / "serve"
RUNAI_EXAMPLES = REPO / "schemas" / "examples" / "runai-distributed-workload"
AIHC_EXAMPLES = REPO / "schemas" / "examples" / "aihc-job-detail"
RUNAI_HISTORY = FIXTURES / "runai-history.ndjson"
AIHC_HISTORY = FIXTURES / "aihc-history.ndjson"
HISTORY_WORKLOAD = "7d4f2c1a-5b3e-4e8f-9a61-2c0d8b7e4f13"
HISTORY_JOB = "pytorchjob-5e2a9c14-8b3d-4f61-a7e0-1d9c6b4f2a83"
COMPLETED = "4894d50f-c9ec-427c-87d7-9577f360e7e8"  # completed-job.json
FINISHED = "pytorchjob-0b6e2f94-5c1a-4d8b-9e37-a4f8c2d51e09"  # finished-job.json, pool cce-6zwnp4zf
POOL = "cce-6zwnp4zf"
#: The stub's paths: Run:ai's token and workloads, AIHC v1's jobs.
TOKEN = "/api/v1/token"
SUBMIT = "/api/v1/workloads/distributed"
AIJOBS = "/api/v1/aijobs"
#: One path of each API (AIHC v2 last), and the schema of its error bodies.
APIS = [
    (TOKEN, "runai-error"),
    (f"{AIJOBS}?resourcePoolId={POOL}", "aihc-error"),
    (f"/?action=DescribeJob&resourcePoolId={POOL}&queueID=q", "aihc-error"),
]
#: Seconds any one wait here may take before the test fails (an HTTP request, a socket operation, a
#: subprocess ending, :func:`wait_for`): an upper bound that only stops a hung test, so generous that
#: a busy machine (a thread descheduled for seconds) never reaches it. Nothing waits this long to pass.
TIMEOUT = 60.0


@dataclass
class Clock:
    """A clock the test moves: the server asks it for the time."""

    now: float = 1_780_000_000.0

    def __call__(self) -> float:
        return self.now


def runapy_client(server: RunningServer, **options: Any) -> Any:
    """runapy's ApiClient (the Run:ai Python client) signed in to ``server`` with its credentials."""
    import logging

    from runai.api_client import ApiClient
    from runai.configuration import Configuration

    creds = server.credentials
    config = Configuration(
        client_id=creds.runai_client_id,
        client_secret=creds.runai_client_secret,
        runai_base_url=server.url,
        logger=logging.getLogger("runapy-test"),
        **options,
    )
    return ApiClient(config)


def client(server: RunningServer) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=TIMEOUT)


def token(server: RunningServer) -> str:
    creds = server.credentials
    body = {
        "grantType": "client_credentials",
        "clientId": creds.runai_client_id,
        "clientSecret": creds.runai_client_secret,
    }
    answer = httpx.post(f"{server.url}/api/v1/token", json=body, timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["accessToken"])


def bearer(server: RunningServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {token(server)}"}


def token_in_one_write(server: RunningServer) -> str:
    """:func:`token`, its request's head and body sent in one write. A server with a short
    ``request_timeout`` times a body from its head's first byte: an HTTP client writes the two apart,
    and one descheduled between the writes (a busy machine) would be answered 408."""
    creds = server.credentials
    grant = {
        "grantType": "client_credentials",
        "clientId": creds.runai_client_id,
        "clientSecret": creds.runai_client_secret,
    }
    body = json.dumps(grant).encode()
    headers = ("Content-Type: application/json", f"Content-Length: {len(body)}", "Connection: close")
    with connect(server) as sock:
        sock.sendall(request_head("POST", "/api/v1/token", *headers) + body)
        answer = parse_answer(read_all(sock))
    assert answer.status == 200, answer.body
    return str(answer.json()["accessToken"])


def valid(body: Any, schema: str) -> bool:
    result = validate_payload(body, schema)
    return result.valid and result.schema == schema


def workload_request(**extra: Any) -> dict[str, Any]:
    body = {
        "name": "llama-sft",
        "projectId": "1",
        "clusterId": "3f5c2a1e-9b8d-4c7f-a6e5-0d1b2c3a4f56",
        "spec": {
            "image": "nvcr.io/nvidia/pytorch:24.05-py3",
            "distributedFramework": "PyTorch",
            "numWorkers": 2,
        },
    }
    return {**body, **extra}


def job_request(**extra: Any) -> dict[str, Any]:
    body = {
        "name": "qwen-sft",
        "queue": "default",
        "priority": "normal",
        "jobFramework": "PyTorchJob",
        "jobSpec": {
            "image": "registry.baidubce.com/aihc/pytorch:2.2",
            "command": "torchrun train.py",
            "replicas": 2,
            "resources": [{"name": "baidu.com/a800_80g_cgpu", "quantity": 8}],
            "envs": [{"name": "NCCL_DEBUG", "value": "INFO"}],
        },
    }
    return {**body, **extra}


# -------------------------------------------------------------------------------- the Baidu SDK


def bce_config(server: RunningServer, secret: str | None = None) -> Any:
    """The Baidu SDK's client configuration for ``server`` (the SDK's own defaults merged in)."""
    from baidubce import bce_client_configuration
    from baidubce.auth.bce_credentials import BceCredentials

    creds = server.credentials
    config = copy.deepcopy(bce_client_configuration.DEFAULT_CONFIG)
    given = BceCredentials(creds.bce_access_key_id, secret or creds.bce_secret_access_key)
    config.merge_non_none_values(
        bce_client_configuration.BceClientConfiguration(credentials=given, endpoint=server.url.encode())
    )
    return config


def bce_send(config: Any, method: str, path: str, params: dict[str, str], body: Any = None) -> Any:
    """Send through the SDK's own HTTP client and signer; an error answer raises ``BceServerError``.

    ``send_request`` leaves the connection of a successful request to the garbage collector (it closes
    it on errors only): the ResourceWarning when its frame goes is the SDK's, so it is ignored here.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        return _send(config, method, path, params, body)


def _send(config: Any, method: str, path: str, params: dict[str, str], body: Any) -> Any:
    from baidubce.auth import bce_v1_signer
    from baidubce.exception import BceHttpClientError
    from baidubce.http import bce_http_client, handler

    data = None if body is None else json.dumps(body).encode()
    headers = {} if body is None else {b"Content-Type": b"application/json"}
    try:
        return bce_http_client.send_request(
            config,
            bce_v1_signer.sign,
            [handler.parse_error, handler.parse_json],
            method.encode(),
            path.encode(),
            data,
            headers,
            {k.encode(): v.encode() for k, v in params.items()},
        )
    except BceHttpClientError as err:  # the SDK wraps what the server answered
        raise err.last_error from None


def signed_get(
    server: RunningServer,
    path: str,
    params: dict[str, str],
    secret: str | None = None,
    timestamp: int = 0,
    expiration: int = 1800,
    signed: tuple[str, ...] = ("host", "x-bce-date"),
    host: str | None = None,
) -> httpx.Response:
    """A GET signed by the SDK's signer (``baidubce.auth.bce_v1_signer.sign``), sent with httpx;
    ``signed`` names the headers signed, ``host`` the Host signed (the server's by default)."""
    headers = bce_headers(server, "GET", path, params, secret, timestamp, expiration, signed, host)
    return httpx.get(f"{server.url}{path}", params=params, headers=headers, timeout=TIMEOUT)


def bce_headers(
    server: RunningServer,
    method: str,
    path: str,
    params: dict[str, str],
    secret: str | None = None,
    timestamp: int = 0,
    expiration: int = 1800,
    signed: tuple[str, ...] = ("host", "x-bce-date"),
    host: str | None = None,
) -> dict[str, str]:
    """The ``x-bce-date`` and ``Authorization`` headers of a request signed by the SDK's signer."""
    from baidubce.auth import bce_v1_signer
    from baidubce.auth.bce_credentials import BceCredentials
    from baidubce.utils import get_canonical_time

    creds = server.credentials
    timestamp = timestamp or int(time.time())
    date = get_canonical_time(timestamp)
    headers = {b"host": (host or f"{server.host}:{server.port}").encode(), b"x-bce-date": date}
    authorization = bce_v1_signer.sign(
        BceCredentials(creds.bce_access_key_id, secret or creds.bce_secret_access_key),
        method.encode(),
        path.encode(),
        headers,
        {k.encode(): v.encode() for k, v in params.items()},
        timestamp,
        expiration,
        [name.encode() for name in signed],
    )
    return {"x-bce-date": date.decode(), "Authorization": authorization.decode()}


# ----------------------------------------------------------------------------------- raw sockets


def connect(server: RunningServer) -> socket.socket:
    """A raw TCP connection to ``server`` (every read and write waits at most :data:`TIMEOUT`)."""
    return socket.create_connection((server.host, server.port), timeout=TIMEOUT)


def read_all(sock: socket.socket, limit: int = 1 << 20) -> bytes:
    """What the peer sends until it closes (a reset ends it too), at most ``limit`` bytes."""
    data = b""
    with contextlib.suppress(OSError):
        while len(data) < limit:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return data


@dataclass(frozen=True)
class RawAnswer:
    """An HTTP answer read off a socket: status, headers (lower-case names), body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def parse_answer(data: bytes) -> RawAnswer:
    """The first answer in ``data`` (its body by ``content-length``)."""
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return RawAnswer(status, headers, rest[: int(headers.get("content-length", len(rest)))])


def request_head(method: str, target: str, *headers: str) -> bytes:
    """An HTTP/1.1 request head for ``target`` with a Host header and ``headers`` (``name: value``)."""
    lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def ended(process: subprocess.Popen[Any]) -> None:
    """Kill ``process`` if it still runs (the test failed while it did), then reap it and close its
    pipes: else its ResourceWarnings would be raised in whatever test runs next, failing that one."""
    if process.poll() is None:
        process.kill()
    process.communicate()


def wait_for(predicate: Any, timeout: float = TIMEOUT) -> bool:
    """Poll ``predicate`` every 10 ms until it holds or ``timeout`` passes (bounded, never asserted)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True
