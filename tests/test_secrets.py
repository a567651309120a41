"""The secret policy (:mod:`jobschema.secrets`): keyed masks, names, places, shapes, and the schema
audit (every declared property named like a credential says whether it is one)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jobschema.secrets import is_mask, is_secret_name, mask, mask_url, masked, scrub
from jobschema.secrets.mask import KEY_VARIABLE, mask_key, scoped_mask_key, use_mask_key
from jobschema.secrets.names import is_secret_parameter, words
from jobschema.secrets.reading import find, may_hold_secret
from jobschema.secrets.shapes import PLUGINS, _span, longest, own, shapes
from tests.conftest import MASK_KEY
from tests.support import schema_document

# --- masks ---------------------------------------------------------------------------------------


def test_mask_is_a_keyed_hash_of_the_value() -> None:
    import hmac

    digest = hmac.new(MASK_KEY.encode(), b"123456", hashlib.sha256).hexdigest()
    assert mask("123456") == f"<secret:{digest[:8]}>"
    assert mask("123456") != f"<secret:{hashlib.sha256(b'123456').hexdigest()[:8]}>"


def test_a_pin_cannot_be_found_from_its_mask_without_the_key() -> None:
    """What the unkeyed SHA-256 mask allowed: try every 6-digit PIN against the mask."""
    target = mask("042917")
    unkeyed = {f"<secret:{hashlib.sha256(f'{n:06d}'.encode()).hexdigest()[:8]}>" for n in range(10**6)}
    assert target not in unkeyed


def test_masks_are_stable_within_a_run_and_change_with_the_key() -> None:
    assert mask("hunter2") == mask("hunter2") != mask("hunter3")
    try:
        use_mask_key(b"another key")
        other = mask("hunter2")
    finally:
        use_mask_key(None)
    assert other != mask("hunter2")
    assert mask_key() == MASK_KEY.encode()


def test_a_scoped_key_holds_in_its_block_and_thread_only() -> None:
    import threading

    outside = mask("hunter2")
    seen: dict[str, str] = {}
    started, release = threading.Event(), threading.Event()

    def other_thread() -> None:
        started.wait(60)  # (bounds that only end a hung test: a busy machine never reaches them)
        seen["other"] = mask("hunter2")
        release.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with scoped_mask_key(b"a task's key"):
        started.set()
        release.wait(60)
        seen["inside"] = mask("hunter2")
        assert mask_key() == b"a task's key"
    thread.join(60)
    assert seen["other"] == outside == mask("hunter2") != seen["inside"]
    use_mask_key(b"a task's key")
    try:
        assert mask("hunter2") == seen["inside"]
    finally:
        use_mask_key(None)


def test_without_a_key_each_run_draws_its_own() -> None:
    code = "from jobschema.secrets import mask; print(mask('hunter2'))"
    env_base = {k: v for k, v in __import__("os").environ.items() if k != KEY_VARIABLE}
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], env=env_base, capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(runs) == 2
    keyed = subprocess.run(
        [sys.executable, "-c", code],
        env={**env_base, KEY_VARIABLE: MASK_KEY},
        capture_output=True,
        text=True,
        check=True,
    )
    assert keyed.stdout == mask("hunter2") + "\n"


def test_mask_format_and_idempotence() -> None:
    assert is_mask(mask("x"))
    assert mask(mask("x")) == mask("x")
    assert mask("") == ""
    assert is_mask("<secret:1f3fa74b>")  # an old unkeyed mask is still a mask
    assert mask(10**5000).startswith("<secret:")  # beyond Python's int-to-str limit
    assert is_mask(mask("\ud800"))  # a lone surrogate can be masked


_POOL_MASKS = (
    "from jobschema.secrets.mask import mask\n"
    "from jobschema.validate.parallel.pool import run_in_processes\n"
    "masks = list(run_in_processes(mask, ['hunter2'] * 8, 2))\n"
    "print(len(set(masks)), masks[0] == mask('hunter2'))\n"
)
_FORKED_MASKS = (
    "from jobschema.secrets.mask import mask\n"
    "from jobschema.validate.parallel.fork import run_forked\n"
    "import os, sys, time\n"
    "parent, child = os.getpid(), sys.argv[1]\n"  # (a file a child makes)
    "def work(ticket):\n"  # the first ticket, checked before the fork, masks nothing
    "    if os.getpid() != parent:\n"
    "        open(child, 'w').close()\n"
    "    deadline = time.monotonic() + 60\n"  # here, a ticket waits until a child did one (bounded)
    "    while os.getpid() == parent and ticket[0] and not os.path.exists(child):\n"
    "        time.sleep(0.001) if time.monotonic() < deadline else exit('no child started')\n"
    "    return os.getpid(), mask('hunter2') if ticket[0] else ''\n"
    "got = run_forked(work, [(n, 0, 0, 0, 0) for n in range(40)], 3, lambda result: 1)[1:]\n"
    "assert len({pid for pid, _ in got}) > 1, 'one process did every ticket'\n"
    "print(len({m for _, m in got}), got[0][1] == mask('hunter2'))\n"
)


@pytest.mark.parametrize(
    "code",
    [
        _POOL_MASKS,
        pytest.param(
            _FORKED_MASKS,
            marks=pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forking is Linux's"),
        ),
    ],
    ids=["process-pool", "forked"],
)
def test_worker_processes_mask_with_the_parents_key(code: str, tmp_path) -> None:
    """``validate --jobs N``: the workers (a pool's, or forked children) mask with this run's key, even
    a random one not drawn before they started (a worker drawing its own would give the same secret
    another mask)."""
    env = {k: v for k, v in __import__("os").environ.items() if k != KEY_VARIABLE}
    command = [sys.executable, "-c", code, str(tmp_path / "child")]
    run = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    assert run.stdout == "1 True\n"


# --- names and places ----------------------------------------------------------------------------

SECRET_NAMES = [
    "password",
    "DB_PASSWORD",
    "passwd",
    "PWD",
    "secret",
    "clientSecret",
    "appSecret",
    "AppSecret",
    "token",
    "accessToken",
    "refreshToken",
    "access_token",
    "id_token",
    "idToken",
    "HF_TOKEN",
    "credential",
    "credentials",
    "X-Amz-Credential",
    "api_key",
    "apiKey",
    "X-Api-Key",
    "APIKey",
    "accessKey",
    "secretKey",
    "access_key_id",
    "aws_secret_access_key",
    "private_key",
    "privateKey",
    "ak",
    "sk",
    "AK",
    "SK",
    "BCE_AK",
    "BCE_SK",
    "bosAccessKeyId",
    "bosSecretAccessKey",
    "authorization",
    "Proxy-Authorization",
    "cookie",
    "Set-Cookie",
    "session",
    "sessionId",
    "signature",
    "sig",
    "X-Amz-Signature",
    "X-Amz-Security-Token",
    "DOCKER_AUTH_CONFIG",
    ".dockerconfigjson",
    "auth",
    "GITHUB_PAT",
    "imagePullSecretPassword",
    "imagePullSecretUsername",
    "bosTemporaryToken",
]
PLAIN_NAMES = [
    "name",
    "key",
    "value",
    "TOKENIZERS_PARALLELISM",
    "tokenizer",
    "max_tokens",
    "token_type",
    "tokenExpiresAt",
    "secretName",
    "secretRef",
    "passwordFile",
    "password-stdin",
    "imagePullSecrets",
    "sshAuthMountPath",
    "authorizationType",
    "authenticationMethod",
    "passwordSecret",
    "accessKeySecret",
    "secretKeyOfUser",
    "sessionAffinity",
    "mask",
    "tasks",
    "desk",
    "skip",
    "NCCL_DEBUG",
    "",
]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_credential_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_names_that_are_not_credentials(name: str) -> None:
    assert not is_secret_name(name)


def test_words_and_parameters() -> None:
    assert words("bosSecretAccessKey") == ("bos", "secret", "access", "key")
    assert words("X-Amz-Signature") == ("x", "amz", "signature")
    assert words("APIKey2") == ("api", "key", "2")
    assert is_secret_parameter("key") and is_secret_parameter("sig") and not is_secret_name("key")


def _declared(document: Any, pointer: str = "") -> list[tuple[str, str, Any]]:
    found = []
    if isinstance(document, dict):
        for key, node in (document.get("properties") or {}).items():
            if isinstance(node, dict):
                found.append((f"{pointer}/properties/{key}", key, node.get("x-jobschema-secret")))
        for key, node in document.items():
            if key != "examples":
                found += _declared(node, f"{pointer}/{key}")
    elif isinstance(document, list):
        for index, node in enumerate(document):
            found += _declared(node, f"{pointer}/{index}")
    return found


@pytest.mark.parametrize("schema", ["aihc-job-detail", "aihc-raw-request", "runai-distributed-workload"])
def test_every_declared_property_named_like_a_credential_says_whether_it_is_one(schema: str) -> None:
    unmarked = [
        pointer
        for pointer, name, mark in _declared(schema_document(schema))
        if is_secret_name(name) and not isinstance(mark, bool)
    ]
    assert unmarked == []


def test_schema_marks_in_both_directions() -> None:
    marks = {
        name: mark
        for schema in ("aihc-raw-request", "runai-distributed-workload")
        for _, name, mark in _declared(schema_document(schema))
        if isinstance(mark, bool)
    }
    assert marks["imagePullSecretPassword"] is True
    assert marks["bosTemporaryToken"] is True
    assert marks["sshAuthMountPath"] is False
    assert marks["imagePullSecrets"] is False
    assert marks["passwordSecret"] is False


def test_masked_applies_places_and_shapes() -> None:
    value = {
        "envs": [{"name": "DB_PASSWORD", "value": "pw"}, {"name": "NOTE", "value": "Bearer abc.DEF-123"}],
        "token": "t",
        "nested": {"password": {"type": "string"}},
        "labels": [{"key": "api-token", "value": "x"}],
        "tokenizer": "gpt2",
    }
    assert masked(value) == {
        "envs": [
            {"name": "DB_PASSWORD", "value": mask("pw")},
            {"name": "NOTE", "value": f"Bearer {mask('abc.DEF-123')}"},
        ],
        "token": mask("t"),
        "nested": {"password": {"type": "string"}},
        "labels": [{"key": "api-token", "value": mask("x")}],
        "tokenizer": "gpt2",
    }
    assert masked("x", ("env", "HF_TOKEN")) == "x"  # the caller decides the place of the value itself


# --- shapes --------------------------------------------------------------------------------------

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"Authorization: Bearer {JWT}", None),
        (f"note Bearer {JWT} end", JWT),
        ("Basic YWxhZGRpbjpvcGVuc2VzYW1l", "YWxhZGRpbjpvcGVuc2VzYW1l"),
        ("bce-auth-v1/ak0123456789/2026-12-03T06:00:00Z/1800/host/abcdef", None),
        (f"label {JWT}", JWT),
        ("postgres://app:pg-Sup3r@db.example/db", "pg-Sup3r"),
        ("https://u:robot$ci@registry.example/v2", "robot$ci"),
        (
            "huggingface-cli login --token hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
            "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
        ),
        ("python x.py --hf-token abc123 --epochs 3", "abc123"),
        ("run --password=hunter2", "hunter2"),
        ("docker login -u me -p hunter2 registry.io", "hunter2"),
        ("export HF_TOKEN=abc; TOKENIZERS_PARALLELISM=false", "abc"),
        ("?a=1&X-Amz-Signature=abcdef&b=2", "abcdef"),
        ("?sig=abc%2Fdef&x=1", "abc%2Fdef"),
        ('{"clientSecret": "s3cret value"}', "s3cret value"),
        ('{\\"password\\":\\"pw1\\"}', "pw1"),
        ("var apiKey = 'k-123';", "k-123"),
        ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
        ("key=AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
        ("ghp_" + "a" * 36, "ghp_" + "a" * 36),
        ("xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
        ("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----", "\nMHcCAQEE\n"),
    ],
)
def test_secret_shapes_are_masked_and_the_rest_kept(text: str, secret: str | None) -> None:
    scrubbed = scrub(text)
    assert scrubbed != text
    if secret is not None:
        assert scrubbed == text.replace(secret.strip(), mask(secret.strip()))
    assert scrub(scrubbed) == scrubbed


@pytest.mark.parametrize(
    "text",
    [
        "1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped",
        "envs[name=HF_TOKEN].value labels[key=team]",
        "Basic information about the job",
        "TOKENIZERS_PARALLELISM=false --max-tokens 4096 --password-stdin",
        "/spec/secret: expected object, got string",
        "tests/fixtures/secrets/aihc-job.json: /result/envs/1/value: unmasked secret [redact]",
        "<secret:0123abcd> and secret:0123",
        "",
    ],
)
def test_text_without_a_secret_is_left_alone(text: str) -> None:
    assert scrub(text) == text


def test_text_without_an_anchor_imports_nothing() -> None:
    code = (
        "import sys; from jobschema.secrets import scrub;"
        "scrub('1 payload: 1 valid, 0 invalid'); print('detect_secrets' in sys.modules);"
        "scrub('x AKIAIOSFODNN7EXAMPLE'); print('detect_secrets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "False\nTrue\n"


def test_every_plugin_pattern_has_its_anchors() -> None:
    names = [shape.name for shape in shapes()]
    for plugin, anchored in PLUGINS.items():
        assert [n for n in names if n.startswith(plugin + "[")] == [
            f"{plugin}[{i}]" for i in range(len(anchored))
        ]
    assert len(own()) == len({shape.name for shape in own()})


#: Shapes whose matches are judged by a name or a decoding (tested with names below, not random text).
JUDGED = ("jwt",)


def _regex_cases() -> list[tuple[str, Any]]:
    return [(shape.name, shape.pattern) for shape in shapes() if shape.name not in JUDGED]


@pytest.mark.parametrize(("name", "pattern"), _regex_cases(), ids=[name for name, _ in _regex_cases()])
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_whatever_a_shape_matches_has_an_anchor(name: str, pattern: Any, data: st.DataObject) -> None:
    """The anchors are a superset of the shapes: a text a shape takes for a secret is never skipped
    unscanned (name shapes match any name; only credential-like ones count). Credentials are ASCII:
    the patterns' ``\\d`` and ``\\w`` would also take other scripts' digits and letters."""
    text = data.draw(st.from_regex(pattern, fullmatch=True, alphabet=st.characters(max_codepoint=127)))
    shape = next(s for s in shapes() if s.name == name)
    match = pattern.fullmatch(text)
    assume(match is not None and (shape.accept is None or shape.accept(text, match)))
    assume(_span(text, shape, match) is not None)  # a secret part that is not only quotes or space
    assert may_hold_secret(text), (name, text)


def test_every_shape_matches_within_its_window() -> None:
    """The gate scans ``before`` characters before an anchor and ``after`` from it: a shape whose
    longest match is longer would pass a text unscanned (a Tencent key pair with long runs of spaces
    did, and the random test above found more). Every shape, detect-secrets' too, is bounded."""
    longer = [
        (shape.name, longest(shape.pattern), shape.after + shape.before)
        for shape in shapes()
        if longest(shape.pattern) > shape.after + shape.before
    ]
    assert longer == []


def test_a_shape_anchored_at_its_start_fits_after_its_anchor() -> None:
    """A shape tried only at its anchor (``before`` 0) ends within ``after`` of it."""
    assert [s.name for s in shapes() if s.before == 0 and longest(s.pattern) > s.after] == []


def _styles(words_: list[str]) -> list[str]:
    camel = words_[0] + "".join(w.capitalize() for w in words_[1:])
    return ["_".join(words_).upper(), "-".join(words_), camel, camel[0].upper() + camel[1:], "".join(words_)]


NAME_WORDS = [
    ["db", "password"],
    ["client", "secret"],
    ["access", "token"],
    ["bos", "ak"],
    ["bce", "sk"],
    ["github", "pat"],
    ["wifi", "psk"],
    ["api", "key"],
    ["x", "amz", "signature"],
    ["session", "id"],
    ["docker", "auth", "config"],
    ["db", "pass"],
    ["ak", "id"],
    ["sk"],
    ["otp"],
    ["auth"],
]


@pytest.mark.parametrize("name_words", NAME_WORDS, ids=["-".join(w) for w in NAME_WORDS])
def test_credential_names_in_every_style_are_found_in_text(name_words: list[str]) -> None:
    for name in _styles(name_words):
        if not is_secret_name(name):
            continue
        for text, secret in (
            (f"{name}=v4lue-1", "v4lue-1"),
            (f"--{name} v4lue-2", "v4lue-2"),
            (f'{{"{name}": "v4lue 3"}}', "v4lue 3"),
            (f"const {name} = 'v4lue-4';", "v4lue-4"),
        ):
            assert scrub(text) == text.replace(secret, mask(secret)), (name, text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_scrub_never_raises_and_is_idempotent(text: str) -> None:
    once = scrub(text)
    assert scrub(once) == once
    assert find(once) == ()


def test_mask_url_keeps_bytes_and_masks_shapes_in_the_path() -> None:
    url = f"https://h.example/download/{JWT}/file?key=AIzaSyA1234567890abcdefghijklmnopqrstuv&api_key=#f"
    assert mask_url(url) == (
        f"https://h.example/download/{mask(JWT)}/file?key={mask('AIzaSyA1234567890abcdefghijklmnopqrstuv')}"
        "&api_key=#f"
    )
