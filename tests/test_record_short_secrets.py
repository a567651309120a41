"""A credential shorter than 8 characters never reaches the files either, and guarding it garbles
nothing: it is masked where it stands as a whole token (no letter, digit, ``_`` or ``-`` next to it),
in free text and inside every JSON string, decoded; never inside a word (``xs3cr3ty``), never a bare
JSON number or literal (``1234``, ``true``), so a JSON text stays JSON.

(Before: the guard ignored every credential shorter than 8 characters, so a 6-character password
echoed in an error body was written to the HAR as it is.)
"""

from __future__ import annotations

import base64
import json
import re
import string
from typing import Any
from urllib.parse import quote, unquote

from hypothesis import example, given, settings
from hypothesis import strategies as st

from jobschema.record import RetryPolicy, Schedule
from jobschema.record.guard import Guard
from jobschema.record.har import _redacted, entry
from jobschema.record.ndjson import Line, snapshot_line
from jobschema.record.transport import Call, Exchange
from jobschema.secrets import mask
from jobschema.secrets.mask import MASK_SHAPE
from tests.hostile_support import JOB, answer, is_cluster, is_token, running, token_answer, workload
from tests.record_support import FakeTime, run_record

#: Short credentials: 1 to 7 characters, punctuation and JSON's own escapes (``"``, ``\\``) included.
SHORT = st.text(string.ascii_letters + string.digits + '!#$%&*+./:;=?@^~"\\', min_size=1, max_size=7)
#: What may stand right next to a token (so the credential there is one): spacing and punctuation.
EDGES = st.sampled_from([" ", "\n", "\t", ": ", "(", ")", "'", "[", "]", ",", "<", ">", "|", ""])
#: What joins a credential to a word (so it is not one there).
JOINED = st.sampled_from(list(string.ascii_letters + string.digits + "_-"))


def _tokens(text: str, secret: str) -> list[str]:
    """Where ``secret`` stands as a whole token in ``text``, masks aside (the rule, said apart from
    the code under test)."""
    bare = MASK_SHAPE.sub(" ", text)
    return re.findall(rf"(?<![\w-]){re.escape(secret)}(?![\w-])", bare)


def _strings(value: Any) -> list[str]:
    """Every string of a parsed JSON value, member names too; a string that is JSON text itself (a
    HAR body) as its own strings, and each one percent-decoded too (a URL)."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found += [str(key) for key in item]
            stack += list(item.values())
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str):
            try:
                inner = json.loads(item)
            except ValueError:
                inner = None
            if isinstance(inner, dict | list):  # a JSON body: its strings (its quotes are no text)
                stack.append(inner)
            else:
                found += [item, unquote(item)]
    return found


def _exchange(body: bytes, content_type: str, headers: list[tuple[str, str]] | None = None) -> Exchange:
    return Exchange(
        Call("job", "j"),
        "GET",
        "https://api.example/api/v1/aijobs/j?resourcePoolId=p",
        [("Accept", "application/json")],
        b"",
        1_780_000_000.0,
        status=400,
        response_headers=[("Content-Type", content_type), *(headers or [])],
        body=body,
    )


def _echoes(secret: str, before: str, after: str) -> list[Exchange]:
    """``secret`` echoed in each form a peer may write it back in, between ``before`` and ``after``."""
    said = f"bad key:{before}{secret}{after}" + (" end" if after else "")
    message = {"code": "InvalidParam", "message": said}
    return [
        _exchange(json.dumps(message, ensure_ascii=False).encode(), "application/json"),
        _exchange(json.dumps(message).encode(), "application/json"),  # \\u escapes, \\n before it
        _exchange(json.dumps({"code": "InvalidParam", "key": secret}).encode(), "application/json"),
        _exchange(said.encode(), "text/plain"),
        _exchange(b"{}", "application/json", [("X-Echo", said), ("X-Key", secret)]),
        _exchange(b"{}", "application/json", [("Location", f"/retry?echo={quote(secret, safe='')}&x=1")]),
    ]


@settings(database=None, deadline=None, max_examples=50)
@given(secret=SHORT, before=EDGES, after=EDGES)
@example(secret="s3cr3t", before=" ", after="")
@example(secret="a", before="\n", after=".")
def test_a_short_credential_echoed_back_never_reaches_the_har(secret, before, after):
    for exchange in _echoes(secret, before, after):
        guard = Guard([secret])
        text = _redacted(entry(exchange), guard).decode()
        strings = _strings(json.loads(text))
        assert [found for item in strings for found in _tokens(item, secret)] == []
        assert mask(secret) in text  # masked where it was, not dropped


@settings(database=None, deadline=None, max_examples=50)
@given(secret=SHORT, left=JOINED, right=JOINED)
@example(secret="a", left="b", right="c")
@example(secret="pass", left="-", right="_")
def test_text_that_merely_holds_a_short_credential_is_not_changed(secret, left, right):
    word = f"{left}{secret}{right}"
    guard = Guard([secret])
    assert guard.clean(f"[{word}] ({word}).") == f"[{word}] ({word})."
    body = json.dumps({"name": word, "note": f"({word})"}).encode()
    line = snapshot_line(body, guard)
    assert isinstance(line, Line) and line.value == {"name": word, "note": f"({word})"}
    for exchange in (
        _exchange(body, "application/json", [("X-Echo", word)]),
        _exchange(word.encode(), "text/plain"),
    ):
        response = json.loads(_redacted(entry(exchange), guard))["response"]
        assert response["content"]["text"] == exchange.body.decode()
        headers = [(header["name"], header["value"]) for header in response["headers"]]
        assert headers == exchange.response_headers


@settings(database=None, deadline=None, max_examples=30)
@given(number=st.integers(0, 9_999_999))
def test_a_short_credential_that_is_a_number_or_literal_leaves_the_json_json(number):
    for secret, bare in ((str(number), str(number)), ("true", "true"), ("null", "null")):
        guard = Guard([secret])
        body = f'{{"n": {bare}, "s": "{secret}", "t": "x {secret}"}}'.encode()
        line = snapshot_line(body, guard)
        assert isinstance(line, Line)
        assert line.value == {"n": json.loads(bare), "s": mask(secret), "t": f"x {mask(secret)}"}
        item = json.loads(_redacted(entry(_exchange(body, "application/json")), guard))
        recorded = json.loads(item["response"]["content"]["text"])
        assert recorded == {"n": json.loads(bare), "s": mask(secret), "t": f"x {mask(secret)}"}


def test_a_six_character_aihc_secret_echoed_by_the_peer_is_recorded_masked(tmp_path):
    secret, key_id = "s3cr3t", "ak-42"
    env = {"BCE_ACCESS_KEY_ID": key_id, "BCE_SECRET_ACCESS_KEY": secret}

    def handler(request, conn):
        return answer(
            conn,
            400,
            {"requestId": "r", "code": "InvalidParam", "message": f"bad key {key_id}:\n{secret}"},
            {"X-Echo": secret},
        )

    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(
            peer,
            "aihc",
            ["job-1"],
            tmp_path,
            fake,
            env=env,
            schedule=Schedule(10, count=1),
            resource_pool="p",
        )
    written = got.har.read_text(encoding="utf-8") + got.out + got.err
    strings = _strings(json.loads(got.har.read_text(encoding="utf-8")))
    assert [hit for item in strings for hit in _tokens(item, secret) + _tokens(item, key_id)] == []
    assert _tokens(written, secret) == [] and mask(secret) in written
    (poll,) = got.entries
    message = json.loads(poll["response"]["content"]["text"])["message"]
    assert message == f"bad key {mask(key_id)}:\n{mask(secret)}"


def test_a_six_character_runai_secret_echoed_in_a_snapshot_and_an_error_is_recorded_masked(tmp_path):
    secret = "pa55wd"
    env = {"RUNAI_CLIENT_ID": "client-1", "RUNAI_CLIENT_SECRET": secret}
    polls = []

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return answer(conn, 404, {"code": 404, "message": "Resource id not found."})
        polls.append(request)
        if len(polls) == 1:
            return answer(conn, 503, f"upstream refused {secret}".encode(), {"Content-Type": "text/plain"})
        return answer(conn, 200, workload(phase="Completed", name=f"run {secret}"))

    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=env, retry=RetryPolicy(retries=1))
    assert got.outcome.code == 0
    assert got.lines[0]["name"] == f"run {mask(secret)}"
    text = got.har.read_text(encoding="utf-8")
    assert f"upstream refused {mask(secret)}" in text
    everything = text + got.ndjson.read_text(encoding="utf-8") + got.out + got.err
    assert _tokens(everything, secret) == []


@settings(database=None, deadline=None, max_examples=30)
@given(secret=SHORT.filter(lambda text: text.isascii()), before=EDGES, after=EDGES)
def test_a_short_credential_in_a_body_that_is_no_text_is_masked_in_its_bytes(secret, before, after):
    body = b"\xff\xfe\x00bad key:" + f"{before}{secret}{after}".encode() + b"\x00\xff"
    response = json.loads(_redacted(entry(_exchange(body, "application/octet-stream")), Guard([secret])))
    content = response["response"]["content"]
    assert content["encoding"] == "base64"
    written = base64.b64decode(content["text"]).decode("latin-1")
    assert _tokens(written, secret) == [] and mask(secret) in written
