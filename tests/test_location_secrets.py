"""Secrets in LOCATIONS: object keys of paths and pointers, and list-item selector values.

A credential can sit where a diff or a coverage report names a place, not only in a value: a
Run:ai related URL that is a command line (``spec.relatedUrls[url=…]``), an env var whose NAME is a
``user:password`` URL, an annotation KEY holding a base64 JSON with a password. Every such token is
read by the whole secret policy on its own before it is escaped, quoted or composed (as validate
reads its pointers' tokens), so no output of ``diff`` (text, json, markdown, patch, ``--stat``; two
snapshots, ``--roles``, ``--history``), ``coverage`` (text, json, markdown, ``-v``) or ``timeline``
(json, html) holds any 10 characters of the secret, in clear or in any decoded form; ordinary keys
and selectors print exactly as they did.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import copy
import gzip
import html
import json
import re
import urllib.parse
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.diff import DiffOptions, diff_documents
from jobschema.diff.engine import label, selector_text
from jobschema.diff.render import render
from jobschema.diff.secrets import as_is, masked_pointer, masked_token
from jobschema.secrets.reading import scrub
from tests.support import CAPTURES, load_json

RUNAI = CAPTURES / "runai-distributed-workload" / "pytorch-master-differs.json"
AIHC = CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json"
RAW = "aijob.cce.baidubce.com/raw-request"
SECRET = "pLKNmf6ieh0P1C0A"
OTHER = "Zq29vWx7Hb3TnKd5"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _pem(secret: str) -> str:
    body = secret * 4
    lines = ["-----BEGIN PRIVATE KEY-----", f"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{body}", body]
    return "\n".join([*lines, "-----END PRIVATE KEY-----", ""])


#: The forms a credential takes inside one token.
FORMS: dict[str, Callable[[str], str]] = {
    "mysql_p": lambda s: f"mysql -uroot -p{s} db",
    "curl_u": lambda s: f"curl -u alice:{s} https://x",
    "sshpass": lambda s: f"sshpass -p {s} ssh u@h",
    "embedded_json": lambda s: json.dumps({"name": "j", "envs": [{"name": "DB_PASSWORD", "value": s}]}),
    "base64_json": lambda s: _b64(json.dumps({"user": "a", "password": s})),
    "docker_config": lambda s: _b64(json.dumps({"auths": {"r.io": {"auth": _b64("u:" + s)}}})),
    "gzip_base64": lambda s: base64.b64encode(gzip.compress(f"export API_TOKEN={s}\n".encode())).decode(),
    "hex": lambda s: ("password=" + s).encode().hex(),
    "percent": lambda s: "cfg=" + urllib.parse.quote(f"password={s}&x=1"),
    "url_userinfo": lambda s: f"https://alice:{s}@git.example.com/repo.git",
    "pem_escaped_crlf": lambda s: _pem(s).replace("\n", "\\r\\n"),
    "pem_crlf": lambda s: _pem(s).replace("\n", "\r\n"),
}


# ------------------------------------------------------------------ what counts as a leak


def _decoded(text: str) -> list[str]:
    """``text`` read as people and tools decode it: percent-, HTML- and JSON-escapes, base64 (and
    gzip inside it), hex."""
    out = [urllib.parse.unquote(text), html.unescape(text)]
    unescaped = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m[1], 16)), text)
    for escaped, char in (('\\"', '"'), ("\\n", "\n"), ("\\r", "\r"), ("\\/", "/"), ("\\\\", "\\")):
        unescaped = unescaped.replace(escaped, char)
    out.append(unescaped)
    for run in set(re.findall(r"[A-Za-z0-9+/_-]{12,}=*", text)):
        body = run.rstrip("=")
        with contextlib.suppress(binascii.Error, ValueError):
            data = base64.b64decode(body + "=" * (-len(body) % 4))
            if data[:2] == b"\x1f\x8b":
                with contextlib.suppress(zlib.error, EOFError, OSError):
                    data = gzip.decompress(data)
            out.append(data.decode("utf-8", "replace"))
    out += [bytes.fromhex(run).decode("utf-8", "replace") for run in re.findall(r"(?:[0-9a-f]{2}){8,}", text)]
    return [item for item in out if item != text]


def _revealed(text: str, depth: int = 3) -> str:
    found = [text]
    if depth:
        found += [_revealed(item, depth - 1) for item in _decoded(text)]
    return "\n".join(found)


def _leaks(output: str, secrets: tuple[str, ...]) -> list[str]:
    """Every 10 consecutive characters of a secret found in ``output`` or in what it decodes to."""
    windows = {secret[i : i + 10] for secret in secrets for i in range(len(secret) - 9)}
    plain = sorted(window for window in windows if window in output)
    if plain:
        return plain
    revealed = _revealed(output)
    return sorted(window for window in windows if window in revealed)


# ------------------------------------------------------------------ planting


def _plant_runai_identity(document: dict[str, Any], text: str) -> None:
    spec = document["spec"]
    spec["relatedUrls"][0]["url"] = text
    spec["environmentVariables"].append({"name": text, "value": "1", "exclude": False, "description": None})
    spec["labels"].append({"name": text, "value": "x", "exclude": False})
    spec["annotations"].append({"name": text, "value": "x", "exclude": False})


def _plant_runai_key(document: dict[str, Any], text: str) -> None:
    document["spec"][text] = 1


def _plant_aihc_identity(document: dict[str, Any], text: str) -> None:
    result = document["result"]
    result["envs"].append({"name": text, "value": "1"})
    result["labels"].append({"key": text, "value": "x"})
    result["podList"]["pods"][0]["envs"].append({"name": text, "value": "1"})


def _plant_aihc_key(document: dict[str, Any], text: str) -> None:
    result = document["result"]
    result[text] = 1
    meta = result["podList"]["pods"][0]["objectMeta"]
    meta["annotations"][text] = "x"
    meta["labels"][text] = "x"
    raw = json.loads(meta["annotations"][RAW])
    raw[text] = 1
    meta["annotations"][RAW] = json.dumps(raw)


PLANTS: dict[str, tuple[Path, Callable[[dict[str, Any], str], None]]] = {
    "runai_identity": (RUNAI, _plant_runai_identity),
    "runai_key": (RUNAI, _plant_runai_key),
    "aihc_identity": (AIHC, _plant_aihc_identity),
    "aihc_key": (AIHC, _plant_aihc_key),
}


def _planted(base: dict[str, Any], plant: Callable[[dict[str, Any], str], None], text: str) -> dict[str, Any]:
    document = copy.deepcopy(base)
    plant(document, text)
    return document


def _commands() -> list[list[str]]:
    commands: list[list[str]] = []
    for fmt in ("text", "json", "markdown"):
        commands += [
            ["diff", "-f", fmt, "orig.json", "A.json"],
            ["diff", "-f", fmt, "A.json", "B.json"],
            ["diff", "--roles", "-f", fmt, "A.json"],
            ["diff", "--history", "-f", fmt, "hist.ndjson"],
            ["coverage", "-v", "-f", fmt, "A.json"],
        ]
    commands += [
        ["diff", "-f", "patch", "orig.json", "A.json"],
        ["diff", "--stat", "A.json", "B.json"],
        ["timeline", "-f", "json", "hist.ndjson"],
        ["timeline", "-f", "html", "hist.ndjson"],
    ]
    return commands


@pytest.mark.parametrize("plant", sorted(PLANTS))
@pytest.mark.parametrize("form", sorted(FORMS))
def test_no_output_names_a_secret_planted_in_a_location(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str, plant: str
) -> None:
    path, planting = PLANTS[plant]
    base = load_json(path)
    left, right = (_planted(base, planting, FORMS[form](secret)) for secret in (SECRET, OTHER))
    for name, value in (("orig.json", base), ("A.json", left), ("B.json", right)):
        (tmp_path / name).write_text(json.dumps(value, indent=2, ensure_ascii=False), encoding="utf-8")
    lines = [json.dumps(value, ensure_ascii=False) for value in (base, left, right, base)]
    (tmp_path / "hist.ndjson").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for command in _commands():
        result = run_cli(command)
        assert result.exit_code in (0, 1), (command, result.stderr)
        assert _leaks(result.stdout + result.stderr, (SECRET, OTHER)) == [], command


# ------------------------------------------------------------------ exact output of the locations


def test_a_command_in_a_related_url_selector_prints_its_mask(run_cli, tmp_path: Path) -> None:
    base = load_json(RUNAI)
    planted = _planted(
        base, lambda d, t: d["spec"]["relatedUrls"][0].update(url=t), f"mysql -uroot -p{SECRET} db"
    )
    (tmp_path / "a.json").write_text(json.dumps(base))
    (tmp_path / "b.json").write_text(json.dumps(planted))
    out = run_cli(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")], code=1).stdout
    shown = scrub(f"mysql -uroot -p{SECRET} db")
    assert shown.startswith("mysql -uroot -p<secret:")
    assert f"  + spec.relatedUrls[url={json.dumps(shown, ensure_ascii=False)}]: " in out
    assert "  - spec.relatedUrls[url=https://wandb.ai/example-lab/llama3-ft]: " in out


def test_a_url_key_in_a_pointer_is_masked_before_it_is_escaped(run_cli, tmp_path: Path) -> None:
    base = load_json(AIHC)
    key = f"https://alice:{SECRET}@git.example.com/repo.git"
    planted = _planted(
        base,
        lambda d, t: d["result"]["podList"]["pods"][0]["objectMeta"]["annotations"].update({t: "x"}),
        key,
    )
    (tmp_path / "a.json").write_text(json.dumps(base))
    (tmp_path / "b.json").write_text(json.dumps(planted))
    report = json.loads(
        run_cli(["diff", "-f", "json", str(tmp_path / "a.json"), str(tmp_path / "b.json")], code=1).stdout
    )
    (change,) = report["changes"]
    shown = scrub(key)
    assert shown != key
    assert change["right_pointer"] == "/result/podList/pods/0/objectMeta/annotations/" + shown.replace(
        "~", "~0"
    ).replace("/", "~1")
    assert change["path"].endswith(f".objectMeta.annotations[{json.dumps(shown)}]")


def test_ignore_and_only_still_match_the_pointer_the_documents_spell(run_cli, tmp_path: Path) -> None:
    base = load_json(AIHC)
    key = f"mysql -uroot -p{SECRET} db"
    planted = _planted(base, lambda d, t: d["result"].update({t: 1}), key)
    (tmp_path / "a.json").write_text(json.dumps(base))
    (tmp_path / "b.json").write_text(json.dumps(planted))
    files = [str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    ignored = run_cli(["diff", "--ignore", f"/result/{key}", *files], code=0).stdout
    assert ignored.startswith("same")
    only = run_cli(["diff", "-f", "json", "--only", f"/result/{key}", *files], code=1).stdout
    (change,) = json.loads(only)["changes"]
    assert change["right_pointer"] == f"/result/{scrub(key)}"
    assert SECRET not in only


def test_coverage_shows_an_undeclared_command_key_masked(run_cli, tmp_path: Path) -> None:
    document = load_json(RUNAI)
    key = f"mysql -uroot -p{SECRET} db"
    document["spec"][key] = 1
    (tmp_path / "w.json").write_text(json.dumps(document))
    shown = scrub(key)
    text = run_cli(["coverage", str(tmp_path / "w.json")]).stdout
    assert f"    spec[{json.dumps(shown)}]: 1 payload, e.g. {tmp_path / 'w.json'} /spec/{shown}\n" in text
    report = json.loads(run_cli(["coverage", "-f", "json", str(tmp_path / "w.json")]).stdout)
    drift = [d for section in report["schemas"] for d in section["undeclared"]]
    assert [(d["path"], d["example"]) for d in drift] == [(f"spec[{json.dumps(shown)}]", f"/spec/{shown}")]


def test_ordinary_tokens_are_shown_as_they_are() -> None:
    for token in ("HOME", "NCCL_DEBUG", "DB_PASSWORD", "数据库密码", "training.kubeflow.org/replica-index"):
        assert masked_token(token) == token
    assert selector_text((("name", "HOME"),), masked_token) == "name=HOME"
    assert selector_text((("name", "odd key"),), masked_token) == 'name="odd key"'
    assert selector_text((("", 3),), masked_token) == "=3"
    assert selector_text((("a", 1), ("b", "x")), masked_token) == "a=1,b=x"
    assert selector_text(7, masked_token) == "7"
    assert masked_pointer(("result", "podList", "pods", 0, "a/b~c")) == "/result/podList/pods/0/a~1b~0c"
    assert label("x y", as_is) == '"x y"'


def test_a_masked_token_is_remembered_per_mask_key() -> None:
    from jobschema.secrets.mask import scoped_mask_key

    token = f"curl -u alice:{SECRET} https://x"
    with scoped_mask_key(b"one"):
        first = masked_token(token)
    with scoped_mask_key(b"two"):
        second = masked_token(token)
    assert first != second
    assert SECRET not in first + second


# ------------------------------------------------------------------ property: any mix


ORDINARY = st.from_regex(r"[a-z][a-z0-9_.-]{0,11}", fullmatch=True).filter(lambda t: scrub(t) == t)
SECRETS = st.from_regex(r"[a-z]{3}[A-Z]{3}[0-9]{3}[A-Za-z0-9]{7}", fullmatch=True)


@settings(max_examples=40)
@given(
    ordinary=st.lists(ORDINARY, min_size=1, max_size=4, unique=True),
    secret=SECRETS,
    form=st.sampled_from(sorted(FORMS)),
    as_key=st.booleans(),
)
def test_random_ordinary_selectors_beside_a_planted_secret(
    ordinary: list[str], secret: str, form: str, as_key: bool
) -> None:
    base = load_json(AIHC)
    document = copy.deepcopy(base)
    text = FORMS[form](secret)
    result = document["result"]
    annotations = result["podList"]["pods"][0]["objectMeta"]["annotations"]
    for name in ordinary:
        result["envs"].append({"name": name, "value": "v"})
        annotations[name] = "x"
    if as_key:
        annotations[text] = "x"
    else:
        result["envs"].append({"name": text, "value": "v"})
    found = diff_documents(base, document, options=DiffOptions())
    outputs = [render(found, fmt) for fmt in ("text", "json", "markdown")]
    for output in outputs:
        assert _leaks(output, (secret,)) == []
    pod = result["podList"]["pods"][0]["objectMeta"]["name"]
    for name in ordinary:  # as they printed before: bare, or quoted when not plain
        assert f"  + result.envs[name={label(name)}]: " in outputs[0]
        member = f".{name}" if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$-]*", name) else f"[{json.dumps(name)}]"
        assert (
            f"  + result.podList.pods[objectMeta.name={pod}].objectMeta.annotations{member}: " in outputs[0]
        )
