"""`jobschema changes`: each change kind found and classified on schema pairs (one folder per case
under tests/examples/changes/), the Run:ai version history judged for readers, witnesses proven
against both sides, capture impact, --fail-on, baselines and every report format."""

from __future__ import annotations

import itertools
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from jobschema.changes import RULES, compare, compare_sides, sides_of
from jobschema.changes.witness import WITNESSED, Maker
from jobschema.schemas.versions import known
from jobschema.validate.payloads import validate_payloads
from tests.support import REPO, SCHEMAS, compare_golden, load_json

CASES = sorted(path for path in (REPO / "tests/examples/changes").iterdir() if path.is_dir())
CAPTURES = REPO / "tests/fixtures/changes/captures"
GOLDEN = REPO / "tests/golden/changes"
EXAMPLES_CHANGES = REPO / "tests/examples/changes"
WORKLOAD = "runai-distributed-workload"


@pytest.fixture(scope="module")
def history() -> list:
    return compare("runai@2.18", "runai@2.24")


# --------------------------------------------------------------------------- one case per change kind


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_schema_pair_case(case: Path) -> None:
    """Every change the pair holds is found with its class, rule and path, and nothing else; every
    breaking and strict change has a witness, proven (or not) as the case says."""
    expected = load_json(case / "expect.json")["changes"]
    pairs = sides_of(str(case / "old.schema.json"), str(case / "new.schema.json"))
    maker = Maker(*pairs[0])
    found = []
    for change in compare_sides(pairs):
        entry = {"class": change.kind, "rule": change.rule, "path": change.path}
        if change.rule in WITNESSED:
            witness = maker.witness(change)
            assert witness is not None, change
            entry["proven"] = witness.proven
        found.append(entry)
    assert found == expected


def test_every_rule_has_a_case() -> None:
    covered = {change["rule"] for case in CASES for change in load_json(case / "expect.json")["changes"]}
    assert covered == set(RULES)


def test_cases_that_accept_the_same_values_report_nothing() -> None:
    same = [case for case in CASES if case.name.startswith("same-")]
    assert len(same) >= 4
    for case in same:
        assert compare(str(case / "old.schema.json"), str(case / "new.schema.json")) == []


def test_documents_compare_as_sides() -> None:
    old = {"type": "object", "properties": {"phase": {"enum": ["A", "B"]}}}
    new = {"type": "object", "properties": {"phase": {"enum": ["A"]}}}
    [change] = compare(old, new)
    assert (change.kind, change.rule, change.path, change.old) == (
        "safe",
        "enum-value-removed",
        "/phase",
        "B",
    )


# --------------------------------------------------------------------------- the Run:ai history


def _keyed(changes: list) -> dict:
    return {(c.rule, c.path, c.old, c.new): c for c in changes}


def test_runai_2_18_to_2_24_names_what_breaks_readers(history: list) -> None:
    keyed = _keyed(history)
    removed = keyed[("property-removed", "/spec/compute/migProfile", None, None)]
    value = keyed[("enum-value-removed", "/spec/compute/gpuRequestType", "migProfile", None)]
    jax = keyed[("enum-value-added", "/spec/distributedFramework", None, "JAX")]
    anything = keyed[("enum-value-added", "/spec/tolerations/*/effect", None, "Any")]
    assert [(c.kind, c.since) for c in (removed, value, jax, anything)] == [
        ("breaking", "2.24"),
        ("safe", "2.24"),
        ("breaking", "2.21"),
        ("breaking", "2.19"),
    ]
    assert all(c.schema == WORKLOAD for c in (removed, value, jax, anything))


def test_runai_added_optional_properties_are_safe(history: list) -> None:
    added = [c for c in history if c.rule in ("property-added", "property-added-closed", "required-added")]
    assert len(added) > 60
    assert {(c.rule, c.kind) for c in added} == {("property-added", "safe")}
    assert "/deletedAt" in {c.path for c in added}


def test_official_match_all_patterns_are_no_change() -> None:
    """Run:ai 2.23 added `pattern: ".*"` to strings across the spec: compared on the values each
    pattern accepts, none of them is a change (the other 2.23 pattern changes are)."""
    official = REPO / "schemas/official/runai"
    pointer = "#/components/schemas/DistributedWorkload"
    before = json.dumps(load_json(official / "2.22.json")).count('"pattern": ".*"')
    after = json.dumps(load_json(official / "2.23.json")).count('"pattern": ".*"')
    assert after > before
    found = compare(f"{official / '2.22.json'}{pointer}", f"{official / '2.23.json'}{pointer}")
    patterns = [c for c in found if c.rule.startswith("pattern-")]
    assert patterns
    assert all(c.new not in (".*", None) for c in patterns)
    assert all(c.kind == "safe" for c in patterns)


def test_fingerprints_are_stable(history: list) -> None:
    """The same change has the same id on every run and machine: a baseline written once holds."""
    keyed = _keyed(history)
    assert (
        keyed[("property-removed", "/spec/compute/migProfile", None, None)].fingerprint == "7f5818eec17013ad"
    )
    assert [c.fingerprint for c in compare("runai@2.18", "runai@2.24")] == [c.fingerprint for c in history]
    assert len({c.fingerprint for c in history}) == len(history)


ADJACENT = [
    *itertools.pairwise(known("runai")),
    *itertools.pairwise(known("runai")[::-1]),
]


@pytest.mark.parametrize(("old", "new"), ADJACENT, ids=[f"{a}-{b}" for a, b in ADJACENT])
def test_adjacent_versions_witnesses_are_accepted_by_exactly_one_side(old: str, new: str) -> None:
    """Over every pair of adjacent versions, both ways: each breaking and strict change's witness is
    accepted (validate --api-version: no error) by NEW for an addition, by OLD for a removal, and
    rejected by the other."""
    pairs = sides_of(f"runai@{old}", f"runai@{new}")
    makers = {o.schema: Maker(o, n) for o, n in pairs}
    for change in compare_sides(pairs):
        if change.kind not in ("breaking", "strict"):
            continue
        assert change.since == new
        witness = makers[change.schema].witness(change)
        assert witness is not None, change
        verdicts = {}
        for side, version in (("old", old), ("new", new)):
            report = validate_payloads(
                [witness.payload], schema=change.schema, api_versions={"runai": version}
            )
            verdicts[side] = report.results[0].errors == 0
        removal = change.rule in ("property-removed", "enum-value-removed")
        assert verdicts == ({"old": True, "new": False} if removal else {"old": False, "new": True}), change
        assert witness.proven


# --------------------------------------------------------------------------- the command


def _changes(run_cli, args: list[str], code: int):
    return run_cli(["changes", *args], code)


def test_capture_impact_counts(run_cli) -> None:
    result = _changes(run_cli, ["runai@2.18", "runai@2.24", str(CAPTURES), "-f", "json"], 2)
    report = json.loads(result.stdout)
    assert report["captures"] == {"payloads": 5, "unread": [str(CAPTURES / "truncated.json")]}
    impact = {(c["rule"], c["path"]): c.get("impact") for c in report["changes"]}
    assert impact[("property-removed", "/spec/compute/migProfile")] == {
        "payloads": 4,
        "carrying": 1,
        "with_value": None,
    }
    assert impact[("enum-value-removed", "/spec/compute/gpuRequestType")] == {
        "payloads": 4,
        "carrying": 4,
        "with_value": 1,
    }
    assert impact[("enum-value-added", "/spec/distributedFramework")]["with_value"] == 1
    assert impact[("enum-value-added", "/spec/tolerations/*/effect")] == {
        "payloads": 4,
        "carrying": 1,
        "with_value": 1,
    }
    assert impact[("property-removed", "/masterSpec/compute/migProfile")]["carrying"] == 0
    truncated = CAPTURES / "truncated.json"
    assert (
        f"Error: {truncated}:1:34: invalid JSON: Expecting property name enclosed in double quotes; "
        "not counted\n"
    ) in result.stderr


def test_added_property_counts_the_object_holding_it(run_cli) -> None:
    result = _changes(run_cli, ["runai@2.18", "runai@2.24", str(CAPTURES), "-f", "json"], 2)
    changes = {(c["rule"], c["path"]): c for c in json.loads(result.stdout)["changes"]}
    assert changes[("property-added", "/deletedAt")]["impact"]["carrying"] == 4  # the whole payload
    assert changes[("property-added", "/spec/category")]["impact"]["carrying"] == 4  # spec


def test_only_used_hides_places_no_capture_carries(run_cli) -> None:
    everything = json.loads(
        _changes(run_cli, ["runai@2.18", "runai@2.24", str(CAPTURES), "-f", "json"], 2).stdout
    )
    used = json.loads(
        _changes(run_cli, ["runai@2.18", "runai@2.24", str(CAPTURES), "--only-used", "-f", "json"], 2).stdout
    )
    paths = {c["path"] for c in used["changes"]}
    assert "/spec/compute/migProfile" in paths
    assert "/masterSpec/compute/migProfile" not in paths
    assert all(c["impact"]["carrying"] > 0 for c in used["changes"])
    assert used["summary"]["hidden"] == len(everything["changes"]) - len(used["changes"]) > 0


def test_only_used_needs_captures(run_cli) -> None:
    result = _changes(run_cli, ["runai@2.18", "runai@2.24", "--only-used"], 2)
    assert "--only-used needs CAPTURES" in result.stderr


@pytest.mark.parametrize(
    ("fail_on", "code"), [("breaking", 0), ("strict", 1), ("never", 0)], ids=["breaking", "strict", "never"]
)
def test_fail_on_strict_only_history(run_cli, fail_on: str, code: int) -> None:
    """A pattern loosened (strict) breaks nothing (an enum value added, as 2.19's toleration effect
    Any, breaks a reader's switch: breaking, round 8)."""
    case = EXAMPLES_CHANGES / "pattern-loosened"
    args = [str(case / "old.schema.json"), str(case / "new.schema.json"), "--fail-on", fail_on]
    _changes(run_cli, [*args, "--no-witnesses"], code)


def test_fail_on_breaking_by_default(run_cli) -> None:
    result = _changes(run_cli, ["runai@2.23", "runai@2.24", "--no-witnesses"], 1)
    assert result.stdout.splitlines()[-1] == "FAILED: 2 changes at or above --fail-on breaking"


def test_baseline_accepts_changes_once(run_cli, tmp_path: Path) -> None:
    baseline = tmp_path / "accepted.txt"
    first = _changes(
        run_cli, ["runai@2.18", "runai@2.24", "--write-baseline", str(baseline), "--no-witnesses"], 1
    )
    lines = baseline.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ")
    assert (
        "7f5818eec17013ad  # breaking property-removed runai-distributed-workload /spec/compute/migProfile"
        in lines
    )
    assert len([line for line in lines if not line.startswith("#")]) == 5
    assert first.stdout.splitlines()[-1] == "FAILED: 5 changes at or above --fail-on breaking"
    second = _changes(
        run_cli,
        ["runai@2.18", "runai@2.24", "--baseline", str(baseline), "--fail-on", "strict", "--no-witnesses"],
        0,
    )
    assert (
        second.stdout.splitlines()[-1]
        == "passed: no change at or above --fail-on strict; 5 accepted in the baseline"
    )
    assert "(accepted in baseline)" in second.stdout


def test_baseline_accepts_only_what_it_lists(run_cli, tmp_path: Path) -> None:
    baseline = tmp_path / "accepted.txt"
    baseline.write_text("7f5818eec17013ad  # spec migProfile only\n\n", encoding="utf-8")
    result = _changes(run_cli, ["runai@2.18", "runai@2.24", "--baseline", str(baseline), "--no-witnesses"], 1)
    assert (
        result.stdout.splitlines()[-1]
        == "FAILED: 4 changes at or above --fail-on breaking; 1 accepted in the baseline"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [("not-a-fingerprint\n", "2:"), ("7f5818eec17013ad\n\nNOPE\n", "4:")],
    ids=["word", "later-line"],
)
def test_bad_baseline_is_one_line_exit_2(run_cli, tmp_path: Path, text: str, problem: str) -> None:
    baseline = tmp_path / "accepted.txt"
    baseline.write_text("# header\n" + text, encoding="utf-8")
    result = _changes(run_cli, ["runai@2.18", "runai@2.19", "--baseline", str(baseline)], 2)
    assert result.stderr.count("\n") == 1
    assert f"{baseline}:{problem} not a change fingerprint" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["runai@2.17", "runai@2.24"], "runai@2.17: no such Run:ai version (known: 2.18, 2.19"),
        (["nosuch@2.19", "runai@2.24"], "nosuch@2.19: nosuch is no API"),
        (["missing.json", "runai@2.24"], "missing.json: no such file, API or bundled schema"),
        (["runai@2.19", "aihc@v1"], "cannot pair their schemas"),
        (["schemas/official/runai/2.22.json", "runai@2.24"], "an OpenAPI document, not a schema"),
        (["schemas/official/runai/2.22.json#/nowhere", "runai@2.24"], "#/nowhere names no schema object"),
    ],
    ids=[
        "unknown-version",
        "unknown-api",
        "missing-file",
        "two-apis",
        "openapi-without-pointer",
        "bad-pointer",
    ],
)
def test_bad_sides_are_one_line_exit_2(
    run_cli, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(REPO)
    result = _changes(run_cli, args, 2)
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("Error: ")
    assert message in result.stderr


def test_invalid_schema_file_is_exit_2(run_cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.schema.json"
    bad.write_text('{"type": 12}', encoding="utf-8")
    result = _changes(run_cli, [str(bad), "runai-distributed-workload"], 2)
    assert "not a valid JSON Schema" in result.stderr


def test_witness_folder_holds_one_proven_payload_per_change(run_cli, tmp_path: Path) -> None:
    folder = tmp_path / "witnesses"
    result = _changes(run_cli, ["runai@2.23", "runai@2.24", "--witness", str(folder), "-f", "json"], 1)
    report = json.loads(result.stdout)
    files = sorted(folder.iterdir())
    witnessed = [c for c in report["changes"] if "witness" in c]
    assert len(files) == len(witnessed) == 2
    assert "note: 2 witness file(s) written to" in result.stderr
    by_id = {c["id"][:8]: c for c in witnessed}
    for path in files:
        change = by_id[path.name.rsplit(".", 2)[-2]]
        payload = json.loads(path.read_text(encoding="utf-8"))
        assert payload == change["witness"]["payload"]
        accepted = validate_payloads([payload], schema=WORKLOAD, api_versions={"runai": "2.23"}).ok
        rejected = not validate_payloads([payload], schema=WORKLOAD, api_versions={"runai": "2.24"}).ok
        assert accepted and rejected, path.name


def test_rules_lists_every_rule(run_cli) -> None:
    result = run_cli(["changes", "--rules"], 0)
    assert len(result.stdout.splitlines()) == len(RULES)
    assert "breaking  property-removed" in result.stdout


def test_changes_does_not_write_into_the_working_directory(
    run_cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    case = REPO / "tests/examples/changes/pattern-loosened"
    run_cli(["changes", str(case / "old.schema.json"), str(case / "new.schema.json")], 0)
    assert list(work.iterdir()) == []


# --------------------------------------------------------------------------- formats


FORMATS = {
    "text": "txt",
    "json": "json",
    "markdown": "md",
    "github": "github.txt",
    "sarif": "sarif",
    "junit": "xml",
}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_report_format_golden(
    run_cli, monkeypatch: pytest.MonkeyPatch, update_golden: bool, fmt: str
) -> None:
    monkeypatch.chdir(REPO)
    args = ["runai@2.18", "runai@2.24", "tests/fixtures/changes/captures", "-f", fmt]
    result = _changes(run_cli, args, 2)  # (the folder holds a truncated capture: named, exit 2)
    compare_golden(GOLDEN / f"runai-2.18-2.24.{FORMATS[fmt]}", result.stdout, update_golden)


def test_json_report_validates_against_its_schema(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    schema = load_json(SCHEMAS / "changes-report.schema.json")
    jsonschema.Draft202012Validator.check_schema(schema)
    for args in (
        ["runai@2.18", "runai@2.24", "tests/fixtures/changes/captures"],
        [
            "tests/examples/changes/property-removed-open-object/old.schema.json",
            "tests/examples/changes/property-removed-open-object/new.schema.json",
        ],
    ):
        result = run_cli(["changes", *args, "-f", "json"])
        jsonschema.validate(json.loads(result.stdout), schema)


def test_junit_and_sarif_count_the_failing_changes(run_cli) -> None:
    junit = ET.fromstring(
        _changes(run_cli, ["runai@2.18", "runai@2.24", "-f", "junit", "--no-witnesses"], 1).stdout
    )
    assert junit.attrib["failures"] == "5"
    assert junit.attrib["tests"] == "113"
    sarif = json.loads(
        _changes(run_cli, ["runai@2.18", "runai@2.24", "-f", "sarif", "--no-witnesses"], 1).stdout
    )
    levels = [result["level"] for result in sarif["runs"][0]["results"]]
    assert levels.count("error") == 5  # (2 properties removed, 3 enum values added)
    assert levels.count("warning") == 0


def test_github_annotations_mark_failing_changes_as_errors(run_cli) -> None:
    lines = _changes(
        run_cli, ["runai@2.18", "runai@2.24", "-f", "github", "--no-witnesses"], 1
    ).stdout.splitlines()
    assert sum(line.startswith("::error title=breaking%3A ") for line in lines) == 5
    assert sum(line.startswith("::warning title=strict%3A ") for line in lines) == 0
