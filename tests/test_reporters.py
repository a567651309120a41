"""The reporters of ``jobschema validate``: golden output per format, and the properties each promises.

Golden files live in tests/golden/validate/<case>.<ext>; ``pytest --update-golden`` rewrites them.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.findings import Finding, PayloadResult, Report, Severity
from jobschema.pointer import to_path
from jobschema.report import FORMATS, RenderOptions, render
from jobschema.report.common import json_document, plural, summary_line
from jobschema.report.github import escape_data, escape_property
from jobschema.report.junit import xml_text
from jobschema.report.sarif import describe, uri
from tests.support import SCHEMAS, compare_golden

GOLDEN = Path(__file__).resolve().parent / "golden" / "validate"
EXTENSIONS = {"text": "txt", "json": "json", "junit": "junit.xml", "github": "github.txt", "sarif": "sarif"}
ESCAPES = 'bad <&>" 50% a,b:c\r\nnext line\ttab\x1b[31mred\x00nul 任务\u202e'


def check_golden(name: str, actual: str, update: bool) -> None:
    """Compare ``actual`` with golden file ``name`` byte for byte, or rewrite it under --update-golden."""
    compare_golden(GOLDEN / name, actual, update)


# --- reports built by hand ---------------------------------------------------------------------


def finding(
    source: str = "",
    pointer: str = "",
    message: str = "",
    rule: str = "",
    severity: Severity = "error",
    schema: str = "",
    *,
    schema_pointer: str | None = None,
    **fields: Any,
) -> Finding:
    """A finding spelled with pointers, as reports show them."""
    schema_tokens = None if schema_pointer is None else tuple(to_path(schema_pointer))
    return Finding(
        source,
        tuple(to_path(pointer)),
        message,
        rule,
        severity,
        schema,
        schema_tokens=schema_tokens,
        **fields,
    )


def invalid_result() -> PayloadResult:
    """An AIHC job with an error, a warning, a root error and an anyOf error with details (unsorted)."""
    path = "caps/aihc-job.json"
    common = {"source": path, "schema": "aihc-job-detail", "path": path}
    findings = (
        finding(pointer="/result/extra", message="undeclared property 'extra'", rule="unknown-property",
                severity="warning", line=20, column=5, **common),
        finding(pointer="/result/status", message="'Runing' is not one of 'Pending', 'Running', 'Failed'",
                rule="enum", line=12, column=15, schema_pointer="/$defs/JobStatus/enum", **common),
        finding(pointer="/result/datasources/0", message="not valid under any of the given schemas",
                rule="anyOf", line=15, column=9, schema_pointer="/$defs/Datasource/anyOf",
                details=("'name' is a required property", "'pfs' is not one of 'hostPath', 'dataset'"),
                **common),
        finding(pointer="", message="'requestId' is a required property", rule="required", line=1,
                column=1, schema_pointer="/required", **common),
    )  # fmt: skip
    return PayloadResult(path, "aihc-job-detail", findings)


def mixed_report() -> Report:
    """Every kind of payload the reporters must handle, with two skipped inputs."""
    har = "caps.har#2 GET https://x/api/v1/aijobs/j1"
    return Report(
        results=(
            PayloadResult("schemas/examples/runai-error/not-found.json", "runai-error"),
            invalid_result(),
            PayloadResult("<stdin>", "runai-error", (
                finding("<stdin>", "/code", "'404' is not of type 'integer'", "type", schema="runai-error",
                        schema_pointer="/properties/code/type"),
            )),
            PayloadResult("caps.ndjson:3", "runai-distributed-workload", (
                finding("caps.ndjson:3", "/phase", "'Stalled' is not a known value", "known-values",
                        "warning", "runai-distributed-workload", line=3, column=120, path="caps.ndjson"),
            )),
            PayloadResult(har, "aihc-job-detail", (
                finding(har, "/result/name", "'Job_1' does not match '^[a-z]'", "pattern",
                        schema="aihc-job-detail", line=41, path="caps.har"),
            )),
            PayloadResult("out dir/a,b:c.json", "aihc-error", (
                finding("out dir/a,b:c.json", "/a~1b/<x>", ESCAPES, "const", schema="aihc-error",
                        line=2, column=3, path="out dir/a,b:c.json"),
            )),
            PayloadResult("strict.json", "aihc-error", (
                finding("strict.json", "/code", "'x' is not a known value", "known-values", "warning",
                        "aihc-error", line=1, column=10, path="strict.json"),
            ), strict=True),
        ),
        skipped=2,
    )  # fmt: skip


def clean_report() -> Report:
    """One valid payload, nothing skipped: the singular summary."""
    return Report((PayloadResult("schemas/examples/aihc-error/denied.json", "aihc-error"),))


CASES = {
    "mixed": (mixed_report, RenderOptions()),
    "mixed-verbose": (mixed_report, RenderOptions(verbose=1)),
    "clean": (clean_report, RenderOptions()),
    "clean-verbose": (clean_report, RenderOptions(verbose=1)),
}


# --- golden files ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case: str, fmt: str, update_golden: bool) -> None:
    build, options = CASES[case]
    check_golden(f"{case}.{EXTENSIONS[fmt]}", render(build(), fmt, options), update_golden)


def test_golden_text_in_color(update_golden: bool) -> None:
    check_golden("mixed-color.txt", render(mixed_report(), "text", RenderOptions(color=True)), update_golden)


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_is_deterministic_and_ends_in_one_newline(fmt: str) -> None:
    first = render(mixed_report(), fmt, RenderOptions(verbose=1))
    assert first == render(mixed_report(), fmt, RenderOptions(verbose=1))
    assert first.endswith("\n")
    assert not first.endswith("\n\n")


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown report format 'yaml'"):
        render(mixed_report(), "yaml", RenderOptions())


# --- text --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_escape_sequences_without_color(fmt: str) -> None:
    assert "\x1b" not in render(mixed_report(), fmt, RenderOptions(color=False, verbose=1))


def test_color_adds_escape_sequences_to_text() -> None:
    out = render(mixed_report(), "text", RenderOptions(color=True))
    assert "\x1b[1mcaps/aihc-job.json\x1b[0m" in out
    assert "\x1b[33m/result/status\x1b[0m" in out
    assert out.endswith("\x1b[31m" + summary_line(mixed_report()) + "\x1b[0m\n")
    clean = render(clean_report(), "text", RenderOptions(color=True))
    assert clean.endswith("\x1b[32m" + summary_line(clean_report()) + "\x1b[0m\n")


def test_a_payload_cannot_inject_escape_sequences_even_in_color() -> None:
    out = render(mixed_report(), "text", RenderOptions(color=True))
    assert "\\x1b[31mred" in out
    assert "\x1b[31mred" not in out


def test_text_keeps_one_line_per_finding_and_sorts_findings() -> None:
    lines = render(Report((invalid_result(),)), "text", RenderOptions()).splitlines()
    assert [line.split(": ", 2)[1] for line in lines[:-1]] == [
        "(root)",
        "/result/status",
        "/result/datasources/0",
        "/result/extra",
    ]
    assert lines[2].endswith("[anyOf] (+2 more; -v shows them)")
    assert (
        lines[3]
        == "caps/aihc-job.json:20:5: /result/extra: warning: undeclared property 'extra' [unknown-property]"
    )


def test_verbose_text_lists_details_and_valid_payloads() -> None:
    out = render(mixed_report(), "text", RenderOptions(verbose=1))
    assert "schemas/examples/runai-error/not-found.json: ok (runai-error)\n" in out
    assert "    'name' is a required property\n    'pfs' is not one of 'hostPath', 'dataset'\n" in out
    assert "-v shows them" not in out


@pytest.mark.parametrize(
    ("count", "noun", "expected"),
    [
        (0, "payload", "0 payloads"),
        (1, "payload", "1 payload"),
        (2, "error", "2 errors"),
        (1, "warning", "1 warning"),
    ],
)
def test_plural(count: int, noun: str, expected: str) -> None:
    assert plural(count, noun) == expected


def test_summary_pluralisation() -> None:
    assert summary_line(mixed_report()) == "7 payloads: 2 valid, 5 invalid; 6 errors, 3 warnings; 2 skipped"
    assert summary_line(clean_report()) == "1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped"
    one = Report(
        (
            PayloadResult(
                "a.json", "s", (finding("a.json", "", "m", "r"), finding("a.json", "", "w", "r", "warning"))
            ),
        )
    )
    assert summary_line(one) == "1 payload: 0 valid, 1 invalid; 1 error, 1 warning; 0 skipped"
    assert summary_line(Report(())) == "0 payloads: 0 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped"


# --- json --------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_validates_against_its_schema(case: str) -> None:
    build, options = CASES[case]
    schema = json.loads((SCHEMAS / "validate-report.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(json.loads(render(build(), "json", options)))
    for example in schema["examples"]:
        validator.validate(example)


def test_json_details_only_with_verbose() -> None:
    def details(options: RenderOptions) -> list[list[str]]:
        data = json.loads(render(mixed_report(), "json", options))
        return [f["details"] for r in data["results"] for f in r["findings"] if "details" in f]

    assert details(RenderOptions()) == []
    assert details(RenderOptions(verbose=1)) == [
        ["'name' is a required property", "'pfs' is not one of 'hostPath', 'dataset'"]
    ]


def test_json_carries_the_exact_message_and_summary() -> None:
    data = json.loads(render(mixed_report(), "json", RenderOptions(version="9.9.9")))
    assert (data["tool"], data["version"], data["status"]) == ("jobschema", "9.9.9", "fail")
    assert data["summary"] == mixed_report().summary()
    assert data["results"][5]["findings"][0]["message"] == ESCAPES
    assert json.loads(render(clean_report(), "json", RenderOptions()))["status"] == "ok"


# --- junit -------------------------------------------------------------------------------------


def junit_tree(report: Report) -> ET.Element:
    return ET.fromstring(render(report, "junit", RenderOptions()).encode("utf-8"))


def test_junit_parses_and_counts_match() -> None:
    root = junit_tree(mixed_report())
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    failed = [case for case in cases if case.find("failure") is not None]
    assert root.get("tests") == suite.get("tests") == str(len(cases)) == "7"
    assert root.get("failures") == suite.get("failures") == str(len(failed)) == "5"
    assert (suite.get("errors"), suite.get("skipped")) == ("0", "0")
    assert suite.find("properties/property[@name='skipped-inputs']").get("value") == "2"
    har = "caps.har#2 GET https://x/api/v1/aijobs/j1"
    names = ["caps/aihc-job.json", "<stdin>", har, "out dir/a,b:c.json", "strict.json"]
    assert [case.get("name") for case in failed] == names


def test_junit_warnings_fail_only_under_strict() -> None:
    cases = {case.get("name"): case for case in junit_tree(mixed_report()).iter("testcase")}
    assert [f.get("type") for f in cases["caps/aihc-job.json"].findall("failure")] == [
        "required",
        "enum",
        "anyOf",
    ]
    assert "warning: undeclared property" in cases["caps/aihc-job.json"].findtext("system-out")
    assert cases["caps.ndjson:3"].find("failure") is None
    assert cases["caps.ndjson:3"].findtext("system-out").startswith("caps.ndjson:3:120: /phase: warning:")
    strict = cases["strict.json"].find("failure")
    assert strict.get("message") == "/code: warning: 'x' is not a known value"


def test_junit_escapes_and_drops_forbidden_characters() -> None:
    failure = next(junit_tree(mixed_report()).iter("testcase")).find("failure")
    assert failure is None  # the valid payload comes first
    cases = junit_tree(mixed_report()).iter("testcase")
    case = next(c for c in cases if c.get("name") == "out dir/a,b:c.json")
    message = case.find("failure").get("message")
    assert message == '/a~1b/<x>: bad <&>" 50% a,b:c\\r\\nnext line\\ttab\\x1b[31mred\\x00nul 任务\\u202e'
    assert xml_text("a\x00b\x1bc\ud800d\ufffee\tf") == "abc\\ud800de\tf"


# --- github ------------------------------------------------------------------------------------


def test_github_commands() -> None:
    lines = render(mixed_report(), "github", RenderOptions()).splitlines()
    assert lines[0] == (
        "::error file=caps/aihc-job.json,line=1,col=1,title=required::"
        "caps/aihc-job.json (root): 'requestId' is a required property"
    )
    assert "::error title=type::<stdin> /code: '404' is not of type 'integer'" in lines
    ndjson = "caps.ndjson:3 /phase: 'Stalled' is not a known value"
    assert f"::warning file=caps.ndjson,line=3,col=120,title=known-values::{ndjson}" in lines
    har = "caps.har#2 GET https://x/api/v1/aijobs/j1 /result/name: 'Job_1' does not match '^[a-z]'"
    assert f"::error file=caps.har,line=41,title=pattern::{har}" in lines
    assert lines[-1] == summary_line(mixed_report())
    assert len(lines) == 9 + 1


def test_github_escaping() -> None:
    assert escape_data("50%\r\nx:y,z") == "50%25%0D%0Ax:y,z"
    assert escape_property("out dir/a,b:c.json") == "out dir/a%2Cb%3Ac.json"
    assert escape_data("\x1b[31m") == "\\x1b[31m"


# --- sarif -------------------------------------------------------------------------------------


def test_sarif_has_the_required_keys() -> None:
    log = json.loads(render(mixed_report(), "sarif", RenderOptions(version="1.2.3")))
    assert (log["$schema"], log["version"]) == ("https://json.schemastore.org/sarif-2.1.0.json", "2.1.0")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("jobschema", "1.2.3")
    assert "informationUri" not in driver  # optional in SARIF; jobschema has no home page of its own
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == sorted(set(ids)) == ["anyOf", "const", "enum", "known-values", "pattern", "required", "type", "unknown-property"]  # fmt: skip  # noqa: E501
    assert all(rule["shortDescription"]["text"] for rule in driver["rules"])
    assert len(run["results"]) == 9
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning")
        assert result["message"]["text"]
        assert result["locations"][0]["logicalLocations"][0]["kind"] == "member"


def test_sarif_locations() -> None:
    results = json.loads(render(mixed_report(), "sarif", RenderOptions()))["runs"][0]["results"]
    stdin = next(r for r in results if r["properties"]["source"] == "<stdin>")
    assert stdin["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "%3Cstdin%3E"}}
    har = next(r for r in results if r["ruleId"] == "pattern")
    assert har["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "caps.har"},
        "region": {"startLine": 41},
    }
    assert results[0]["message"]["text"] == "(root): 'requestId' is a required property"
    assert results[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == ""


def test_sarif_rule_descriptions() -> None:
    assert describe("enum", {}) == "The value is not one of the values the schema lists."
    assert describe("enum", {"enum": "Custom."}) == "Custom."
    assert describe("runai-max-below-min", {}) == "jobschema check 'runai-max-below-min'."
    options = RenderOptions(rule_descriptions={"known-values": "Seen values only."})
    rules = json.loads(render(mixed_report(), "sarif", options))["runs"][0]["tool"]["driver"]["rules"]
    levels = {
        rule["id"]: (rule["shortDescription"]["text"], rule["defaultConfiguration"]["level"])
        for rule in rules
    }
    assert levels["known-values"] == ("Seen values only.", "warning")
    assert levels["enum"][1] == "error"


@pytest.mark.parametrize(
    ("path", "windows", "expected"),
    [
        ("caps/a.json", False, "caps/a.json"),
        ("caps\\a b.json", True, "caps/a%20b.json"),
        ("caps\\a b.json", False, "caps%5Ca%20b.json"),  # (a backslash is part of a POSIX name)
        ("out dir/a,b:c#1.json", False, "out%20dir/a%2Cb%3Ac%231.json"),
        ("C:\\caps\\a.json", True, "file:///C:/caps/a.json"),
        ("C:/caps/a.json", False, "C%3A/caps/a.json"),  # (a folder named C: elsewhere)
        ("caps/\udcff.json", False, "caps/%FF.json"),
        ("caps/\ud800.json", False, "caps/%ED%A0%80.json"),
        ("./caps/./x/../a.json", False, "caps/a.json"),
        ("/abs/caps/a b.json", False, "file:///abs/caps/a%20b.json"),
        ("\\\\server\\share\\a.json", True, "file://server/share/a.json"),
        ("C:\\caps\\..\\a.json", True, "file:///C:/a.json"),
    ],
)
def test_sarif_uri(path: str, windows: bool, expected: str) -> None:
    assert uri(path, windows=windows) == expected


# --- the JSON documents: orjson's writing, the standard library's bytes -------------------------

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True),
    st.text(),
    st.text(
        alphabet=st.characters(codec="utf-8") | st.sampled_from(["\x7f", "\u2028", "\ud800", "\U0001f600"])
    ),
)
JSON_DATA = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        | st.dictionaries(st.integers(0, 9), inner, max_size=2)
    ),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(JSON_DATA)
def test_json_documents_are_the_standard_librarys_bytes(data: Any) -> None:
    """Whatever the data (floats, huge integers, lone surrogates and keys that are not strings go to
    the standard library; the rest is written by orjson), the bytes are ``json.dumps``'s."""
    assert json_document(data) == json.dumps(data, indent=2, ensure_ascii=True) + "\n"


def test_json_documents_with_a_cycle_or_a_shared_part_are_the_standard_librarys_too() -> None:
    shared = {"a": "x"}
    assert json_document([shared, shared]) == json.dumps([shared, shared], indent=2, ensure_ascii=True) + "\n"
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference"):
        json_document(cycle)
