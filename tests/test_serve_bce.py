"""``jobschema serve``'s BCE v1 checks beyond the signature's own bytes: a repeated query parameter is
signed pair by pair (never collapsed to one value), and a signed ``content-md5`` or
``x-bce-content-sha256`` must match the body it came with."""

from __future__ import annotations

import base64
import hashlib
import json
import time

import httpx
import pytest

from tests.serve_support import AIHC_EXAMPLES, FINISHED, POOL, TIMEOUT, valid

PATH = f"/api/v1/aijobs/{FINISHED}"
DESCRIBE = {"action": "DescribeJob", "resourcePoolId": POOL, "queueID": "q"}


class Pairs:
    """A query with a repeated key, as the SDK's signer reads ``params`` (``items()``)."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = pairs

    def items(self) -> list[tuple[bytes, bytes]]:
        return [(key.encode(), value.encode()) for key, value in self.pairs]


def _sign(server, method: str, path: str, params, extra: dict[str, str] | None = None, signed=()):
    """``Authorization`` and ``x-bce-date`` (and ``extra``) for a request signed by the SDK's signer."""
    from baidubce.auth import bce_v1_signer
    from baidubce.auth.bce_credentials import BceCredentials
    from baidubce.utils import get_canonical_time

    creds = server.credentials
    now = int(time.time())
    headers = {b"host": f"{server.host}:{server.port}".encode(), b"x-bce-date": get_canonical_time(now)}
    headers |= {name.encode(): value.encode() for name, value in (extra or {}).items()}
    names = [name.encode() for name in ("host", "x-bce-date", *signed)]
    authorization = bce_v1_signer.sign(
        BceCredentials(creds.bce_access_key_id, creds.bce_secret_access_key),
        method.encode(),
        path.encode(),
        headers,
        params,
        now,
        1800,
        names,
    )
    return {
        "x-bce-date": headers[b"x-bce-date"].decode(),
        "Authorization": authorization.decode(),
        **(extra or {}),
    }


def _error(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert valid(answer.json(), "aihc-error")
    assert answer.json()["code"] == code
    assert answer.headers["x-bce-request-id"] == answer.json()["requestId"]


@pytest.mark.parametrize(
    "query", [f"resourcePoolId=evil&resourcePoolId={POOL}", f"resourcePoolId={POOL}&resourcePoolId=evil"]
)
def test_a_parameter_repeated_beside_a_signed_one_breaks_the_signature(jobschema_server, query):
    server = jobschema_server([AIHC_EXAMPLES])
    headers = _sign(server, "GET", PATH, {b"resourcePoolId": POOL.encode()})
    assert (
        httpx.get(f"{server.url}{PATH}?resourcePoolId={POOL}", headers=headers, timeout=TIMEOUT).status_code
        == 200
    )
    _error(
        httpx.get(f"{server.url}{PATH}?{query}", headers=headers, timeout=TIMEOUT),
        400,
        "SignatureDoesNotMatch",
    )


def test_every_value_of_a_repeated_parameter_is_signed(jobschema_server):
    server = jobschema_server([AIHC_EXAMPLES])
    pairs = [("resourcePoolId", POOL), ("tag", "b"), ("tag", "a")]
    headers = _sign(server, "GET", PATH, Pairs(pairs))
    answer = httpx.get(
        f"{server.url}{PATH}?resourcePoolId={POOL}&tag=b&tag=a", headers=headers, timeout=TIMEOUT
    )
    assert answer.status_code == 200, answer.text
    changed = httpx.get(
        f"{server.url}{PATH}?resourcePoolId={POOL}&tag=b&tag=c", headers=headers, timeout=TIMEOUT
    )
    _error(changed, 400, "SignatureDoesNotMatch")


def _md5(body: bytes) -> str:
    return base64.b64encode(hashlib.md5(body).digest()).decode()


def _sha256(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


@pytest.mark.parametrize(("name", "digest"), [("content-md5", _md5), ("x-bce-content-sha256", _sha256)])
def test_a_signed_digest_must_match_the_body(jobschema_server, name, digest):
    server = jobschema_server([AIHC_EXAMPLES])
    body = json.dumps({"jobId": FINISHED, "needDetail": False}).encode()
    params = {key.encode(): value.encode() for key, value in DESCRIBE.items()}
    headers = _sign(server, "POST", "/", params, {name: digest(body)}, signed=(name,))
    url = f"{server.url}/"
    assert httpx.post(url, params=DESCRIBE, headers=headers, content=body, timeout=TIMEOUT).status_code == 200
    swapped = json.dumps({"jobId": FINISHED, "needDetail": True}).encode()
    answer = httpx.post(url, params=DESCRIBE, headers=headers, content=swapped, timeout=TIMEOUT)
    _error(answer, 400, "BadDigest")
    assert answer.json()["message"] == f"The {name} you specified did not match what was received."
