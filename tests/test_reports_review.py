"""The report formats as their consumers read them: SARIF by the official 2.1.0 schema and GitHub code
scanning's ingestion rules, JUnit by Jenkins' XSD, GitHub workflow commands by the runner's parsing,
and the text format as a CI log (where a line that starts with ``::`` is a command).

The consumers' schemas are vendored in tests/fixtures/reports_review/ (licenses in its README).
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.findings import Finding, PayloadResult, Report
from jobschema.report import RenderOptions, render
from jobschema.secrets.mask import scoped_mask_key
from jobschema.text import visible

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "reports_review"
INVALID = HERE / "fixtures" / "captures" / "invalid-workload.json"
TOKEN = "ghp_" + "Zq3" * 12
XS = "{http://www.w3.org/2001/XMLSchema}"

#: File names of every kind a CI checkout may hold (relative to the folder the run starts in).
NAMES = [
    "plain.json",
    "sp ace/a b.json",
    "uni任务/ü.json",
    "a,b:c.json",
    "pct%41.json",
    "back\\slash.json",
    "C:\\win.json",
    "nl\nx.json",
    "esc\x1b[2Kx.json",
    "hash#q?.json",
    "::warning::forged.json",
    " ::error file=x::forged.json",
    "\u3000::notice::forged.json",
]


@pytest.fixture(scope="module")
def sarif_schema() -> jsonschema.Draft4Validator:
    schema = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text())
    return jsonschema.Draft4Validator(schema)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of invalid payloads under hostile names, the run's working folder."""
    for name in NAMES:
        (tmp_path / "in" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(INVALID, tmp_path / "in" / name)
    (tmp_path / "in" / "broken.json").write_text('{"oops": ')
    monkeypatch.chdir(tmp_path / "in")
    return tmp_path / "in"


def _sarif_rules(log: dict[str, Any], validator: jsonschema.Draft4Validator) -> list[dict[str, Any]]:
    """Check ``log`` by the SARIF schema and GitHub code scanning's ingestion rules; its results."""
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert not errors, errors[:5]
    (run,) = log["runs"]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert result["ruleId"] and rules[result["ruleIndex"]] == result["ruleId"]
        assert result["message"]["text"].strip()
        assert 1 <= len(result["locations"]) <= 1000
        for location in result["locations"]:  # (code scanning rejects the whole log without a uri)
            physical = location["physicalLocation"]
            address = physical["artifactLocation"]["uri"]
            parts = urlsplit(address)
            if parts.scheme:
                assert parts.scheme == "file" and parts.path.startswith("/"), address
            else:  # a relative reference, read against the repository's root
                assert not address.startswith("/") and ":" not in address.split("/")[0], address
            segments = unquote(parts.path).split("/")
            assert "." not in segments and ".." not in segments, address
            assert not re.search(r"[\s<>\"\\\x00-\x1f\x7f]", address), address
            region = physical.get("region", {"startLine": 1})
            assert region["startLine"] >= 1 and region.get("startColumn", 1) >= 1
        assert result["partialFingerprints"]
    return list(run["results"])


def test_sarif_of_hostile_paths_meets_the_schema_and_code_scannings_rules(
    run_cli, tree: Path, sarif_schema: jsonschema.Draft4Validator
) -> None:
    elsewhere = tree.parent / "else where"
    elsewhere.mkdir()
    for name in ("x.json", "y.json"):
        shutil.copyfile(INVALID, elsewhere / name)
    args = ["validate", "-f", "sarif", ".", str(elsewhere / "x.json"), "../else where/./y.json", "-"]
    out = run_cli(args, code=1, input=INVALID.read_text()).stdout
    results = _sarif_rules(json.loads(out), sarif_schema)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    outside = {(elsewhere / name).as_uri() for name in ("x.json", "y.json")}
    assert {"plain.json", "sp%20ace/a%20b.json", "a%2Cb%3Ac.json", "%3Cstdin%3E", *outside} <= uris
    assert "broken.json" in uris  # a parse error: a place in the file


def test_redact_check_sarif_meets_the_schema_even_for_stdin(
    run_cli, tree: Path, sarif_schema: jsonschema.Draft4Validator
) -> None:
    secret = json.loads(INVALID.read_text())
    secret["spec"]["environmentVariables"] = [{"name": "HF_TOKEN", "value": "hf_" + "k" * 34}]
    (tree / f"{TOKEN}.json").write_text(json.dumps(secret))
    for args, stdin in ((["."], None), (["-"], json.dumps(secret))):
        out = run_cli(["redact", "--check", "-f", "sarif", *args], code=1, input=stdin).stdout
        results = _sarif_rules(json.loads(out), sarif_schema)
        assert results and TOKEN not in out


def test_sarif_fingerprints_are_the_same_in_every_run_whatever_the_mask_key(
    run_cli, tree: Path, sarif_schema: jsonschema.Draft4Validator
) -> None:
    (tree / f"{TOKEN}.json").write_bytes(INVALID.read_bytes())
    runs, outs = [], []
    for key in ("one key", "another key"):
        with scoped_mask_key(key.encode()):
            out = run_cli(["validate", "-f", "sarif", "."], code=1).stdout
        assert TOKEN not in out
        outs.append(out)
        runs.append([r["partialFingerprints"] for r in _sarif_rules(json.loads(out), sarif_schema)])
    assert outs[0] != outs[1]  # (the masks differ)
    assert runs[0] == runs[1]
    fingerprints = [json.dumps(f) for f in runs[0]]
    assert len(set(fingerprints)) == len(fingerprints)  # (two findings at one place stay two alerts)


def test_text_lines_never_begin_a_workflow_command(run_cli, tree: Path) -> None:
    for args in (["validate", "-v", "--strict", "."], ["validate", "-f", "github", "."]):
        out = run_cli(args, code=1).stdout
        for line in out.splitlines():
            assert not re.match(r"\s*::", line) or line.startswith(("::error ", "::warning ")), line
    secret = json.loads(INVALID.read_text())
    secret["token"] = TOKEN
    (tree / "::error::x.json").write_text(json.dumps(secret))
    out = run_cli(["redact", "--check", "."], code=1).stdout
    assert "./::error::x.json: /token: unmasked secret [redact]" in out.splitlines()
    assert not any(re.match(r"\s*::", line) for line in out.splitlines())
    shown = run_cli(["validate", "::warning::forged.json"], code=1).stdout.splitlines()[0]
    assert shown == './::warning::forged.json:1:1: (root): missing required property "createdBy" [required]'


# --- GitHub workflow commands, read back as the runner reads them -------------------------------


def _unescape(text: str, prop: bool) -> str:
    pairs = [("%0D", "\r"), ("%0A", "\n"), *([("%3A", ":"), ("%2C", ",")] if prop else []), ("%25", "%")]
    for escaped, raw in pairs:
        text = text.replace(escaped, raw)
    return text


def _parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """The runner's reading of ``::name k=v,k=v::message`` (actions/runner ActionCommand.TryParseV2)."""
    assert line.startswith("::")
    end = line.index("::", 2)
    head, message = line[2:end], line[end + 2 :]
    name, _, rest = head.partition(" ")
    properties = {}
    for pair in filter(None, rest.split(",")):
        key, _, value = pair.partition("=")
        properties[key] = _unescape(value, True)
    return name, properties, _unescape(message, False)


@settings(max_examples=200, deadline=None, database=None)
@given(
    path=st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=20),
    message=st.text(max_size=30),
    rule=st.text(min_size=1, max_size=10),
)
def test_github_commands_read_back_as_they_were_written(path: str, message: str, rule: str) -> None:
    found = Finding(path, ("a",), message, rule, "error", "s", line=3, column=4, path=path)
    lines = render(Report((PayloadResult(path, "s", (found,)),)), "github", RenderOptions()).splitlines()
    assert len(lines) == 2  # one command and the summary: nothing can start another line
    name, properties, text = _parse_command(lines[0])
    assert name == "error"
    assert properties["line"] == "3" and properties["col"] == "4"
    if "<secret:" not in lines[0]:  # (a name or message that reads as a credential is masked)
        assert properties["file"] == visible(path, keep="\r\n")
        assert properties["title"] == visible(rule, keep="\r\n")
        assert text == visible(f"{path} /a: {message}", keep="\r\n")


# --- JUnit by Jenkins' XSD ------------------------------------------------------------------------


def _xsd() -> dict[str, tuple[set[str], set[str], set[str]]]:
    """element -> (children allowed, attributes allowed, attributes required), read from junit-10.xsd."""
    root = ET.parse(FIXTURES / "junit-10.xsd").getroot()
    types = {t.get("name"): t for t in root.iter(f"{XS}complexType") if t.get("name")}
    rules = {}
    for element in root.findall(f"{XS}element"):
        body = element.find(f"{XS}complexType")
        if body is None:
            body = types.get(element.get("type", ""))
        if body is None:  # xs:string: text only
            rules[element.get("name")] = (set(), set(), set())
            continue
        children = {c.get("ref") or c.get("name") for c in body.iter(f"{XS}element")}
        attributes = {a.get("name") for a in body.iter(f"{XS}attribute")}
        required = {a.get("name") for a in body.iter(f"{XS}attribute") if a.get("use") == "required"}
        rules[element.get("name")] = (children, attributes, required)
    return rules


def _check_xsd(element: ET.Element, rules: dict[str, tuple[set[str], set[str], set[str]]]) -> None:
    children, attributes, required = rules[element.tag]
    assert required <= set(element.attrib) <= attributes, (element.tag, element.attrib)
    for child in element:
        assert child.tag in children, (element.tag, child.tag)
        _check_xsd(child, rules)


def test_junit_of_hostile_names_and_keys_meets_jenkins_xsd_and_counts(run_cli, tree: Path) -> None:
    hostile = json.loads(INVALID.read_text())
    for key in ("a\x01b", "ab", "]]>\x1b[2K\ud800", "x" * 5000 + "\x0c"):
        hostile[key] = 1
    (tree / "keys.json").write_text(json.dumps(hostile))
    out = run_cli(["validate", "--strict", "-f", "junit", "."], code=1).stdout
    root = ET.fromstring(out.encode())
    rules = _xsd()
    _check_xsd(root, rules)
    (suite,) = root
    cases = suite.findall("testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    for element in (root, suite):
        assert element.get("tests") == str(len(cases)) and element.get("failures") == str(len(failed))
        assert element.get("errors") == "0"
    names = [c.get("name") for c in cases]
    assert "./nl\\nx.json" in names and "./esc\\x1b[2Kx.json" in names
    messages = [f.get("message") for f in suite.iter("failure")]
    assert any(m.startswith("/a\\x01b:") for m in messages) and any(m.startswith("/ab:") for m in messages)
    assert all(not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", m) for m in messages)


def test_versions_text_lines_never_begin_a_workflow_command(run_cli, tree: Path) -> None:
    for name in ("::error::v.json", " ::warning::w.json"):
        shutil.copyfile(INVALID, tree / name)
        lines = run_cli(["versions", name]).stdout.splitlines()
        assert lines[0] == f"./{name}: no Run:ai version"
        assert not any(re.match(r"\s*::", line) for line in lines)


def test_changes_sarif_meets_the_schema_and_code_scannings_rules(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sarif_schema: jsonschema.Draft4Validator
) -> None:
    """Each change is a result in a file (code scanning refused the whole log: logical locations
    only): the bundled schema's for two versions, NEW's for two schema files."""
    from jobschema.schemas.registry import bundled_path

    monkeypatch.chdir(bundled_path("runai-distributed-workload").parent.parent)
    out = run_cli(["changes", "runai@2.18", "runai@2.24", "-f", "sarif"], code=1).stdout
    results = _sarif_rules(json.loads(out), sarif_schema)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"schemas/runai-distributed-workload.schema.json"}
    old = json.loads(bundled_path("aihc-error").read_text())
    new = json.loads(json.dumps(old))
    new["required"] = [*new.get("required", []), "added"]
    new.setdefault("properties", {})["added"] = {"type": "string"}
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    monkeypatch.chdir(tmp_path)
    out = run_cli(["changes", "old.json", "new.json", "-f", "sarif", "--fail-on", "never"], code=0).stdout
    results = _sarif_rules(json.loads(out), sarif_schema)
    assert results
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {"new.json"}


def test_changes_junit_shows_a_control_character_in_a_name_as_its_escape(run_cli, tmp_path: Path) -> None:
    """``a\\x01b`` and ``ab`` are two properties; JUnit's attributes dropped the control character,
    so both read ``/ab`` (validate's JUnit already showed escapes)."""
    old = {"type": "object", "properties": {"a": {"type": "string"}}}
    new = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "a\x01b": {"type": "string"}, "ab": {"type": "string"}},
    }
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    args = [
        "changes",
        str(tmp_path / "old.json"),
        str(tmp_path / "new.json"),
        "-f",
        "junit",
        "--no-witnesses",
    ]
    out = run_cli(args, code=0).stdout
    names = re.findall(r'<testcase classname="new" name="([^"]*) property-added', out)
    assert sorted(names) == ["/a\\x01b", "/ab"]
