"""Secrets, round 11: the output channels, each planted with a handful of strong forms.

Six forms (a ``ghp_`` token, a URL's ``user:password@``, ``--password X``, a JWT, an AWS secret key
line, a base64 docker ``config.json``) were planted in every channel the program writes: validate's
five formats (sources, pointers, JUnit names and classnames, SARIF URIs, GitHub ``file=``), versions,
coverage, diff and ``diff --history``, timeline, redact, changes (reports, witnesses, baselines),
schemas, generate, serve (access log, error bodies, token answers), record (stderr, NDJSON, HAR with
errors echoing the token, redirects, ``WWW-Authenticate``, a URL's userinfo and ``?token=``), error
lines from config, credential and schema files, environment variables, and the pytest plugin's node
ids and classnames. Found shown (before this round), by class:

- **a file's path read whole** (a folder named ``--password X`` or ``bob:X@db.internal`` is no option
  or URL inside ``/tmp/--password X/a.json``): validate (every format), versions, redact's report, the
  pytest plugin's node ids and JUnit classnames, every note naming a file. Now a path's parts between
  ``/`` or ``\\`` are read on their own too (``secrets.reading.scrub_path``, ``policy.masked_path``;
  ``inputs.files.named``, ``report.common``, ``report.versions``, ``report.redact``).
- **an error line quoting a file's data** (read by token shapes only): ``serve --config`` and
  ``--credentials`` unknown keys and tables (``"--password X" = 1``), a schema file that is no JSON
  Schema quoting its value (``'aws_secret_access_key = X' is not valid under …``). Now the keys are
  read by the policy (``masked_token``) and the value quoted with ``mask_given``.
- **a value given as ``API=VALUE``** (``--api-version runai=--password X``): the error quotes the
  value alone, which read whole inside ``runai=…`` is no option; now the part after ``=`` is read too.
- **a witness's reason written with an escaped pointer** (``changes``: ``/postgres:~1~1bob:X@db``):
  each key read before it is escaped.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.cli import main as cli
from jobschema.inputs.files import named
from jobschema.secrets.reading import scrub_path
from tests.secret_forms import RUNAI, shown

GHP = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
PW = "S3cr3tPw9xq"
FLAGPW = "S3cr3tPw9yz"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIiwiaXNzIjoic3VwYWJhc2UifQ."
    "c2lnbmF0dXJlX29mX3RoZV9zZXJ2aWNlX2tleV94eXo"
)
SK = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Q4V2LM9P"
DPW = "Dk9pW3zQ7rT2"
AUTH = base64.b64encode(f"bob:{DPW}".encode()).decode()
DOCKER = base64.b64encode(json.dumps({"auths": {"r.io": {"auth": AUTH}}}).encode()).decode()
#: ``(id, text, secret)``: the strong forms of this round.
FORMS = [
    ("ghp", f"token={GHP}", GHP),
    ("url", f"postgres://bob:{PW}@db.internal", PW),
    ("flag", f"--password {FLAGPW}", FLAGPW),
    ("jwt", JWT, JWT),
    ("aws", f"aws_secret_access_key = {SK}", SK),
    ("docker", DOCKER, DPW),
]
#: The forms as a folder's or a file's name can hold them (no ``/``, no ``//``).
NAMES = [
    ("ghp", f"token={GHP}", GHP),
    ("url", f"bob:{PW}@db.internal", PW),
    ("flag", f"--password {FLAGPW}", FLAGPW),
    ("jwt", JWT, JWT),
    ("aws", f"aws_secret_access_key={SK.replace('/', '_')}", SK.replace("/", "_")),
    ("docker", f"password={DPW}", DPW),
]


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    return result.stdout + result.stderr


def _shown(text: str, forms: list[tuple[str, str, str]]) -> list[str]:
    return [name for name, _, secret in forms if shown(secret, text)]


# --- a file's path read whole -------------------------------------------------------------------


@pytest.fixture(scope="module")
def named_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Invalid payloads each in a folder and a file named by a form (and one beside the others)."""
    root = tmp_path_factory.mktemp("names")
    for index, (_, name, _) in enumerate(NAMES):
        payload = dict(RUNAI, workloadId=f"6dce772a-33c1-473b-b21b-{index:012d}", desiredPhase=42)
        folder = root / name
        folder.mkdir()
        (folder / f"{name}.json").write_text(json.dumps(payload), "utf-8")
        (folder / "job.json").write_text(json.dumps(payload), "utf-8")
    return root


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "github", "sarif"])
def test_validate_shows_no_path_part_holding_a_secret(named_tree: Path, fmt: str) -> None:
    out = _run("validate", "-v", "-f", fmt, str(named_tree))
    assert "job.json" in out
    assert _shown(out, NAMES) == []


def test_versions_and_redact_show_no_path_part_holding_a_secret(named_tree: Path) -> None:
    outs = [_run("versions", "-f", fmt, str(named_tree)) for fmt in ("text", "json")]
    outs.append(_run("redact", "--check", str(named_tree)))
    assert all("job.json" in out for out in outs[:2])
    assert _shown("\n".join(outs), NAMES) == []


def test_the_pytest_plugin_names_no_path_part_holding_a_secret(named_tree: Path) -> None:
    from jobschema.pytest_plugin import classname, node_id

    files = sorted(str(path) for path in named_tree.rglob("*.json"))
    ids = [named(node_id(f"{file}:1", file, named_tree.parent)) for file in files]
    classes = [classname(file, named_tree.parent) for file in files]
    assert _shown("\n".join(ids + classes), NAMES) == []
    assert len(ids) == len(classes) == 2 * len(NAMES)
    assert any(text.endswith(f"--password <secret:{text[-17:-9]}>/job.json:1") for text in ids) or any(
        text.endswith("/job.json:1") and "--password" in text for text in ids
    )


#: Paths that hold no secret: shown as they are.
PLAIN_PATHS = [
    "/home/bob/captures/jobs.ndjson",
    "C:\\Users\\bob\\captures\\a.json",
    "/tmp/token-cache/a.json",
    "/srv/password-reset/2024/a.json:3",
    "caps/a.har#2 GET https://runai.example.com/api/v1/workloads/distributed/6dce772a",
    "/data/secret-santa/list.json",
    "./tokenizer/config.json",
]


@pytest.mark.parametrize("path", PLAIN_PATHS)
def test_a_plain_path_is_shown_as_it_is(path: str) -> None:
    assert scrub_path(path) == path
    assert named(path) == path


@settings(database=None, derandomize=True, max_examples=60)
@given(
    st.lists(
        st.one_of(st.sampled_from(NAMES), st.sampled_from(["caps", "2024", "jobs.ndjson", "a b", "x:y"])),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(["/", "\\"]),
    st.sampled_from(["", ":3", "#2 GET https://h/x"]),
)
def test_every_part_of_a_composed_path_is_read(parts: list[object], separator: str, tail: str) -> None:
    texts = [part[1] if isinstance(part, tuple) else part for part in parts]
    path = separator + separator.join(texts) + tail
    masked = scrub_path(path)
    forms = [part for part in parts if isinstance(part, tuple)]
    assert _shown(masked, forms) == []  # type: ignore[arg-type]
    # (the parts before the first form are kept; a value read whole may run on over later parts)
    for text in texts[: next((i for i, part in enumerate(parts) if isinstance(part, tuple)), len(parts))]:
        if text in {"caps", "2024", "jobs.ndjson"}:
            assert text in masked


# --- an error line quoting a file's data ----------------------------------------------------------


def test_errors_quoting_a_config_or_credentials_file_mask_its_keys(tmp_path: Path) -> None:
    seed = "schemas/examples/runai-distributed-workload/seed.json"
    outs = []
    for index, (_, text, _) in enumerate(FORMS):
        quoted = json.dumps(text)
        files = {
            f"c{index}.toml": f"{quoted} = 1\n",
            f"t{index}.toml": f"token_expiry = 1\n[{quoted}]\nx = 1\n",
            f"j{index}.json": json.dumps({"token_expiry": 1, text: 1}),
        }
        for name, body in files.items():
            (tmp_path / name).write_text(body, "utf-8")
            outs.append(_run("serve", "--config", str(tmp_path / name), seed))
        for name, body in {
            f"k{index}.toml": f"[{quoted}]\nclient_secret = 'x'\n",
            f"r{index}.toml": f"[runai]\n{quoted} = 'x'\n",
        }.items():
            (tmp_path / name).write_text(body, "utf-8")
            outs.append(_run("serve", "--credentials", str(tmp_path / name), seed))
    assert all(out.startswith("Error: ") and "unknown" in out for out in outs)
    assert _shown("\n".join(outs), FORMS) == []


def test_an_invalid_schema_error_masks_the_value_and_keys_it_quotes(tmp_path: Path) -> None:
    seed = "schemas/examples/runai-distributed-workload/seed.json"
    outs = []
    for index, (_, text, _) in enumerate(FORMS):
        for name, document in {
            f"a{index}.schema.json": {"type": text},
            f"b{index}.schema.json": {"properties": {text: {"type": text}}},
            f"c{index}.schema.json": {"properties": {"x": {"enum": text, "type": "string"}}},
        }.items():
            (tmp_path / name).write_text(json.dumps(document), "utf-8")
            outs.append(_run("validate", "-s", str(tmp_path / name), seed))
    assert all("not a valid JSON Schema" in out for out in outs)
    assert _shown("\n".join(outs), FORMS) == []


def test_a_value_given_after_an_equals_sign_is_masked_where_an_error_quotes_it() -> None:
    seed = "schemas/examples/runai-distributed-workload/seed.json"
    outs = []
    for _, text, _ in FORMS:
        outs.append(_run("validate", "--api-version", f"runai={text}", seed))
        outs.append(_run("validate", f"--api-version=runai={text}", seed))
        outs.append(_run("coverage", "--api-version", f"aihc={text}", seed))
    assert all("--api-version" in out for out in outs)
    assert _shown("\n".join(outs), FORMS) == []


# --- a witness's reason ----------------------------------------------------------------------------


def test_changes_witness_reasons_mask_the_keys_they_name(tmp_path: Path) -> None:
    draft = "https://json-schema.org/draft/2020-12/schema"
    keys = [text for _, text, _ in FORMS]
    old = {
        "$schema": draft,
        "type": "object",
        "properties": {key: {"type": "string"} for key in keys},
        "required": keys,
    }
    new = {"$schema": draft, "type": "object", "properties": {key: {"type": "integer"} for key in keys}}
    (tmp_path / "old.schema.json").write_text(json.dumps(old), "utf-8")
    (tmp_path / "new.schema.json").write_text(json.dumps(new), "utf-8")
    outs = [
        _run("changes", "-f", fmt, str(tmp_path / "old.schema.json"), str(tmp_path / "new.schema.json"))
        for fmt in ("text", "json")
    ]
    assert all("witness" in out for out in outs)
    assert _shown("\n".join(outs), FORMS) == []


# --- the pytest plugin: payload items, the fixtures' failures, JUnit XML ---------------------------

pytest_plugins = ["pytester"]


def test_the_pytest_plugin_shows_no_secret_in_any_line_or_junit_attribute(
    pytester: pytest.Pytester, named_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    cases = [(name, text) for name, text, _ in NAMES]
    pytester.makepyfile(
        test_fixtures=f"""
        import json
        import pytest

        CASES = {cases!r}
        FORMS = {[text for _, text, _ in FORMS]!r}

        @pytest.mark.parametrize("name,text", CASES, ids=[name for name, _ in CASES])
        def test_a_path_given_as_a_payload(jobschema_validate, tmp_path, name, text):
            folder = tmp_path / text
            folder.mkdir()
            (folder / "a.json").write_text("{{}}")
            jobschema_validate(str(folder / "a.json"))

        @pytest.mark.parametrize("text", FORMS, ids=range(len(FORMS)))
        def test_a_key_and_a_value(jobschema_validate, text):
            payload = {{"workloadId": text, text: 1, "desiredPhase": text}}
            jobschema_validate(payload, "runai-distributed-workload")

        @pytest.mark.parametrize("text", FORMS, ids=range(len(FORMS)))
        def test_a_config_key(jobschema_server, text):
            jobschema_server(config={{text: 1}})
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "jobschema.pytest_plugin", "-p", "no:cacheprovider", "-v", "-rA",
        "--jobschema-payloads", str(named_tree), "--junitxml", str(pytester.path / "junit.xml"),
    )  # fmt: skip
    out = result.stdout.str() + result.stderr.str()
    xml = (pytester.path / "junit.xml").read_text("utf-8")
    assert "is a path, not a payload" in out
    assert xml.count("<testcase") == 2 * len(NAMES) + len(NAMES) + 2 * len(FORMS)
    assert _shown(out, NAMES + FORMS) == []
    assert _shown(xml, NAMES + FORMS) == []


# --- a schema's own text: its choices cut before they were read, its keys in coverage -------------


def test_a_schemas_choice_is_read_whole_before_it_is_cut(tmp_path: Path) -> None:
    """An enum's choice or a const is cut to 60 characters in a message: a JWT cut so is no JWT, and
    the report's last search (token shapes) did not find it."""
    draft = "https://json-schema.org/draft/2020-12/schema"
    keys = [f"k{index}" for index in range(len(FORMS))]
    enums = {key: {"enum": [text, "x"]} for key, (_, text, _) in zip(keys, FORMS, strict=True)}
    consts = {f"c{key}": {"const": text} for key, (_, text, _) in zip(keys, FORMS, strict=True)}
    schema = {"$schema": draft, "type": "object", "properties": {**enums, **consts}}
    (tmp_path / "s.schema.json").write_text(json.dumps(schema), "utf-8")
    payload = dict.fromkeys([*enums, *consts], 0)
    (tmp_path / "p.json").write_text(json.dumps(payload), "utf-8")
    outs = [
        _run("validate", "-f", fmt, "-s", str(tmp_path / "s.schema.json"), str(tmp_path / "p.json"))
        for fmt in ("text", "json")
    ]
    enum_only = {**schema, "properties": enums, "required": keys}
    (tmp_path / "old.schema.json").write_text(json.dumps(enum_only), "utf-8")
    (tmp_path / "new.schema.json").write_text(
        json.dumps({**enum_only, "properties": {k: {} for k in keys}}), "utf-8"
    )
    outs.append(
        _run("changes", "-f", "json", str(tmp_path / "old.schema.json"), str(tmp_path / "new.schema.json"))
    )
    assert "is not one of" in outs[0] and "is not one of" in outs[2]
    assert _shown("\n".join(outs), FORMS) == []


def test_coverage_reads_a_users_schema_keys(tmp_path: Path) -> None:
    draft = "https://json-schema.org/draft/2020-12/schema"
    properties = {
        text: {"type": "object", "properties": {text: {"enum": ["a", "b"]}}} for _, text, _ in FORMS
    }
    (tmp_path / "s.schema.json").write_text(json.dumps({"$schema": draft, "properties": properties}), "utf-8")
    seed = "schemas/examples/runai-distributed-workload/seed.json"
    outs = [
        _run("coverage", "-v", "-f", fmt, "-s", str(tmp_path / "s.schema.json"), seed)
        for fmt in ("text", "json", "markdown")
    ]
    assert all("actualPhase" in out for out in outs)
    assert _shown("\n".join(outs), FORMS) == []


# --- stderr lines written beside the one writer of error lines ------------------------------------


def test_notes_and_warnings_name_a_path_through_the_policy(tmp_path: Path, named_tree: Path) -> None:
    """``changes --witness DIR``'s note, ``redact``'s notes, ``serve``'s warnings and refusal and
    ``versions``' line of an unreadable file were written with ``click.echo`` beside
    ``echo_error``/``echo_note``, the path raw."""
    outs = []
    for _, name, _ in NAMES:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bad.json").write_text('{"a": ', "utf-8")
        (folder / "creds.toml").write_text("[runai]\nclient_id = 'a'\nclient_secret = 'b'\n", "utf-8")
        (folder / "creds.toml").chmod(0o644)
        (folder / "loop").symlink_to(folder)
        outs.append(_run("changes", "runai@2.18", "runai@2.19", "--witness", str(folder / "w"), "-f", "json"))
        outs.append(_run("redact", "--check", str(folder)))
        outs.append(_run("versions", str(folder / "bad.json")))
        outs.append(_run("serve", "--credentials", str(folder / "creds.toml"), str(folder / "bad.json")))
    outs.append(_run("serve", str(named_tree)))  # (invalid captures: refused)
    assert sum("witness file(s) written to" in out for out in outs) == len(NAMES)
    assert sum("readable by other users" in out for out in outs) == len(NAMES)
    assert _shown("\n".join(outs), NAMES) == []


def test_a_dask_runs_failure_line_is_read_by_the_policy() -> None:
    """The Dask path's one line of a lost run quotes the worker's error (an ``OSError`` naming a file)."""
    pytest.importorskip("distributed")
    from jobschema.validate.parallel.dask import _one_line

    lines = [
        _one_line(OSError(2, "No such file or directory", f"/data/{name}/jobs.ndjson"))
        for _, name, _ in NAMES
    ]
    lines += [_one_line(TimeoutError(f"connecting to {text} timed out\nmore")) for _, text, _ in FORMS]
    assert all("No such file" in line for line in lines[: len(NAMES)])
    assert _shown("\n".join(lines), NAMES + FORMS) == []


def test_a_rules_quoted_value_is_read_whole_and_timeline_json_reads_its_sources(tmp_path: Path) -> None:
    """A rule's message cuts a value to 60 characters (``name "eyJ…" does not start with
    requestedName``): read by the policy before it is cut; ``timeline -f json``'s changes name their
    source (a file in a folder named ``--password X``)."""
    history = Path("tests/fixtures/serve/runai-history.ndjson").read_text("utf-8").splitlines()
    outs = []
    for index, (_, name, _) in enumerate(NAMES):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "h.ndjson").write_text("\n".join(history) + "\n", "utf-8")
        outs.append(_run("timeline", "-f", "json", str(folder / "h.ndjson")))
        text = FORMS[index][1]
        lines = [json.dumps({**json.loads(line), "name": text}) for line in history]
        (tmp_path / f"n{index}.ndjson").write_text("\n".join(lines) + "\n", "utf-8")
    for fmt in ("text", "github", "junit", "sarif"):
        outs.append(_run("validate", "-f", fmt, *(str(tmp_path / f"n{i}.ndjson") for i in range(len(FORMS)))))
    assert all('"source"' in out for out in outs[: len(NAMES)])
    assert "runai-name-not-from-requested-name" in outs[-1]
    assert _shown("\n".join(outs), NAMES + FORMS) == []


def test_diff_history_reads_an_error_answers_message_before_it_is_cut(tmp_path: Path) -> None:
    history = Path("tests/fixtures/serve/runai-history.ndjson").read_text("utf-8").splitlines()
    errors = [json.dumps({"code": 401, "message": f"the token {text} was refused"}) for _, text, _ in FORMS]
    errors += [json.dumps({"code": text, "message": "x" * 200}) for _, text, _ in FORMS]
    (tmp_path / "h.ndjson").write_text("\n".join([history[0], *errors, *history[1:]]) + "\n", "utf-8")
    outs = [_run("diff", "--history", "-f", fmt, str(tmp_path / "h.ndjson")) for fmt in ("text", "json")]
    assert all("an error answer" in out for out in outs)
    assert _shown("\n".join(outs), FORMS) == []


def test_changes_names_a_schema_files_folders_through_the_policy(tmp_path: Path) -> None:
    """``changes OLD NEW``'s sides were labelled by the paths as given: every format's header,
    witness reasons, SARIF URIs, JUnit suite names and the baseline file showed a folder's secret."""
    draft = "https://json-schema.org/draft/2020-12/schema"
    old = {"$schema": draft, "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    new = {**old, "properties": {"a": {"type": "integer"}}}
    outs = []
    for _, name, _ in NAMES:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "old.schema.json").write_text(json.dumps(old), "utf-8")
        (folder / "new.schema.json").write_text(json.dumps(new), "utf-8")
        sides = [str(folder / "old.schema.json"), str(folder / "new.schema.json")]
        for fmt in ("text", "json", "markdown", "github", "sarif", "junit"):
            outs.append(_run("changes", "-f", fmt, *sides, "--write-baseline", str(folder / "b.json")))
        outs.append((folder / "b.json").read_text("utf-8"))
        outs.append(_run("changes", *sides, "--baseline", str(folder / "b.json")))
    assert sum("witness: accepted by" in out for out in outs) == 3 * len(NAMES)  # (text, markdown, junit)
    assert _shown("\n".join(outs), NAMES) == []


@pytest.mark.parametrize("fmt", ["json", "junit", "sarif"])
def test_a_schema_files_name_is_read_where_a_report_names_the_schema(tmp_path: Path, fmt: str) -> None:
    """``validate -s FILE``: each result names its schema by the file's stem (JSON ``schema``, SARIF
    properties, the JUnit classname), written without the policy."""
    schema = Path("schemas/runai-distributed-workload.schema.json").read_text("utf-8")
    seed = "schemas/examples/runai-distributed-workload/seed.json"
    outs = []
    for _, name, _ in NAMES:
        if "/" in name or "--" in name:
            continue
        (tmp_path / f"{name}.schema.json").write_text(schema, "utf-8")
        outs.append(_run("validate", "-v", "-f", fmt, "-s", str(tmp_path / f"{name}.schema.json"), seed))
    assert all("seed.json" in out for out in outs)
    assert _shown("\n".join(outs), NAMES) == []


# --- a value shown whole in a rule's message is still read alone first ----------------------------

#: Short values a rule's message shows whole, whose secret a reading of the message alone would not
#: find (the quotes around the value and the words after it change what the readers see): found by
#: planting each of the rounds' 1,144 forms of at most 58 characters in a Run:ai ``name``.
QUOTED_WHOLE = [
    ("- **password**: Qw9!zX#4vB&7nM", "Qw9!zX#4vB&7nM"),
    ("password_command = printf '%s' Qz7vK2mX9pL4wR8tNb3YcD6fHj", "Qz7vK2mX9pL4wR8tNb3YcD6fHj"),
    ("password, user = 'sunshine42', 'bob'", "sunshine42"),
]


@pytest.mark.parametrize(("text", "secret"), QUOTED_WHOLE, ids=range(len(QUOTED_WHOLE)))
def test_a_short_value_a_rule_quotes_whole_is_read_alone_first(text: str, secret: str) -> None:
    from jobschema.findings import Report
    from jobschema.report import FORMATS, RenderOptions, render
    from jobschema.validate import validate_payload
    from tests.secret_forms import runai_with

    payload = runai_with("x")
    payload["name"] = text
    result = validate_payload(payload)
    assert "runai-name-not-from-requested-name" in {finding.rule for finding in result.findings}
    reports = [render(Report((result,)), fmt, RenderOptions(verbose=1)) for fmt in FORMATS]
    assert not shown(secret, "\n".join(reports))
