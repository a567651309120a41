"""Where a mask lands, and what a second review found unmasked, by class:

- a name's value stands where its syntax puts it, or nothing is masked there: never the token beside
  it (``auth=('bob', 'x')`` masks ``x``, not ``(``; ``<setting name="Password" serializeAs=…>``
  masks the ``<value>`` child, not ``serializeAs=``; ``expect "password:"; send "x"`` masks ``x``);
- syntaxes of source and markup (``os.environ['X'] = 'x'``, ``os.getenv('X', 'x')``, CDATA,
  namespaced elements, multipart parts, ``<meta name="csrf-token" content=…>``), tool options
  (``ssh-keygen -N``, ``psexec -p``, ``net use SHARE X``) and token shapes (``whsec_``, ``xapp-``,
  ``xai-``, webhook URLs);
- a mask is no credential word: redacting twice gives the same bytes;
- a secret found in the text of markup is masked node by node: the XML stays XML;
- a model's vocabulary is no credential (``pad_token_id``, ``num_key_value_heads``, ``</s>``).

Each form exactly (the mask replaces the secret and nothing else), random compositions (hypothesis),
near misses that must stay as they are, and the CLI.
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.redact import redact_payload, unmasked_secrets
from jobschema.secrets import mask, scrub
from tests.support import REPO
from tests.test_secrets_compose import CONTAINERS
from tests.test_secrets_forms import revealed

S = "Tq8vK2mX9pL4wR"
SEED = REPO / "schemas" / "examples" / "aihc-job-detail" / "seed.json"

#: ``(text, secret)``: the mask must replace exactly ``secret``, every other byte kept.
EXACT = [
    ("requests.get(u, auth=('bob', '§'))", "§"),
    ("requests.get(u, auth=('bob','§'))", "§"),
    ('httpx.get(u, auth=("bob", "§"))', "§"),
    ("HTTPBasicAuth('bob', '§')", "§"),
    ("aiohttp.BasicAuth('bob', '§')", "§"),
    ("requests.auth.HTTPDigestAuth('bob','§')", "§"),
    ('<setting name="Password" serializeAs="String"><value>§</value></setting>', "§"),
    ('<property name="password"><value>§</value></property>', "§"),
    ('<property name="password" value="§"/>', "§"),
    ('<entry key="db.password"><![CDATA[§]]></entry>', "§"),
    ('expect "password:"; send "§\\r"', "§"),
    ("expect 'Password: ' { send '§\\n' }", "§"),
    ("os.environ['OPENAI_API_KEY'] = '§'", "§"),
    ('os.environ["DB_PASSWORD"]="§"', "§"),
    ("os.getenv('API_KEY','§')", "§"),
    ('os.environ.get("HF_TOKEN", "§")', "§"),
    ("os.environ.setdefault('HF_TOKEN', '§')", "§"),
    ('os.Setenv("DB_PASSWORD", "§")', "§"),
    ("<password><![CDATA[§]]></password>", "§"),
    ("<a:password>§</a:password>", "§"),
    ("<ns:config xmlns:ns='x'><ns:apiKey>§</ns:apiKey></ns:config>", "§"),
    ('<meta name="csrf-token" content="§">', "§"),
    ('<meta content="§" name="csrf-token"/>', "§"),
    ('Content-Disposition: form-data; name="password"\r\n\r\n§\r\n--b--', "§"),
    ('Content-Disposition: form-data; name="api_key"\r\nContent-Type: text/plain\r\n\r\n§\r\n--b', "§"),
    ("ssh-keygen -t ed25519 -N § -f k", "§"),
    ("ssh-keygen -p -P § -N § -f k", "§"),
    ("psexec \\\\h -u admin -p § cmd", "§"),
    ("evil-winrm -i 10.0.0.1 -u admin -p §", "§"),
    ("ncftpput -u bob -p § h /tmp f", "§"),
    ("net use Z: \\\\srv\\share § /user:bob", "§"),
    ("net use \\\\srv\\share § /user:bob", "§"),
    ("ConvertTo-SecureString '§' -AsPlainText -Force", "§"),
    ("whsec_aB3dEx7Pq9ZxfGhIjKlMnOpQrStUvWx", "whsec_aB3dEx7Pq9ZxfGhIjKlMnOpQrStUvWx"),
    (
        "xapp-1-A0123456789-1234567890123-abc7Pq9Zxdef0123456789abcdef01234567",
        "xapp-1-A0123456789-1234567890123-abc7Pq9Zxdef0123456789abcdef01234567",
    ),
    (
        "XAI=xai-aB3dEx7Pq9ZxfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh",
        "xai-aB3dEx7Pq9ZxfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh",
    ),
    (
        "https://discord.com/api/webhooks/123456789012345678/abc7Pq9ZxdefghijklmnopqrstuvwxyzABCDEF",
        "abc7Pq9ZxdefghijklmnopqrstuvwxyzABCDEF",
    ),
]

#: Ordinary text that must stay as it is: the same syntaxes holding no credential, a model's
#: vocabulary and its numbers.
NEAR_MISSES = [
    "requests.get(u, auth=auth)",
    "auth=(user, password)",
    "HTTPBasicAuth(user, pw)",
    "get_token('scope')",
    '<setting name="Password" serializeAs="String"/>',
    '<setting name="Password" serializeAs="String"><value></value></setting>',
    'expect "password:"; interact',
    'print("password:"); read x',
    'echo "Enter password:" && read -s PW',
    "os.getenv('API_KEY')",
    "os.environ['API_KEY'] = os.getenv('OTHER')",
    "config.get('auth', 'token')",
    '<meta name="description" content="A password manager">',
    '<meta name="csrf-param" content="authenticity_token">',
    'Content-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--b',
    "ssh-keygen -lf key.pub",
    'ssh-keygen -t ed25519 -N "" -f k',
    "net use * /delete",
    "net start w32time",
    "ConvertTo-SecureString $encrypted",
    "train.py --num_key_value_heads 8 --pad_token_id 0",
    "--num_key_value_heads=8",
    "NUM_KEY_VALUE_HEADS=8",
    '{"eos_token_id": 2, "pad_token": "<pad>", "bos_token_id": 1}',
    'eos_token: "</s>"',
    "unk_token: '<unk>'",
    "--token_dropout 0.1",
    "decoder_start_token_id: 0",
    "eos_token: <|endoftext|>",
    "api_key: 8",
]


def _planted(text: str, secret: str) -> tuple[str, str]:
    """``§`` in a form stands for the planted secret."""
    return text.replace("§", S), secret.replace("§", S)


@pytest.mark.parametrize(("text", "secret"), EXACT)
def test_the_mask_replaces_the_secret_and_nothing_else(text: str, secret: str) -> None:
    text, secret = _planted(text, secret)
    assert scrub(text) == text.replace(secret, mask(secret))


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_stay_as_they_are(text: str) -> None:
    assert scrub(text) == text


@pytest.mark.parametrize(("text", "secret"), EXACT)
def test_scrubbing_twice_is_scrubbing_once(text: str, secret: str) -> None:
    text, _ = _planted(text, secret)
    assert scrub(scrub(text)) == scrub(text)


# --- random compositions ----------------------------------------------------------------------------

_SECRETS = st.from_regex(r"[A-Za-z][A-Za-z0-9]{5,10}[0-9][A-Za-z0-9!%^*]{2,8}", fullmatch=True).filter(
    lambda v: any(c.isupper() for c in v) and any(c.islower() for c in v)
)
_USERS = st.sampled_from(["bob", "admin", "svc-deploy", "root", "CORP\\\\bob"])
_SPACE = st.sampled_from(["", " ", "  "])
_QUOTES = st.sampled_from(["'", '"'])
_CRED_NAMES = st.sampled_from(["password", "Password", "api_key", "DB_PASSWORD", "clientSecret", "token"])
_CALLS = st.sampled_from(["HTTPBasicAuth", "BasicAuth", "HTTPDigestAuth", "HTTPProxyAuth"])
_PROMPTS = st.sampled_from(["password:", "Password: ", "Enter passphrase:", "[sudo] password for bob:"])
_SENDS = st.sampled_from(["; send", " { send", ";send", "\nsend -- "])
_ELEMENTS = st.sampled_from(["value", "string", "Value"])
_ENV_CALLS = st.sampled_from(["os.getenv", "os.environ.get", "os.environ.setdefault", "os.Setenv"])


@st.composite
def _placed(draw: st.DrawFn) -> tuple[str, str]:
    """A credential where its syntax puts it, away from where a name-value rule would look."""
    secret, user, sp, q = draw(_SECRETS), draw(_USERS), draw(_SPACE), draw(_QUOTES)
    name = draw(_CRED_NAMES)
    forms = [
        f"requests.post(url, auth={sp}({q}{user}{q},{sp}{q}{secret}{q}))",
        f"{draw(_CALLS)}({q}{user}{q},{sp}{q}{secret}{q})",
        f'<setting name="{name}" serializeAs="String"><{(e := draw(_ELEMENTS))}>{secret}</{e}></setting>',
        f'<property name="{name}">{sp}<value>{secret}</value>{sp}</property>',
        f'expect "{draw(_PROMPTS)}"{draw(_SENDS)} "{secret}\\r"',
        f"os.environ[{q}{name.upper()}{q}]{sp}={sp}{q}{secret}{q}",
        f"{draw(_ENV_CALLS)}({q}{name.upper()}{q},{sp}{q}{secret}{q})",
        f"<{name}><![CDATA[{secret}]]></{name}>",
        f"<x:{name}>{secret}</x:{name}>",
        f'--b\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{secret}\r\n--b--',
    ]
    return draw(st.sampled_from(forms)), secret


_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_placed())
def test_random_placements_mask_exactly_the_secret(placed: tuple[str, str]) -> None:
    text, secret = placed
    scrubbed = scrub(text)
    assert scrubbed == text.replace(secret, mask(secret))
    assert scrub(scrubbed) == scrubbed


_VOCABULARY = st.sampled_from(["pad", "eos", "bos", "unk", "sep", "cls", "mask", "decoder_start", "image"])
_TRAILING = st.sampled_from(["token", "token_id", "token_ids"])
_ML_VALUES = st.sampled_from(["0", "1", "2", "8", "32000", "0.1", "<pad>", "</s>", "<|endoftext|>", "[PAD]"])
_ML_FORMS = st.sampled_from(["{n}: {v}", "--{n} {v}", "--{n}={v}", '"{n}": "{v}"', "{N}={v}", "{n} = {v}"])


@_SETTINGS
@given(_VOCABULARY, _TRAILING, _ML_VALUES, _ML_FORMS)
def test_random_model_vocabulary_stays_as_it_is(word: str, tail: str, value: str, form: str) -> None:
    name = f"{word}_{tail}"
    text = form.format(n=name, N=name.upper(), v=value)
    assert scrub(text) == text


@_SETTINGS
@given(
    st.sampled_from(["num_key_value_heads", "token_dropout", "key_value_dim", "token_embedding_dim"]),
    st.sampled_from(["0", "8", "0.1", "128"]),
    _ML_FORMS,
)
def test_random_model_settings_stay_as_they_are(name: str, value: str, form: str) -> None:
    text = form.format(n=name, N=name.upper(), v=value)
    assert scrub(text) == text


def _job(value: str) -> dict[str, Any]:
    job = copy.deepcopy(json.loads(SEED.read_text(encoding="utf-8")))
    job["result"]["envs"] = [{"name": "STARTUP", "value": value}]
    job["result"]["command"] = value
    return job


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(_placed(), st.lists(st.sampled_from(sorted(CONTAINERS)), max_size=3))
def test_placements_in_any_container_are_masked(placed: tuple[str, str], layers: list[str]) -> None:
    text, secret = placed
    for layer in layers:
        text = CONTAINERS[layer](text)
    job = _job(text)
    assert unmasked_secrets(job) != []
    redacted, _ = redact_payload(job)
    assert secret not in revealed(json.dumps(redacted))
    assert unmasked_secrets(redacted) == []
    assert redact_payload(redacted)[0] == redacted  # redacting twice gives the same payload


# --- masks are no names -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        f"curl -u bob:{S} https://x",
        f"mysql -p{S}",
        f"https://bob:{S}@h.example/x",
    ],
)
def test_a_pair_whose_name_held_a_secret_is_redacted_once(name: str) -> None:
    job = _job("x")
    job["result"]["envs"] = [{"name": name, "value": "v1"}]
    once, _ = redact_payload(job)
    assert once["result"]["envs"][0]["value"] == "v1"
    assert S not in json.dumps(once)
    assert redact_payload(once)[0] == once


# --- markup stays markup ----------------------------------------------------------------------------

AKID = "ASIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def _sts(token: str) -> str:
    return (
        "<AssumeRoleResponse><AssumeRoleResult><Credentials>"
        f"<AccessKeyId>{AKID}</AccessKeyId><SecretAccessKey>{AWS_SECRET}</SecretAccessKey>"
        f"<SessionToken>{token}</SessionToken><Expiration>2030-01-01T00:00:00Z</Expiration>"
        "</Credentials></AssumeRoleResult></AssumeRoleResponse>"
    )


def _parsed(text: str) -> ET.Element:
    """The XML of ``text``, each mask read as a word (a mask is not markup: ``<secret:…>`` would be
    an element's start)."""
    return ET.fromstring(re.sub(r"<secret:([0-9a-f]{8})>", r"M\1", text))


def test_an_sts_response_stays_xml() -> None:
    text = _sts("FwoGZXIvYXdzEBYaDHqa0")
    redacted, _ = redact_payload(_job(text))
    value = redacted["result"]["envs"][0]["value"]
    root = _parsed(value)
    assert AWS_SECRET not in value
    assert [child.tag for child in root.iter()][-4:] == [
        "AccessKeyId",
        "SecretAccessKey",
        "SessionToken",
        "Expiration",
    ]
    assert root.findtext(".//Expiration") == "2030-01-01T00:00:00Z"


@_SETTINGS
@given(
    st.lists(
        st.tuples(st.sampled_from(["AccessKeyId", "SecretAccessKey", "Password", "Note", "Host"]), _SECRETS),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(["", "\n", " "]),
)
def test_random_markup_stays_markup(members: list[tuple[str, str]], gap: str) -> None:
    text = "<r>" + gap.join(f"<{tag}>{value}</{tag}>" for tag, value in members) + "</r>"
    text = text.replace(members[0][1], AKID, 1) if members[0][0] == "AccessKeyId" else text
    scrubbed = scrub(text)
    root = _parsed(scrubbed)
    assert [child.tag for child in root] == [tag for tag, _ in members]
    for (tag, value), child in zip(members, root, strict=True):
        if tag in ("SecretAccessKey", "Password"):
            assert child.text == "M" + mask(value)[8:-1]


# --- the CLI ----------------------------------------------------------------------------------------


def test_redact_twice_gives_the_same_bytes_and_checks_clean(run_cli, tmp_path: Path) -> None:
    job = _job("x")
    texts = [_planted(text, secret)[0] for text, secret in EXACT]
    job["result"]["envs"] = [{"name": f"NOTE_{i}", "value": text} for i, text in enumerate(texts)]
    job["result"]["envs"].append({"name": f"curl -u bob:{S} https://x", "value": "v"})
    source, once, twice = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    source.write_text(json.dumps(job), encoding="utf-8")
    check = run_cli(["redact", "--check", str(source)], code=1).stdout
    assert all(f"/result/envs/{i}/value" in check for i in range(len(texts)))
    run_cli(["redact", "-o", str(once), str(source)], code=0)
    run_cli(["redact", "-o", str(twice), str(once)], code=0)
    assert once.read_bytes() == twice.read_bytes()
    assert S not in once.read_text(encoding="utf-8")
    assert run_cli(["redact", "--check", str(once)], code=0).stdout == ""
