"""``jobschema record`` against peers that write a credential back in another form than it was sent:
in a body that is no UTF-8 text (the HAR keeps it base64-encoded), JSON-escaped with ``\\u`` or
``\\/``, percent-encoded in a ``Location`` or a query, base64-encoded at any offset (``Basic``,
``Bearer`` wrapped); none reaches a file, stdout or stderr. And the credentials the recorder guards
are bounded in number, however many tokens a peer hands out.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.record import Schedule
from jobschema.record import recorder as recorder_module
from jobschema.record.guard import MAX_GUARDED, Guard
from jobschema.secrets import mask
from tests.hostile_support import JOB, answer, is_cluster, is_token, jwt, running, workload
from tests.record_support import FakeTime, run_record

#: Credentials holding every character an encoding changes (``/``, ``+``, ``=``, ``"``, a space).
SECRET = 'PLANTED/hostile+secret="77" x'
TOKEN = "qwerty/uiop+asdf=gh1234"
AK, SK = "PLANTEDak0123456789abcdef", 'PLANTED/sk+0123456789="abc" z'
RUNAI_ENV = {"RUNAI_CLIENT_ID": "client-review-01", "RUNAI_CLIENT_SECRET": SECRET}
BCE_ENV = {"BCE_ACCESS_KEY_ID": AK, "BCE_SECRET_ACCESS_KEY": SK}


def _json_u(text: str) -> str:
    """``text`` inside a JSON string with every character ``\\u``-escaped."""
    return "".join(f"\\u{ord(char):04x}" for char in text)


def _slashed(text: str) -> str:
    """``text`` inside a JSON string as PHP writes it (``/`` as ``\\/``)."""
    return json.dumps(text)[1:-1].replace("/", "\\/")


def _b64(prefix: str, text: str) -> str:
    return base64.b64encode((prefix + text).encode()).decode()


def _forms(secret: str) -> list[str]:
    """Every form of ``secret`` the peers here write: each must be absent from everything written."""
    forms = [secret, json.dumps(secret)[1:-1], _slashed(secret), quote(secret, safe=""), quote_plus(secret)]
    for prefix in ("", "u", "u:"):  # its base64 at the three offsets, less the bytes its neighbours share
        encoded = _b64(prefix, secret).rstrip("=")
        middle = encoded[4 if prefix else 0 : (len(prefix) + len(secret.encode())) // 3 * 4]
        forms += [middle, middle.replace("+", "-").replace("/", "_")]
    return forms


def _echo(secret: str) -> str:
    """A JSON string's inside holding ``secret`` in every form of :func:`_forms` but the plain one."""
    wrapped = [_b64(prefix, secret) for prefix in ("", "Bearer ", "bob:")]
    urlsafe = base64.urlsafe_b64encode(("x" + secret).encode()).decode().rstrip("=")
    return " ".join(
        [_json_u(secret), _slashed(secret), quote(secret, safe=""), quote_plus(secret), *wrapped, urlsafe]
    )


def _strings(value: Any) -> list[str]:
    """Every string and member name of a parsed JSON value (a JSON body inside one: its own too)."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found += [str(key) for key in item]
            stack += list(item.values())
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str):
            found.append(item)
            with contextlib.suppress(ValueError):
                stack.append(json.loads(item))
    return found


def _assert_nowhere(secrets: list[str], *texts: str, values: list[Any]) -> None:
    everything = "\n".join([*texts, *(s for value in values for s in _strings(value))])
    for secret in secrets:
        for form in _forms(secret):
            assert form not in everything, (secret, form)


def _har_bodies(entries: list[dict[str, Any]]) -> list[bytes]:
    """Each entry's response body as bytes (a base64 one decoded)."""
    bodies = []
    for item in entries:
        content = item["response"]["content"]
        text = content.get("text", "")
        bodies.append(base64.b64decode(text) if content.get("encoding") == "base64" else text.encode())
    return bodies


# ----------------------------------------------------------------- a body that is no UTF-8 text

#: Bodies the HAR keeps base64-encoded, each echoing the token and the client secret.
NOT_TEXT = {
    "latin-1": lambda echo: b"\xff\xfe error: " + echo.encode("utf-8"),
    "a NUL byte": lambda echo: b'{"message": "' + echo.encode("utf-8") + b'"}\x00',
    "utf-16 without a BOM": lambda echo: ("<" + echo + ">").encode("utf-16-le"),
    "gzip magic first": lambda echo: b"\x1f\x8b\x08 then " + echo.encode("utf-8"),
    "whitespace and bytes": lambda echo: b"  \t\n\xc0" + echo.encode("utf-8") + b"\xc0",
}


def _runai_peer(job_body, error_body=None, headers=None):
    """Run:ai answering tokens with :data:`TOKEN`, the cluster, and each poll with ``job_body``
    (bytes, or a callable of the poll's number) after one error answer ``error_body`` (a 500)."""
    polls: list[int] = []

    def handler(request, conn):
        if is_token(request):
            return answer(conn, 200, {"accessToken": TOKEN, "tokenType": "Bearer"})
        if is_cluster(request):
            return answer(conn, 200, {"uuid": "c", "version": "2.20.0"})
        polls.append(1)
        if error_body is not None and len(polls) == 1:
            return answer(conn, 500, error_body, {"Content-Type": "text/plain", **(headers or {})})
        body = job_body(len(polls)) if callable(job_body) else job_body
        return answer(conn, 200, body, headers)

    return handler


@pytest.mark.parametrize("kind", sorted(NOT_TEXT))
def test_credentials_in_a_body_that_is_no_utf8_text_never_reach_the_har(tmp_path, kind):
    body = NOT_TEXT[kind](f"token {TOKEN} secret {SECRET}")
    fake = FakeTime()
    handler = _runai_peer(json.dumps(workload(phase="Completed")).encode(), error_body=body)
    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=RUNAI_ENV, schedule=Schedule(10, count=2))
    error = next(item for item in got.entries if item["response"]["status"] == 500)
    assert error["response"]["content"]["encoding"] == "base64"  # still the server's bytes, as bytes
    written = _har_bodies([error])[0]
    for secret in (TOKEN, SECRET):
        for codec in ("utf-8", "utf-16-le", "utf-16-be"):
            assert secret.encode(codec) not in written, (secret, codec)
    assert mask(TOKEN).encode() in written and mask(SECRET).encode() in written
    assert written.startswith(body[:4])  # the rest of the body is kept as it came
    _assert_nowhere([TOKEN, SECRET], got.out, got.err, got.har.read_text(), values=[])
    assert got.outcome.jobs[0].errors == {"500": 1}


def test_a_base64_body_of_another_tools_har_is_guarded_when_rewritten(tmp_path):
    har = tmp_path / "rec.har"
    echoed = base64.b64encode(b"\xff secret " + SECRET.encode() + b" \xfe").decode()
    content = {"size": 1, "mimeType": "text/plain", "text": echoed, "encoding": "base64"}
    broken = {"size": 1, "mimeType": "text/plain", "text": "not base64 at all!", "encoding": "base64"}
    entries = [
        {
            "request": {"method": "GET", "url": "http://127.0.0.1/x"},
            "response": {"status": 500, "content": body},
        }
        for body in (content, broken)
    ]
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}))
    fake = FakeTime()
    handler = _runai_peer(json.dumps(workload(phase="Completed")).encode())
    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=RUNAI_ENV, schedule=Schedule(10, count=1))
    first, second = got.entries[:2]
    assert (
        base64.b64decode(first["response"]["content"]["text"])
        == b"\xff secret %s \xfe" % mask(SECRET).encode()
    )
    assert second["response"]["content"] == {
        "size": 1,
        "mimeType": "text/plain",
        "text": "<not recorded: a body said to be base64 that is not>",
    }


# ------------------------------------------------------------- credentials in another encoding


def _escaped_workload(poll: int) -> bytes:
    """A workload whose ``spec.args`` holds the token and the secret in every escaped form, written
    as the server's own bytes (a JSON encoder would write them plainly)."""
    value = workload(phase="Running" if poll < 4 else "Completed")  # (poll 1 is the 500)
    value["spec"] = {**value["spec"], "args": "@ECHO@"}
    return json.dumps(value).replace("@ECHO@", f"{_echo(TOKEN)} {_echo(SECRET)} {poll}").encode()


def test_a_credential_written_back_escaped_or_encoded_reaches_no_file_or_stream(tmp_path):
    error = f'{{"code": 500, "message": "{_echo(TOKEN)} {_echo(SECRET)}"}}'.encode()
    headers = {
        "Location": f"http://elsewhere.example/cb?t={quote(TOKEN, safe='')}&s={quote_plus(SECRET)}",
        "X-Echo": f"{_b64('Bearer ', TOKEN)} {_b64('client-review-01:', SECRET)}",
        "Set-Cookie": f"seen={quote(TOKEN, safe='')}; Path=/",
    }
    fake = FakeTime()
    with running(_runai_peer(_escaped_workload, error_body=error, headers=headers)) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=RUNAI_ENV, schedule=Schedule(10, count=5))
    lines = got.lines
    assert [line["actualPhase"] for line in lines] == ["Running", "Running", "Completed"]  # echoes differ
    text = got.har.read_text()
    _assert_nowhere(
        [TOKEN, SECRET], got.out, got.err, got.ndjson.read_text(), text, values=[*lines, json.loads(text)]
    )
    assert mask(TOKEN) in lines[0]["spec"]["args"] and mask(SECRET) in lines[0]["spec"]["args"]
    assert got.outcome.code == 1  # (the workload is checked as recorded: the echo is no valid spec)


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_an_aihc_secret_key_written_back_escaped_or_encoded_reaches_no_file(tmp_path, api):
    def handler(request, conn):
        echo = f"{_echo(SK)} {_echo(AK)}"
        if len(peer.requests) == 1:
            body = f'{{"requestId": "r", "code": "InternalError", "message": "{echo}"}}'.encode()
            return answer(conn, 500, body, {"Location": f"http://elsewhere.example/?k={quote_plus(SK)}"})
        result = {"jobId": JOB, "jobid": JOB, "status": "Succeeded", "note": "@ECHO@"}
        body = json.dumps({"requestId": "r", "result": {**result, "job": result}}).replace("@ECHO@", echo)
        return answer(conn, 200, body.encode())

    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(
            peer, "aihc", [JOB], tmp_path, fake, env=BCE_ENV, schedule=Schedule(10, count=2), aihc_api=api
        )
    text = got.har.read_text()
    _assert_nowhere(
        [SK, AK], got.out, got.err, got.ndjson.read_text(), text, values=[*got.lines, json.loads(text)]
    )
    statuses = [item["response"]["status"] for item in got.entries]
    assert got.lines and statuses[0] == 500 and set(statuses[1:]) == {200}


# ------------------------------------------------------------------- what the guard holds and how


def test_a_credential_holding_another_is_masked_whole():
    short, long = "abcdefgh12", "XYZ-abcdefgh12-tail99"
    for order in ([short, long], [long, short]):
        guard = Guard(order[:1])
        guard.add(order[1])
        assert guard.clean(f"<{long}> <{short}>") == f"<{mask(long)}> <{mask(short)}>"


def test_the_guard_forgets_the_oldest_learned_credential_past_its_cap_never_a_given_one():
    guard = Guard([SECRET, AK])
    learned = [f"learned-token-{number:06d}" for number in range(MAX_GUARDED * 3)]
    for token in learned:
        guard.add(token)
    guard.add(learned[0])  # learned again: the newest once more
    assert len(guard) == MAX_GUARDED + 2
    text = " ".join([SECRET, AK, learned[0], *learned[-MAX_GUARDED + 1 :]])
    assert guard.clean(text) == " ".join(
        mask(value) for value in [SECRET, AK, learned[0], *learned[-MAX_GUARDED + 1 :]]
    )
    assert guard.clean(learned[1]) == learned[1]  # forgotten


def test_a_peer_handing_out_many_credentials_a_poll_makes_the_guard_hold_no_more(tmp_path, monkeypatch):
    guards: list[Guard] = []

    class Kept(Guard):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            guards.append(self)

    monkeypatch.setattr(recorder_module, "Guard", Kept)
    fake = FakeTime()
    issued: list[str] = []

    def handler(request, conn):
        if is_token(request):  # always expired: a new token (and 300 new strings) on every poll
            token = jwt({"exp": 1, "n": len(issued)})
            issued.append(token)
            extra = {f"k{number}": f"handle-{len(issued):04d}-{number:04d}" for number in range(300)}
            return answer(conn, 200, {"accessToken": token, **extra})
        if is_cluster(request):
            return answer(conn, 200, {"uuid": "c", "version": "2.24.0"})
        token = request.headers["authorization"].removeprefix("Bearer ")
        return answer(conn, 200, workload(spec={**workload()["spec"], "args": f"echo {token}"}))

    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=RUNAI_ENV, schedule=Schedule(10, count=4))
    assert len(issued) == 4 and len(guards) == 1
    assert len(guards[0]) <= MAX_GUARDED + 1  # the client secret, and the newest learned
    assert [line["spec"]["args"] for line in got.lines] == [f"echo {mask(token)}" for token in issued]
    assert issued[-1] not in got.har.read_text()


# ------------------------------------------------------------------------- a login in the --url

URL_LOGIN = "PLANTEDurlpass99"


@pytest.mark.parametrize(
    ("login", "shown"),
    [
        (f"bob:{URL_LOGIN}", mask(f"bob:{URL_LOGIN}")),
        (URL_LOGIN, mask(URL_LOGIN)),  # a token as the user name
        (f":{URL_LOGIN}", mask(f":{URL_LOGIN}")),
        ("", ""),
    ],
)
@pytest.mark.parametrize("api", ["runai", "aihc"])
def test_a_url_holding_a_login_is_one_usage_line_never_showing_it(run_cli, monkeypatch, login, shown, api):
    for name, value in {**RUNAI_ENV, **BCE_ENV}.items():
        monkeypatch.setenv(name, value)
    job = ["--workload", JOB] if api == "runai" else ["--job", JOB, "--resource-pool", "p"]
    url = f"http://{login}@127.0.0.1:9/base"
    result = run_cli(["record", api, "--url", url, *job, "--count", "1"], code=2)
    assert result.stderr == (
        f"Error: --url http://{shown}@127.0.0.1:9/base: a base URL holds no user name or password (@); "
        "give the credentials as options, in a credentials file or in the environment\n"
    )
    assert result.stdout == ""


def test_a_url_login_is_never_sent_nor_written(tmp_path):
    """(Before: httpx sent it as ``Authorization: Basic`` in place of the bearer token, and a server
    writing it back had it written to the HAR in the clear.)"""

    def handler(request, conn):
        raise AssertionError(f"no request is sent: {request.method} {request.path}")

    fake = FakeTime()
    with running(handler) as peer:
        url = peer.url.replace("http://", f"http://bob:{URL_LOGIN}@")
        with pytest.raises(recorder_module.RecordUsageError, match="holds no user name or password"):
            run_record(SimpleNamespace(url=url), "runai", [JOB], tmp_path, fake, env=RUNAI_ENV)
        assert peer.requests == []
    assert not (tmp_path / "rec.har").exists() and not (tmp_path / "rec.ndjson").exists()


@pytest.mark.parametrize(
    "url", [f"http://{URL_LOGIN}@[::1", f"ftp://{URL_LOGIN}@tenant", f"http://{URL_LOGIN}@a..b/"]
)
def test_a_url_refused_for_another_reason_never_shows_its_login(run_cli, monkeypatch, url):
    for name, value in RUNAI_ENV.items():
        monkeypatch.setenv(name, value)
    result = run_cli(["record", "runai", "--url", url, "--workload", JOB, "--count", "1"], code=2)
    assert result.stderr.startswith(f"Error: --url {url.replace(URL_LOGIN, mask(URL_LOGIN))}: ")
    assert URL_LOGIN not in result.stderr and len(result.stderr.splitlines()) == 1


# ------------------------------------------------------------- every control-plane version alike

RUNAI_VERSIONS = ["2.18", "2.19", "2.20", "2.21", "2.22", "2.23", "2.24"]


@pytest.mark.parametrize("version", RUNAI_VERSIONS)
def test_every_runai_version_is_recorded_alike_and_checked_against_itself(
    jobschema_server, tmp_path, version
):
    from tests.record_support import phases, submit_workload

    fake = FakeTime()
    lifecycle = ["Creating", {"phase": "Pending", "polls": 2}, "Running", "Completed"]
    server = jobschema_server(lifecycle={"runai": lifecycle}, clock=fake, api_versions={"runai": version})
    job = submit_workload(server)
    got = run_record(server, "runai", [job], tmp_path, fake)
    assert phases(got.lines) == ["Creating", "Pending", "Running", "Completed"]
    assert got.outcome.code == 0, got.out
    assert got.out == "4 payloads: 4 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"
    last = got.err.splitlines()[-1]
    assert last.startswith(
        f"runai {job}: Completed (terminal); 5 polls, 3 changes, 0 errors; cluster {version}"
    )
    assert ", not a known version" not in last


# ------------------------------------------------------------------ redirects are never followed


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize(
    ("api", "env", "options"), [("runai", RUNAI_ENV, {}), ("aihc", BCE_ENV, {"aihc_api": "v2"})]
)
def test_a_redirect_to_another_origin_is_recorded_never_followed(tmp_path, status, api, env, options):
    """Every answer a 3xx to another origin (a peer that would collect credentials): nothing reaches
    it, the redirects are error answers in the HAR, and the number of requests stays bounded."""
    with running(lambda request, conn: answer(conn, 200, {"stolen": True})) as elsewhere:
        target = elsewhere.url

        def handler(request, conn):
            if is_token(request) and len(peer.requests) == 1:  # Run:ai: a token, then only redirects
                return answer(conn, 200, {"accessToken": TOKEN})
            return answer(conn, status, b"", {"Location": f"{target}{request.path}"})

        fake = FakeTime()
        with running(handler) as peer:
            got = run_record(
                peer, api, [JOB], tmp_path, fake, env=env, schedule=Schedule(10, count=3), **options
            )
        assert elsewhere.requests == []
    redirects = [item for item in got.entries if item["response"]["status"] != 200]
    assert len(redirects) == 3 and len(got.entries) == 3 + (api == "runai")  # each poll's one request
    assert {item["response"]["status"] for item in redirects} == {status}
    assert all(item["response"]["redirectURL"].startswith(target) for item in redirects)
    assert got.lines == [] and got.outcome.code == 1


# ------------------------------------------------------------ what a message names as the request

V2_ANSWERS = {
    "not JSON": (200, b'{"requestId": "r", "result":', "(root): "),
    "not an object": (200, b"[]", "not recorded: not a JSON object (an array)"),
    "an invalid error": (500, b'{"code": 7}', "(root): "),
}


@pytest.mark.parametrize("kind", sorted(V2_ANSWERS))
def test_an_aihc_v2_answer_is_named_by_the_post_that_asked_for_it(tmp_path, kind):
    """(Before: every message named the request ``GET …``, a v2 poll being a ``POST``.)"""
    status, body, said = V2_ANSWERS[kind]
    fake = FakeTime()
    with running(lambda request, conn: answer(conn, status, body)) as peer:
        url = peer.url
        got = run_record(
            peer, "aihc", [JOB], tmp_path, fake, env=BCE_ENV, schedule=Schedule(10, count=1), aihc_api="v2"
        )
    named = [line for line in (got.out + got.err).splitlines() if said in line]
    assert named and all(line.startswith(("POST ", "warning: POST ")) for line in named), got.out + got.err
    assert f"{url}/?action=DescribeJob&" in named[0]
    assert "GET " not in got.out + got.err


# ----------------------------------------------------------- enormous credentials are bounded too


def test_the_guard_holds_a_bounded_text_of_learned_credentials_and_a_long_one_by_its_start():
    from jobschema.record.guard import MAX_GUARDED_TEXT, MAX_SECRET

    guard = Guard([SECRET])
    long = [f"{number:04d}" + "x" * (MAX_SECRET - 4) for number in range(40)]
    for value in long:
        guard.add(value)
    assert len(guard) - 1 <= MAX_GUARDED_TEXT // MAX_SECRET  # the newest that fit
    assert guard.clean(long[-1]) == mask(long[-1]) and guard.clean(SECRET) == mask(SECRET)
    assert guard.clean(long[0]) == long[0]  # forgotten
    huge = "".join(f"{number:06d}" for number in range(MAX_SECRET // 2))  # 3 * MAX_SECRET characters
    guard.add(huge)
    assert guard.clean(huge) == mask(huge[:MAX_SECRET]) + huge[MAX_SECRET:]


def _refused_token(tmp_path, token: str, count: int) -> tuple[str, str, int]:
    """Record a Run:ai job from a peer whose token answer is ``token``: the refusal (``AuthFailed``),
    the peer's URL and how many requests it got (the peer fails the run if any other is sent)."""
    from jobschema.record.credentials import AuthFailed

    def handler(request, conn):
        assert is_token(request), request.path  # the token is never sent anywhere
        return answer(conn, 200, {"accessToken": token})

    with running(handler) as peer:
        with pytest.raises(AuthFailed) as caught:
            schedule = Schedule(10, count=count)
            run_record(peer, "runai", [JOB], tmp_path, FakeTime(), env=RUNAI_ENV, schedule=schedule)
        return str(caught.value), peer.url, len(peer.requests)


def test_an_access_token_too_long_to_guard_ends_the_recording_unsent(tmp_path):
    from jobschema.record.guard import MAX_SECRET

    long = "t" * (MAX_SECRET + 1)
    refusal, url, _ = _refused_token(tmp_path, long, count=2)
    size = f"{MAX_SECRET + 1} characters (at most {MAX_SECRET})"
    assert refusal == f"the answer of {url}/api/v1/token holds an accessToken of {size}"
    assert long[:100] not in (tmp_path / "rec.har").read_text()


def test_a_token_answer_flooded_with_strings_still_guards_the_token_in_use(tmp_path):
    fake = FakeTime()

    def handler(request, conn):
        if is_token(request):
            flood = {f"k{number}": f"{number:04d}-" + "z" * 8000 for number in range(300)}
            return answer(conn, 200, {"accessToken": TOKEN, **flood})
        if is_cluster(request):
            return answer(conn, 200, {"uuid": "c", "version": "2.24.0"})
        return answer(
            conn, 200, workload(phase="Completed", spec={**workload()["spec"], "args": f"echo {TOKEN}"})
        )

    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=RUNAI_ENV, schedule=Schedule(10, count=1))
    assert [line["spec"]["args"] for line in got.lines] == [f"echo {mask(TOKEN)}"]
    assert TOKEN not in got.har.read_text()


NON_ASCII = "PLANTED-sécret-ñ/77"


@pytest.mark.parametrize(
    "page", ["<html><script>var s = '{echo}';</script></html>", '{{"message": "{echo}", "n": 1e400}}']
)
def test_a_non_ascii_secret_escaped_in_a_body_that_is_no_json_is_masked(tmp_path, page):
    """A body no JSON parser reads (an HTML page, a number out of range) is guarded as text: each
    escaped spelling of the secret (``\\u00e9``, Java's ``\\u00E9``, ``\\/``) is a form guarded."""
    forms = [
        json.dumps(NON_ASCII)[1:-1],
        json.dumps(NON_ASCII)[1:-1].replace("u00e9", "u00E9").replace("u00f1", "u00F1"),
    ]
    forms += [form.replace("/", "\\/") for form in forms]
    body = page.format(echo=" ".join(forms)).encode()
    fake = FakeTime()
    env = {**RUNAI_ENV, "RUNAI_CLIENT_SECRET": NON_ASCII}
    handler = _runai_peer(json.dumps(workload(phase="Completed")).encode(), error_body=body)
    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=env, schedule=Schedule(10, count=1))
    (text,) = [
        item["response"]["content"]["text"] for item in got.entries if item["response"]["status"] == 500
    ]
    assert text == page.format(echo=" ".join([mask(NON_ASCII)] * 4))


# ------------------------------------------------------------------------- the terminal's lines


@pytest.mark.parametrize(
    "phase",
    [
        "運行中" * 20,
        "\uff32\uff55\uff4e\uff4e\uff49\uff4e\uff47" * 8,
        "e\u0301" * 60,
        "🚀" * 30,
        "Running" * 10,
    ],
)
def test_a_status_line_on_a_terminal_never_takes_more_than_its_width(phase):
    """A line wider than the terminal wraps onto a second row, and the redraw, moving up one row a
    line, leaves the rows above garbled: each is cut at the width in columns, wide characters two."""
    import io
    import unicodedata

    from jobschema.record.status import JobState, StatusBoard

    def columns(text: str) -> int:
        wide = ("W", "F")
        return sum(
            0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in wide else 1
            for c in text
        )

    job = JobState("aihc", "j", phase=phase)
    stream = io.StringIO()
    StatusBoard(stream, [job], tty=True, clean=Guard().line, width=lambda: 41).update()
    (line,) = stream.getvalue().removeprefix("\x1b[K").removesuffix("\n\x1b[J").splitlines()
    assert line.endswith("…") and line.startswith("aihc j: ")
    assert 38 <= columns(line) <= 40


# ------------------------------------------------------------------------ cookies are never kept


@pytest.mark.parametrize(("api", "env"), [("runai", RUNAI_ENV), ("aihc", BCE_ENV)])
def test_a_cookie_an_answer_sets_is_recorded_never_sent_back(tmp_path, api, env):
    """(Before: httpx's jar kept each one and sent them all on every later request, so a server
    setting a new cookie on every answer grew the jar, and every request, without end.)"""
    set_cookies: list[str] = []

    def handler(request, conn):
        cookie = f"c{len(set_cookies)}=PLANTEDcookie{len(set_cookies):04d}; Path=/"
        set_cookies.append(cookie)
        if is_token(request):
            return answer(conn, 200, {"accessToken": TOKEN}, {"Set-Cookie": cookie})
        return answer(conn, 503, {"code": 503, "message": "busy"}, {"Set-Cookie": cookie, "Retry-After": "0"})

    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(peer, api, [JOB], tmp_path, fake, env=env, schedule=Schedule(10, count=3))
        sent = [request.headers.get("cookie") for request in peer.requests]
    assert len(sent) >= 15 and sent == [None] * len(sent)
    assert all(
        {header["name"] for header in item["response"]["headers"]} >= {"set-cookie"} for item in got.entries
    )
    assert "PLANTEDcookie" not in got.har.read_text()  # (masked as the policy masks Set-Cookie)


# --------------------------------------------------------- credentials that cannot be a header

NOT_HEADERS = [
    "abcdefgh\nX-Evil: 1",
    "abcdefgh\r\nX: y",
    "tøken-€-abcdefgh",
    "abcdefgh\x00ijk",
    " abcdefgh ",
    "aaaaaaaa\u2028",
]


@pytest.mark.parametrize("token", NOT_HEADERS)
def test_an_access_token_that_cannot_be_a_header_ends_the_recording_naming_it(tmp_path, token):
    """(Before: a non-ASCII one ended it blaming "the request URL"; one with a space or a control
    character failed every attempt of every poll, retried, until --count or --duration.)"""
    refusal, url, requests = _refused_token(tmp_path, token, count=3)
    assert requests == 1
    assert refusal == (
        f"the answer of {url}/api/v1/token: its accessToken holds a space, a control or a non-ASCII "
        "character: it cannot be sent in a header"
    )


@pytest.mark.parametrize("key", ["AK123456 ", "AK1234\n", "AKé12345", "AK\t123456"])
def test_an_access_key_id_that_cannot_be_a_header_is_one_line_naming_where_it_came_from(
    run_cli, monkeypatch, tmp_path, key
):
    monkeypatch.setenv("BCE_SECRET_ACCESS_KEY", SK)
    monkeypatch.setenv("BCE_ACCESS_KEY_ID", key)
    args = [
        "record",
        "aihc",
        "--url",
        "http://127.0.0.1:9",
        "--job",
        JOB,
        "--resource-pool",
        "p",
        "--count",
        "1",
    ]
    problem = "holds a space, a control or a non-ASCII character: it cannot be sent in a header"
    result = run_cli(args, code=2)
    assert result.stderr == f"Error: BCE_ACCESS_KEY_ID: {problem} (a stray newline, space or quote?)\n"
    credentials = tmp_path / "creds.toml"
    credentials.write_text(f"[aihc]\naccess_key_id = {json.dumps(key)}\nsecret_access_key = 'x'\n")
    credentials.chmod(0o600)
    result = run_cli([*args, "--credentials", str(credentials)], code=2)
    assert (
        result.stderr
        == f"Error: {credentials}: aihc.access_key_id: {problem} (a stray newline, space or quote?)\n"
    )


# ------------------------------------------------------------- the guard's forms, as a property


_ENCODINGS = {
    "plain": lambda before, secret, after: before + secret + after,
    "json": lambda before, secret, after: json.dumps(before + secret + after)[1:-1],
    "json ascii upper": lambda before, secret, after: re.sub(
        r"\\u[0-9a-f]{4}", lambda hit: "\\u" + hit[0][2:].upper(), json.dumps(before + secret + after)[1:-1]
    ),
    "slashes": lambda before, secret, after: _slashed(before + secret + after),
    "percent": lambda before, secret, after: quote(before + secret + after, safe=""),
    "form": lambda before, secret, after: quote_plus(before + secret + after),
    "base64": lambda before, secret, after: _b64(before, secret + after),
    "base64url": lambda before, secret, after: base64.urlsafe_b64encode(
        (before + secret + after).encode()
    ).decode(),
}


@settings(max_examples=300, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    secret=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=8, max_size=40),
    before=st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=5),
    after=st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=5),
    encoding=st.sampled_from(sorted(_ENCODINGS)),
)
def test_a_secret_in_any_guarded_encoding_amid_any_text_is_masked(secret, before, after, encoding):
    written = _ENCODINGS[encoding](before, secret, after)
    cleaned = Guard([secret]).clean(f"<{written}>")
    assert mask(secret) in cleaned
    for form in _forms(secret):
        assert form not in cleaned, form


# ---------------------------------------------------------------------------------- determinism


def test_the_same_answers_give_the_same_bytes_but_for_the_measured_times(tmp_path):
    """Two recordings of one scripted server: the NDJSON is byte for byte the same, the HAR but for
    each entry's measured ``time`` and ``timings`` (and the server's port, which differs)."""
    answers = [(200, "Pending"), (503, None), (200, "Running"), (200, "Running"), (200, "Completed")]

    def recording(name: str) -> tuple[bytes, str, str]:
        polls: list[int] = []

        def handler(request, conn):
            if is_token(request):
                return answer(
                    conn, 200, {"accessToken": TOKEN, "expiresIn": 3600}, {"Set-Cookie": "s=PLANTEDck1"}
                )
            if is_cluster(request):
                return answer(conn, 200, {"uuid": "c", "version": "2.24.0"})
            status, phase = answers[min(len(polls), len(answers) - 1)]
            polls.append(1)
            body = workload(phase=phase) if phase else {"code": 503, "message": f"busy {TOKEN}"}
            return answer(conn, status, body, {"Retry-After": "1", "X-Echo": SECRET})

        fake = FakeTime(now=1_900_000_000.0)
        with running(handler) as peer:
            got = run_record(peer, "runai", [JOB], tmp_path, fake, env=RUNAI_ENV, name=name)
            port = peer.url.rsplit(":", 1)[1]
        entries = got.entries
        for item in entries:
            item.pop("time"), item.pop("timings")
        return got.ndjson.read_bytes(), json.dumps(entries).replace(port, "PORT"), got.err

    first, second = recording("one"), recording("two")
    assert first[0] == second[0] and first[1] == second[1]
    assert first[2].replace(".ndjson", "") == second[2].replace(".ndjson", "")
