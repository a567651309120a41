"""``jobschema redact`` and :mod:`jobschema.redact.core`: what is masked, exact --check output, structure
kept, idempotence, validation unchanged, file handling and exit codes; the pre-commit hooks file."""

from __future__ import annotations

import base64
import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.inputs.har import safe_url
from jobschema.redact.core import (
    Redacted,
    Secret,
    Unreadable,
    redact_bytes,
    redact_payload,
    redact_text,
    unmasked_secrets,
)
from jobschema.secrets.policy import is_secret_place, is_unmasked, mask, mask_query, mask_url
from jobschema.validate import validate_paths, validate_payload
from tests.support import REPO, compare_golden, load_json

FIXTURES = REPO / "tests" / "fixtures" / "redact"
GOLDEN = FIXTURES / "golden"
NAMES = ("aihc-job-detail.json", "runai-workload.json", "jobs.ndjson", "session.har")
SECRETS = (
    "robot$ci",
    "hunter2-very-secret",
    "hf_abc123",
    "pg-Sup3r-s3cret",
    "s3cr3t-value",
    "a1b2c3d4e5",
    "eyJhbGciOiJIUzI1NiJ9",
    "ak-0123456789",
)
RAW = "/result/podList/pods/0/objectMeta/annotations/aijob.cce.baidubce.com~1raw-request"
AIHC_POINTERS = [
    "/result/envs/1/value",
    f"{RAW}/jobSpec/Master/env/HF_TOKEN",
    f"{RAW}/imagePullSecretUsername",
    f"{RAW}/imagePullSecretPassword",
    "/result/podList/pods/0/envs/4/value",
]
RUNAI_POINTERS = ["/spec/environmentVariables/1/value"]
HAR_POINTERS = [
    "/log/entries/0/request/headers/0/value",
    "/log/entries/0/response/content/text/spec/environmentVariables/1/value",
    "/log/entries/1/request/url",
    "/log/entries/1/request/headers/1/value",
    "/log/entries/1/request/queryString/1/value",
    "/log/entries/1/request/cookies/0/value",
    *(f"/log/entries/1/response/content/text{p}" for p in AIHC_POINTERS),
    "/log/entries/2/request/headers/0/value",
    "/log/entries/2/request/postData/text/jobSpec/imageConfig/username",
    "/log/entries/2/request/postData/text/jobSpec/imageConfig/password",
    "/log/entries/2/request/postData/text/jobSpec/envs/0/value",
]


def _lines(source: str, pointers: list[str], line: int | None = None) -> str:
    return "".join(Secret(pointer, line).describe(source) + "\n" for pointer in pointers)


CHECK_OUTPUT = {
    "aihc-job-detail.json": _lines("tests/fixtures/redact/aihc-job-detail.json", AIHC_POINTERS),
    "runai-workload.json": _lines("tests/fixtures/redact/runai-workload.json", RUNAI_POINTERS),
    "jobs.ndjson": _lines("tests/fixtures/redact/jobs.ndjson", AIHC_POINTERS, 1)
    + _lines("tests/fixtures/redact/jobs.ndjson", RUNAI_POINTERS, 3),
    "session.har": _lines("tests/fixtures/redact/session.har", HAR_POINTERS),
}


@pytest.fixture(autouse=True)
def _setup(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository, so sources print relative to it."""
    monkeypatch.chdir(REPO)


def _fixture(name: str) -> str:
    return f"tests/fixtures/redact/{name}"


def _decoded_bodies(har_text: str) -> list[str]:
    """Every HAR body (base64 ones decoded) and request post text."""
    bodies = []
    for entry in json.loads(har_text)["log"]["entries"]:
        content = entry["response"]["content"]
        text = content["text"]
        bodies.append(base64.b64decode(text).decode() if content.get("encoding") == "base64" else text)
        bodies.append(entry["request"].get("postData", {}).get("text", ""))
    return bodies


# --- the command: --check ----------------------------------------------------------------------


def test_check_names_every_unmasked_secret(run_cli) -> None:
    result = run_cli(["redact", "--check", *(_fixture(n) for n in NAMES)], code=1)
    assert result.stdout == "".join(CHECK_OUTPUT[n] for n in NAMES)
    assert result.stderr == ""


@pytest.mark.parametrize("name", NAMES)
def test_check_of_one_file_is_exact(run_cli, name: str) -> None:
    assert run_cli(["redact", "--check", _fixture(name)], code=1).stdout == CHECK_OUTPUT[name]


def test_check_is_clean_on_redacted_files(run_cli) -> None:
    result = run_cli(["redact", "--check", "tests/fixtures/redact/golden"], code=0)
    assert (result.stdout, result.stderr) == ("", "")


def test_check_never_prints_a_secret(run_cli) -> None:
    result = run_cli(["redact", "--check", *(_fixture(n) for n in NAMES)], code=1)
    assert not [s for s in SECRETS if s in result.output]


def test_check_reads_stdin(run_cli) -> None:
    data = (FIXTURES / "runai-workload.json").read_bytes()
    result = run_cli(["redact", "--check", "-"], code=1, input=data)
    assert result.stdout == "<stdin>: /spec/environmentVariables/1/value: unmasked secret [redact]\n"


# --- the command: writing ----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_redacted_text_matches_golden(run_cli, update_golden: bool, name: str) -> None:
    result = run_cli(["redact", _fixture(name)], code=0)
    compare_golden(GOLDEN / name, result.stdout, update_golden)
    assert result.stderr == ""


@pytest.mark.parametrize("name", NAMES)
def test_secret_values_never_appear_in_the_output(run_cli, name: str) -> None:
    text = run_cli(["redact", _fixture(name)], code=0).stdout
    texts = [text, *(_decoded_bodies(text) if name.endswith(".har") else ())]
    assert not [s for s in SECRETS for t in texts if s in t]


@pytest.mark.parametrize("name", NAMES)
def test_redacting_twice_is_redacting_once(run_cli, name: str) -> None:
    once = run_cli(["redact", _fixture(name)], code=0).stdout
    assert run_cli(["redact", f"tests/fixtures/redact/golden/{name}"], code=0).stdout == once


def test_same_secret_gets_the_same_mask_in_every_file() -> None:
    texts = {name: (GOLDEN / name).read_text(encoding="utf-8") for name in NAMES}
    bodies = "".join(_decoded_bodies(texts["session.har"]))
    token, password = mask("hf_abc123"), mask("hunter2-very-secret")
    assert token == "<secret:1f0cf713>"  # HMAC-SHA256 under the suite's key (tests/conftest.py)
    for text in (texts["aihc-job-detail.json"], texts["jobs.ndjson"], bodies):
        assert token in text
        assert password in text
    assert texts["runai-workload.json"].count(mask("pg-Sup3r-s3cret")) == 1
    assert texts["jobs.ndjson"].count(mask("pg-Sup3r-s3cret")) == 1


def test_only_the_secrets_change(run_cli) -> None:
    before = (FIXTURES / "runai-workload.json").read_text(encoding="utf-8").splitlines(keepends=True)
    after = run_cli(["redact", _fixture("runai-workload.json")], code=0).stdout.splitlines(keepends=True)
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed == [
        (
            '                "value": "pg-Sup3r-s3cret",\n',
            f'                "value": "{mask("pg-Sup3r-s3cret")}",\n',
        )
    ]


def test_without_in_place_the_input_is_untouched(run_cli, tmp_path: Path) -> None:
    copied = tmp_path / "aihc.json"
    shutil.copyfile(FIXTURES / "aihc-job-detail.json", copied)
    before = copied.read_bytes()
    run_cli(["redact", str(copied)], code=0)
    run_cli(["redact", str(copied), "-o", str(tmp_path / "out.json")], code=0)
    run_cli(["redact", "--check", str(copied)], code=1)
    assert copied.read_bytes() == before


def test_output_option_writes_the_redacted_text(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "out.har"
    result = run_cli(["redact", _fixture("session.har"), "-o", str(out)], code=0)
    assert (result.stdout, result.stderr) == ("", "")
    assert out.read_bytes() == (GOLDEN / "session.har").read_bytes()


def test_in_place_rewrites_files_with_secrets_only(run_cli, tmp_path: Path) -> None:
    for name in NAMES:
        shutil.copyfile(FIXTURES / name, tmp_path / name)
    clean = tmp_path / "clean.json"
    clean.write_text('{"code": 404, "message": "Resource id not found."}\n', encoding="utf-8")
    stamp = clean.stat().st_mtime_ns
    result = run_cli(["redact", "--in-place", str(tmp_path)], code=0)
    assert result.stdout == ""
    assert result.stderr == (
        f"{tmp_path}/aihc-job-detail.json: masked 5 secrets\n"
        f"{tmp_path}/jobs.ndjson: masked 6 secrets\n"
        f"{tmp_path}/runai-workload.json: masked 1 secret\n"
        f"{tmp_path}/session.har: masked 15 secrets\n"
    )
    for name in NAMES:
        assert (tmp_path / name).read_bytes() == (GOLDEN / name).read_bytes()
    assert clean.stat().st_mtime_ns == stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*NAMES, "clean.json"])


def test_second_in_place_leaves_the_bytes_identical(run_cli, tmp_path: Path) -> None:
    target = tmp_path / "jobs.ndjson"
    shutil.copyfile(FIXTURES / "jobs.ndjson", target)
    run_cli(["redact", "--in-place", str(target)], code=0)
    once, stamp = target.read_bytes(), target.stat().st_mtime_ns
    result = run_cli(["redact", "--in-place", str(target)], code=0)
    assert (result.stdout, result.stderr) == ("", "")
    assert target.read_bytes() == once
    assert target.stat().st_mtime_ns == stamp


def test_in_place_keeps_the_file_mode(run_cli, tmp_path: Path) -> None:
    target = tmp_path / "runai.json"
    shutil.copyfile(FIXTURES / "runai-workload.json", target)
    target.chmod(0o640)
    run_cli(["redact", "--in-place", str(target)], code=0)
    assert target.stat().st_mode & 0o777 == 0o640


def test_stdin_is_redacted_to_stdout(run_cli) -> None:
    data = (FIXTURES / "session.har").read_bytes()
    result = run_cli(["redact", "-"], code=0, input=data)
    assert result.stdout == (GOLDEN / "session.har").read_text(encoding="utf-8")


# --- structure kept ----------------------------------------------------------------------------


def test_ndjson_keeps_one_payload_per_line_and_blank_lines() -> None:
    raw = (FIXTURES / "jobs.ndjson").read_text(encoding="utf-8").split("\n")
    redacted = (GOLDEN / "jobs.ndjson").read_text(encoding="utf-8").split("\n")
    assert len(redacted) == len(raw) == 4
    assert redacted[1] == redacted[3] == ""
    assert [json.loads(redacted[0])["result"]["jobId"], json.loads(redacted[2])["name"]] == [
        json.loads(raw[0])["result"]["jobId"],
        json.loads(raw[2])["name"],
    ]


def test_har_keeps_its_structure_and_base64_body() -> None:
    raw, redacted = load_json(FIXTURES / "session.har"), load_json(GOLDEN / "session.har")
    assert len(redacted["log"]["entries"]) == len(raw["log"]["entries"]) == 4
    for before, after in zip(raw["log"]["entries"], redacted["log"]["entries"], strict=True):
        assert list(after) == list(before)
        assert list(after["request"]) == list(before["request"])
        assert after["response"]["content"].get("encoding") == before["response"]["content"].get("encoding")
    content = redacted["log"]["entries"][1]["response"]["content"]
    body = json.loads(base64.b64decode(content["text"], validate=True))
    expected, _ = redact_payload(load_json(FIXTURES / "aihc-job-detail.json"))
    assert body == expected
    assert redacted["log"]["entries"][1]["request"]["url"].endswith(f"&token={mask('s3cr3t-value')}")
    assert redacted["log"]["entries"][3] == raw["log"]["entries"][3]


def test_har_form_bodies_params_and_response_headers() -> None:
    form = "application/x-www-form-urlencoded"
    entry = {
        "request": {
            "method": "POST",
            "url": "https://u:pw@login.example/session?next=%2Fjobs",
            "headers": [
                {"name": "Proxy-Authorization", "value": "Basic dTpw"},
                {"name": "Accept", "value": "*/*"},
            ],
            "postData": {
                "mimeType": form,
                "text": "user=me&password=hunter2&remember=1",
                "params": [{"name": "user", "value": "me"}, {"name": "password", "value": "hunter2"}],
            },
        },
        "response": {
            "status": 200,
            "headers": [
                {"name": "Set-Cookie", "value": "sid=abc; HttpOnly"},
                {"name": "X-Auth-Token", "value": "t"},
            ],
            "cookies": [{"name": "sid", "value": "abc"}],
            "content": {"mimeType": "text/html", "text": "<html>password=hunter2</html>"},
        },
    }
    text = json.dumps({"log": {"version": "1.2", "entries": [entry]}}, indent=2)
    result = redact_text(text, "har")
    assert [s.pointer for s in result.secrets] == [
        "/log/entries/0/request/url",
        "/log/entries/0/request/headers/0/value",
        "/log/entries/0/request/postData/text",
        "/log/entries/0/request/postData/params/1/value",
        "/log/entries/0/response/headers/0/value",
        "/log/entries/0/response/headers/1/value",
        "/log/entries/0/response/cookies/0/value",
        "/log/entries/0/response/content/text",
    ]
    redacted = json.loads(result.text)["log"]["entries"][0]
    assert redacted["request"]["url"] == f"https://u:{mask('pw')}@login.example/session?next=%2Fjobs"
    assert redacted["request"]["postData"]["text"] == f"user=me&password={mask('hunter2')}&remember=1"
    assert redacted["request"]["headers"][1] == {"name": "Accept", "value": "*/*"}
    assert redacted["response"]["content"] == {
        "mimeType": "text/html",
        "text": f"<html>password={mask('hunter2')}</html>",
    }


def test_embedded_raw_request_keeps_key_order_and_compact_form() -> None:
    text = load_json(GOLDEN / "aihc-job-detail.json")["result"]["podList"]["pods"][0]["objectMeta"][
        "annotations"
    ]["aijob.cce.baidubce.com/raw-request"]
    original = load_json(FIXTURES / "aihc-job-detail.json")["result"]["podList"]["pods"][0]["objectMeta"][
        "annotations"
    ]["aijob.cce.baidubce.com/raw-request"]
    inner = json.loads(text)
    assert list(inner) == list(json.loads(original))
    assert text == json.dumps(inner, separators=(",", ":"), ensure_ascii=False)
    assert inner["imagePullSecretUsername"] == mask("robot$ci")
    assert inner["jobSpec"]["Master"]["env"]["HF_TOKEN"] == mask("hf_abc123")
    assert inner["jobSpec"]["Master"]["env"]["LOGLEVEL"] == "DEBUG"


# --- redacted payloads still validate ----------------------------------------------------------


@pytest.mark.parametrize("name", ["aihc-job-detail.json", "runai-workload.json"])
@pytest.mark.parametrize("strict", [False, True])
def test_redacted_payloads_have_no_new_findings(name: str, strict: bool) -> None:
    raw = load_json(FIXTURES / name)
    redacted, pointers = redact_payload(raw)
    assert pointers

    def findings(value: Any) -> list[tuple[str, str, str]]:
        result = validate_payload(value, strict=strict)
        return [(f.pointer, f.rule, f.message) for f in result.findings]

    assert findings(redacted) == findings(raw)
    assert validate_payload(redacted).valid


def test_redacted_files_validate_like_the_originals() -> None:
    def summary(folder: Path) -> list[tuple[str, str, bool, int]]:
        report = validate_paths([str(folder / n) for n in NAMES], strict=True)
        return [
            (Path(r.source.split(":")[0].split("#")[0]).name, r.schema, r.valid, len(r.findings))
            for r in report.results
        ]

    assert summary(GOLDEN) == summary(FIXTURES)


# --- bad input and usage errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"env": {"TOKEN": "x"}', "bad.json:1:23: invalid JSON: Expecting ',' delimiter"),
        (b'{"a": "\xff"}', "bad.json: file is not UTF-8: invalid byte 0xff at line 1, column 8"),
        (b"", "bad.json: file is empty"),
    ],
)
def test_bad_input_is_one_error_line_and_the_others_still_run(
    run_cli, tmp_path: Path, content: bytes, message: str
) -> None:
    (tmp_path / "bad.json").write_bytes(content)
    shutil.copyfile(FIXTURES / "runai-workload.json", tmp_path / "runai.json")
    result = run_cli(["redact", "--check", str(tmp_path)], code=1)
    assert result.stderr == f"Error: {tmp_path}/{message}\n"
    assert (
        result.stdout
        == f"{tmp_path}/runai.json: /spec/environmentVariables/1/value: unmasked secret [redact]\n"
    )
    result = run_cli(["redact", "--in-place", str(tmp_path)], code=1)
    assert result.stderr == f"Error: {tmp_path}/{message}\n{tmp_path}/runai.json: masked 1 secret\n"
    assert (tmp_path / "bad.json").read_bytes() == content
    assert (tmp_path / "runai.json").read_bytes() == (GOLDEN / "runai-workload.json").read_bytes()


def test_bad_input_to_stdout_prints_nothing(run_cli) -> None:
    result = run_cli(["redact", "-"], code=1, input=b"[1, 2")
    assert result.stdout == ""
    assert result.stderr == "Error: <stdin>:1:6: invalid JSON: Expecting ',' delimiter\n"


def test_bad_ndjson_line_is_named_and_the_file_is_not_written(run_cli, tmp_path: Path) -> None:
    target = tmp_path / "jobs.ndjson"
    good = (FIXTURES / "runai-workload.json").read_text(encoding="utf-8")
    target.write_text(json.dumps(json.loads(good)) + "\n{oops\n", encoding="utf-8")
    before = target.read_bytes()
    result = run_cli(["redact", "--check", str(target)], code=1)
    assert result.stdout == f"{target}:1: /spec/environmentVariables/1/value: unmasked secret [redact]\n"
    assert result.stderr == (
        f"Error: {target}:2:2: invalid JSON: Expecting property name enclosed in double quotes\n"
    )
    run_cli(["redact", "--in-place", str(target)], code=1)
    assert target.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["a.json", "b.json"],
            "2 inputs: the redacted text of one input goes to stdout or -o/--output; use ",
        ),
        (["a.json", "-o", "out.json", "--in-place"], "-o/--output and --in-place cannot be combined"),
        (["--check", "a.json", "--in-place"], "--check changes nothing: it cannot be combined with -o/--"),
        (
            ["--check", "a.json", "-o", "out.json"],
            "--check changes nothing: it cannot be combined with -o/--",
        ),
        (["--in-place", "-"], "--in-place cannot rewrite stdin (-)"),
        (["a.json", "-o", "a.json"], "a.json: -o/--output is the input; use --in-place to rewrite it"),
    ],
)
def test_usage_errors(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text('{"env": {"TOKEN": "abc"}}', encoding="utf-8")
    result = run_cli(["redact", *args], code=2)
    assert result.stderr.startswith("Error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1  # one line: no usage above it
    assert result.stdout == ""
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == '{"env": {"TOKEN": "abc"}}'
    assert not (tmp_path / "out.json").exists()


def test_a_missing_input_is_named_and_the_others_are_still_checked(run_cli) -> None:
    """One bad input never stops the others: the missing one is named, the others checked, exit 2."""
    fixture = _fixture("runai-workload.json")
    alone = run_cli(["redact", "--check", fixture], code=1)
    result = run_cli(["redact", "--check", "nope.json", fixture], code=2)
    assert result.stderr == "Error: nope.json: no such file or folder\n" + alone.stderr
    assert result.stdout == alone.stdout
    assert run_cli(["redact", "--check", "nope.json", "nope2.json"], code=2).stderr == (
        "Error: nope.json: no such file or folder\nError: nope2.json: no such file or folder\n"
    )


def test_help_documents_exit_codes(run_cli) -> None:
    text = run_cli(["redact", "--help"], code=0).stdout
    assert "--check" in text
    assert "--in-place" in text
    assert "2  usage error, missing input" in text


# --- the library -------------------------------------------------------------------------------


def test_redact_payload_returns_a_copy_and_the_pointers() -> None:
    raw = load_json(FIXTURES / "aihc-job-detail.json")
    before = copy.deepcopy(raw)
    redacted, pointers = redact_payload(raw)
    assert raw == before
    assert pointers == AIHC_POINTERS
    assert unmasked_secrets(raw) == AIHC_POINTERS
    assert unmasked_secrets(redacted) == []
    assert redacted["result"]["envs"][2] == {"name": "TOKENIZERS_PARALLELISM", "value": ""}
    assert (
        redacted["result"]["podList"]["pods"][0]["envs"][0] == raw["result"]["podList"]["pods"][0]["envs"][0]
    )


def test_raw_request_given_directly() -> None:
    raw = load_json(REPO / "schemas" / "examples" / "aihc-raw-request" / "seed.json")
    raw |= {"imagePullSecretUsername": "robot$ci", "imagePullSecretPassword": "hunter2-very-secret"}
    raw["codeSource"] = {"bosObjectName": "code.tar.gz", "bosTemporaryToken": "bce-sts-token"}
    redacted, pointers = redact_payload(raw)
    assert pointers == [
        "/imagePullSecretUsername",
        "/imagePullSecretPassword",
        "/codeSource/bosTemporaryToken",
    ]
    assert redacted["codeSource"] == {
        "bosObjectName": "code.tar.gz",
        "bosTemporaryToken": mask("bce-sts-token"),
    }
    assert list(redacted) == list(raw)
    assert validate_payload(redacted, "aihc-raw-request").valid


def test_schema_marked_field_is_found_through_the_schema() -> None:
    payload = {"name": "j", "jobSpec": {}, "custom": {"imagePullSecretPassword": "p"}}
    assert unmasked_secrets(payload, "aihc-raw-request") == ["/custom/imagePullSecretPassword"]
    assert unmasked_secrets({"name": "j", "jobSpec": {}}, "aihc-raw-request") == []


def test_what_is_not_a_secret_is_left_alone() -> None:
    payload = {
        "envs": [{"name": "PATH", "value": "/bin"}, {"name": "API_KEY", "value": None}],
        "env": {"LOGLEVEL": "DEBUG", "SECRET_FLAG": True, "DB_PASSWORD": ""},
        "secret": {"name": "pg-credentials", "key": "password"},
        "passwordSecret": "my-password-secret",
        "labels": [{"key": "team", "value": "x"}],
        "tokenizer": "gpt2",
        "TOKENIZERS_PARALLELISM": "false",
        "token_type": "Bearer",
        "sshAuthMountPath": "/root/.ssh",
    }
    assert redact_payload(payload) == (payload, [])


def test_label_and_annotation_pairs_are_masked_by_their_key() -> None:
    payload = {"labels": [{"key": "token", "value": "x"}, {"key": "team", "value": "ml"}]}
    assert redact_payload(payload) == (
        {"labels": [{"key": "token", "value": mask("x")}, {"key": "team", "value": "ml"}]},
        ["/labels/0/value"],
    )


def test_runai_master_spec_and_env_lists_anywhere() -> None:
    payload = load_json(FIXTURES / "runai-workload.json")
    payload["masterSpec"] = {"environmentVariables": [{"name": "WANDB_API_KEY", "value": "wb-1"}]}
    payload["pods"] = [{"envs": [{"name": "HF_TOKEN", "value": "hf_abc123"}]}]
    redacted, pointers = redact_payload(payload, "runai-distributed-workload")
    assert pointers == [
        "/spec/environmentVariables/1/value",
        "/masterSpec/environmentVariables/0/value",
        "/pods/0/envs/0/value",
    ]
    assert redacted["masterSpec"]["environmentVariables"][0] == {
        "name": "WANDB_API_KEY",
        "value": mask("wb-1"),
    }


def test_schema_documents_are_not_mistaken_for_env_maps(run_cli) -> None:
    """Only maps of plain values are env maps: a schema's ``envs`` object is not one."""
    schema = {"properties": {"envs": {"type": "array", "x-jobschema-list-key": "name", "items": {}}}}
    assert unmasked_secrets(schema) == []
    assert unmasked_secrets({"env": {"HF_TOKEN": "x", "LOGLEVEL": "DEBUG"}}) == ["/env/HF_TOKEN"]
    run_cli(["redact", "--check", "schemas"], code=0)


@pytest.mark.parametrize(
    ("keys", "parent", "expected"),
    [
        ((None, "env", "HF_TOKEN"), {"HF_TOKEN": "x", "A": "b"}, True),
        (("env", "HF_TOKEN"), {"HF_TOKEN": "x", "A": {}}, True),
        (("properties", "password"), {"password": {"type": "string"}}, False),
        ((None, "spec", "accessToken"), {"accessToken": "x"}, True),
        ((None, "spec", "tokenizer"), {"tokenizer": "x"}, False),
        (("labels", 0, "value"), {"key": "api_key", "value": "x"}, True),
        (("envs", 0, "value"), {"name": "DB_PASSWORD", "value": "x"}, True),
        (("envs", None, "value"), {"name": "PATH", "value": "x"}, False),
        (("cookies", None, "value"), {"name": "_ga", "value": "x"}, True),
        ((None, "jobSpec", "imagePullSecretPassword"), {"imagePullSecretPassword": "x"}, True),
        (("jobSpec", "imageConfig", "username"), {"username": "x"}, True),
        (("jobSpec", "image", "username"), {"username": "x"}, False),
        (("envs", 0), [], False),
        ((), {}, False),
    ],
)
def test_is_secret_place(keys: tuple[Any, ...], parent: Any, expected: bool) -> None:
    assert is_secret_place(keys, parent) is expected


def test_numbers_are_masked_as_strings() -> None:
    assert redact_payload({"env": {"PIN_CODE_TOKEN": 1234}}) == (
        {"env": {"PIN_CODE_TOKEN": mask(1234)}},
        ["/env/PIN_CODE_TOKEN"],
    )


def test_redact_text_json_keeps_every_other_byte() -> None:
    text = '{ "env" : {"A":"\\u00e9", "HF_TOKEN" : "x"} ,"n":1.0e3}\r\n'
    result = redact_text(text)
    assert result.text == text.replace('"x"', json.dumps(mask("x")))
    assert result.secrets == (Secret("/env/HF_TOKEN"),)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"env": {"TOKEN": "a", "TOKEN": "b"}}\n', '{"env": {"TOKEN": "MASK"}}\n'),
        (
            '{\n    "env": {"TOKEN": "a",\n    "TOKEN": "b"}\n}',
            '{\n    "env": {\n        "TOKEN": "MASK"\n    }\n}',
        ),
        ('\t{"env":{"TOKEN":"a","TOKEN":"b","é":1}}  ', '\t{"env":{"TOKEN":"MASK","é":1}}  '),
    ],
)
def test_duplicate_keys_are_written_again_in_the_input_style(text: str, expected: str) -> None:
    result = redact_text(text)
    assert result.text == expected.replace("MASK", mask("b"))
    assert "a" not in json.loads(result.text)["env"].values()


def test_redact_text_har_needs_a_har() -> None:
    assert redact_text('{"log": {}}', "har").problems == (Unreadable("not a HAR file: no log.entries array"),)


def test_redact_text_reports_parse_problems_as_values() -> None:
    result = redact_text("[1,\n 2", "json")
    assert result.problems == (Unreadable("invalid JSON: Expecting ',' delimiter", 2, 3),)
    assert result.text == "[1,\n 2"
    assert not result.changed


def test_deep_nesting_never_raises() -> None:
    text = "[" * 5000 + "]" * 5000
    assert redact_text(text).problems[0].message.startswith("invalid JSON")
    nested: Any = {"env": {"TOKEN": "x"}}
    for _ in range(2000):
        nested = [nested]
    _, pointers = redact_payload(nested)
    assert pointers == ["/0" * 2000 + "/env/TOKEN"]


def test_bom_is_kept() -> None:
    result = redact_bytes(b'\xef\xbb\xbf{"env": {"TOKEN": "x"}}', "json")
    assert result.text == '\ufeff{"env": {"TOKEN": "' + mask("x") + '"}}'


def test_empty_ndjson_is_fine() -> None:
    assert redact_bytes(b"\n", "ndjson") == Redacted("\n")


# --- secrets helpers ---------------------------------------------------------------------------


def test_mask_url_keeps_every_other_byte_and_matches_safe_url() -> None:
    url = "https://u:p%40ss@h.example/a?b=%20c&token=abc&Password=a+b&api_key=#frag"
    assert mask_url(url) == (
        f"https://u:{mask('p@ss')}@h.example/a"
        f"?b=%20c&token={mask('abc')}&Password={mask('a b')}&api_key=#frag"
    )
    assert mask_url(mask_url(url)) == mask_url(url)
    plain = "https://h.example/api/v1/aijobs/x?resourcePoolId=p&token=s3cr3t-value"
    assert mask_url(plain) == safe_url(plain)


def test_mask_query_and_is_unmasked() -> None:
    assert mask_query("user=me&password=pw&x") == f"user=me&password={mask('pw')}&x"
    assert [is_unmasked(v) for v in ("", mask("x"), "x", 0, 1.5, True, None, [])] == [
        False,
        False,
        True,
        True,
        True,
        False,
        False,
        False,
    ]


# --- a law -------------------------------------------------------------------------------------

NAME = st.one_of(
    st.sampled_from(["DB_PASSWORD", "HF_TOKEN", "API_KEY", "aws_secret_access_key", "PATH", "NCCL_DEBUG"]),
    st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=16
    ),
)
VALUE = st.one_of(st.text(max_size=16), st.sampled_from(["", mask("x")]), st.none(), st.integers())


@settings(max_examples=60, deadline=None)
@given(envs=st.lists(st.tuples(NAME, VALUE), max_size=6))
def test_redaction_is_idempotent_and_leaves_no_secret(envs: list[tuple[str, Any]]) -> None:
    payload = load_json(FIXTURES / "aihc-job-detail.json")
    payload["result"]["envs"] = [{"name": n, "value": v} for n, v in envs]
    pod = payload["result"]["podList"]["pods"][0]
    raw = json.loads(pod["objectMeta"]["annotations"]["aijob.cce.baidubce.com/raw-request"])
    raw["jobSpec"]["Master"]["env"] = dict(envs)
    pod["objectMeta"]["annotations"]["aijob.cce.baidubce.com/raw-request"] = json.dumps(raw)
    redacted, _ = redact_payload(payload)
    assert unmasked_secrets(redacted) == []
    assert redact_payload(redacted) == (redacted, [])
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    once = redact_text(text)
    assert json.loads(once.text) == redacted
    assert redact_text(once.text).text == once.text


# --- pre-commit hooks --------------------------------------------------------------------------

HOOKS = REPO / ".pre-commit-hooks.yaml"


def test_hooks_file_names_both_hooks() -> None:
    text = HOOKS.read_text(encoding="utf-8")
    for line in (
        "- id: jobschema-validate",
        "  entry: jobschema validate --skip-unknown",
        "- id: jobschema-redact-check",
        "  entry: jobschema redact --check",
    ):
        assert line + "\n" in text
    assert text.count("  language: python\n") == 2
    assert text.count("  files: \\.(json|ndjson|jsonl|har)$\n") == 2
    assert text.count("  pass_filenames: true\n") == 2


def test_hooks_file_parses_as_pre_commit_expects() -> None:
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    assert [(h["id"], h["entry"]) for h in hooks] == [
        ("jobschema-validate", "jobschema validate --skip-unknown"),
        ("jobschema-redact-check", "jobschema redact --check"),
    ]
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is True
        pattern = re.compile(hook["files"])
        assert [bool(pattern.search(n)) for n in ("a.json", "b/c.ndjson", "d.jsonl", "e.har", "f.yaml")] == [
            True,
            True,
            True,
            True,
            False,
        ]


# --- in-place writes: durable, through symlinks, never behind a hard link ----------------------


def _secret_file(folder: Path, name: str = "runai.json") -> Path:
    target = folder / name
    shutil.copyfile(FIXTURES / "runai-workload.json", target)
    return target


def test_in_place_through_a_symlink_rewrites_the_real_file(run_cli, tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    real = _secret_file(tmp_path / "real")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    result = run_cli(["redact", "--in-place", str(link)], code=0)
    assert result.stderr == f"{link}: masked 1 secret\n"
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_bytes() == (GOLDEN / "runai-workload.json").read_bytes()
    assert sorted(p.name for p in real.parent.iterdir()) == ["runai.json"]


def test_in_place_refuses_a_file_with_several_hard_links(run_cli, tmp_path: Path) -> None:
    target = _secret_file(tmp_path)
    other = tmp_path / "other.json"
    other.hardlink_to(target)
    before = target.read_bytes()
    result = run_cli(["redact", "--in-place", str(target)], code=1)
    assert result.stderr == (
        f"Error: {target}: has 2 hard links: rewriting it would leave the secrets behind the other "
        "links; redact it with -o and replace the links yourself\n"
    )
    assert target.read_bytes() == other.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.json", "runai.json"]


@pytest.mark.parametrize("failure", [KeyboardInterrupt, SystemExit, OSError])
def test_in_place_leaves_no_temporary_file_on_any_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: type[BaseException]
) -> None:
    from jobschema.redact import files as command

    target = _secret_file(tmp_path)
    before = target.read_bytes()

    def interrupted(*args: object) -> None:
        raise failure(5, "interrupted") if failure is OSError else failure()

    monkeypatch.setattr(command.os, "replace", interrupted)
    with pytest.raises(failure):
        command.replace_file(target, b"{}")
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["runai.json"]


def test_in_place_flushes_the_file_and_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from jobschema.redact import files as command

    target = _secret_file(tmp_path)
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        synced.append("folder" if Path(f"/proc/self/fd/{descriptor}").is_dir() else "file")
        real_fsync(descriptor)

    monkeypatch.setattr(command.os, "fsync", fsync)
    command.replace_file(target, b'{"a": 1}\n')
    assert target.read_bytes() == b'{"a": 1}\n'
    assert synced == ["file", "folder"]


def test_a_secret_in_an_object_key_is_an_error_not_a_silent_skip(run_cli, tmp_path: Path) -> None:
    target = tmp_path / "keys.json"
    target.write_text('{"env": {"Bearer abcdef.123456-XYZ": "x"}}\n', encoding="utf-8")
    result = run_cli(["redact", "--check", str(target)], code=1)
    assert result.stdout == ""
    assert result.stderr == f"Error: {target}: /env: an object key holds a secret; rename it by hand\n"
    run_cli(["redact", "--in-place", str(target)], code=1)
    assert target.read_text(encoding="utf-8") == '{"env": {"Bearer abcdef.123456-XYZ": "x"}}\n'
