"""Run:ai API versions: the annotations agree with the vendored official specs, each version's schema
is derived from them, and validate, versions and the strategies use it.

The vendored specs are also an oracle of their own (:mod:`tests.official_support`): payloads drawn
from a version's official spec must pass ``validate --api-version`` of that version, and the versions
``jobschema versions`` lists for a payload must be exactly those whose spec accepts it.
"""

from __future__ import annotations

import collections
import copy
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.inputs.payload import Payload
from jobschema.schemas import annotate, history, official, registry, versions
from jobschema.schemas.jsontext import set_members
from jobschema.testing import _embedded, payloads
from jobschema.testing.generate import DENSE, SPARSE, Compiler
from jobschema.validate import rules, validate_payload
from jobschema.validate.accepted import judge, judge_paths
from tests.official_support import official_errors, official_schema, truly_accepting
from tests.support import EXAMPLES, REPO, SCHEMAS, load_json

RUNAI = ("runai-distributed-workload", "runai-error")
WORKLOAD = "runai-distributed-workload"
KNOWN = ("2.18", "2.19", "2.20", "2.21", "2.22", "2.23", "2.24")
CASES = sorted(p for p in (EXAMPLES / "versions").glob("*.json") if not p.name.endswith(".expect.json"))
HAR = REPO / "tests" / "fixtures" / "versions" / "two-clusters.har"
SEMANTIC = frozenset(rule.id for rule in rules.all_rules())
DRAWS = settings(max_examples=40, derandomize=True, database=None)


# ------------------------------------------------------------------ the annotations and the specs


def test_every_known_version_has_a_vendored_spec() -> None:
    assert versions.known("runai") == KNOWN == official.vendored("runai")
    assert versions.known("aihc") == ("v1", "v2")  # (round 8: v2's DescribeJob answer)
    for name in RUNAI:
        assert registry.load(name).document[versions.API_VERSIONS] == list(KNOWN)


@pytest.mark.parametrize("name", RUNAI)
def test_annotations_are_what_the_vendored_specs_give(name: str) -> None:
    """Annotating anew changes no byte: the next version is one command plus a review of its diff."""
    text = registry.bundled_path(name).read_text(encoding="utf-8")
    assert annotate.annotated_text("runai", name, text, KNOWN) == text


@pytest.mark.parametrize("name", RUNAI)
def test_each_version_derived_from_the_annotations_is_its_spec(name: str) -> None:
    """Places, enum values, patterns and bounds of every version, compared with that version's spec
    (read with the walker, not with the annotations)."""
    specs = {version: official.facts("runai", version, name) for version in KNOWN}
    assert annotate.differences(registry.load(name).document, specs) == []


def test_vendored_excerpts_name_their_source_and_carry_no_prose() -> None:
    commits = {}
    for version in KNOWN:
        excerpt = official.load("runai", version)
        source = excerpt[official.SOURCE]
        assert source["control_plane"] == version
        assert source["license"] == "Apache-2.0"
        assert source["repository"] == "https://github.com/runai-professional-services/runapy"
        commits[version] = source["commit"][:7]
        text = json.dumps(excerpt)
        assert '"example"' not in text and '"summary"' not in text
    assert commits == {
        "2.18": "74c51bb",
        "2.19": "b7d5b60",
        "2.20": "ed8bbb7",
        "2.21": "b257eb8",
        "2.22": "8fa53a2",
        "2.23": "58f5da9",
        "2.24": "06000dd",
    }
    assert "Apache License" in (SCHEMAS / "official" / "LICENSE").read_text(encoding="utf-8")


def test_history_is_what_the_specs_changed() -> None:
    """2.18 -> 2.24: 126 places added (114 properties, 12 arrays' items), compute.migProfile removed
    in both places, Any and JAX added, migProfile removed from gpuRequestType, 26 patterns in 2.23."""
    changes = history.history(WORKLOAD)
    count = collections.Counter((c.what, c.kind) for c in changes)
    assert count[("property", "added")] + count[("items", "added")] == 126
    assert count[("items", "added")] == 12
    removed = sorted(c.place for c in changes if c.kind == "removed" and c.what == "property")
    assert removed == ["/masterSpec/compute/migProfile", "/spec/compute/migProfile"]
    values = sorted((c.version, c.value, c.kind, c.place) for c in changes if c.what == "value")
    assert values == [
        ("2.19", "Any", "added", "/masterSpec/tolerations/*/effect"),
        ("2.19", "Any", "added", "/spec/tolerations/*/effect"),
        ("2.21", "JAX", "added", "/spec/distributedFramework"),
        ("2.24", "migProfile", "removed", "/masterSpec/compute/gpuRequestType"),
        ("2.24", "migProfile", "removed", "/spec/compute/gpuRequestType"),
    ]
    patterns = collections.Counter(c.version for c in changes if c.what == "pattern")
    assert patterns == {"2.19": 2, "2.23": 26}
    assert collections.Counter(c.version for c in changes if c.what == "maxLength") == {"2.19": 6}
    deprecated = sorted((c.version, c.place) for c in changes if c.what == "deprecated")
    assert deprecated[:2] == [
        ("2.19", "/masterSpec/compute/migProfile"),
        ("2.19", "/spec/compute/migProfile"),
    ]
    assert [v for v, _ in deprecated[2:]] == ["2.24"] * 4
    assert history.history("runai-error") == []
    assert history.describe(changes[0]) == "/masterSpec/annotations/*/name: maxLength null -> 63"


def test_versions_of_places_and_values() -> None:
    assert history.versions_of(WORKLOAD, "/spec/preemptibility") == ("2.24",)
    assert history.versions_of(WORKLOAD, "/deletedAt") == KNOWN[3:]
    assert history.versions_of(WORKLOAD, "/masterSpec/compute/migProfile") == KNOWN[:6]
    assert history.versions_of(WORKLOAD, "/spec/tolerations/3/effect", "Any") == KNOWN[1:]
    assert history.versions_of(WORKLOAD, "/spec/tolerations/*/effect", "NoSchedule") == KNOWN
    assert history.versions_of(WORKLOAD, "/spec/segmentSize") == ()
    with pytest.raises(KeyError):
        history.versions_of(WORKLOAD, "/spec/nothing")


# -------------------------------------------------------------------------- a version's schema


@pytest.mark.parametrize("version", KNOWN)
@pytest.mark.parametrize("name", RUNAI)
def test_each_version_has_a_valid_schema_without_annotations(name: str, version: str) -> None:
    document = versions.schema_for(name, version)
    jsonschema.Draft202012Validator.check_schema(document)
    assert document["$id"] == f"urn:jobschema:schema:{name}@{version}"
    assert document["title"].endswith(f"(Run:ai {version})")
    assert document[versions.VERSION] == version
    text = json.dumps(document)
    assert not any(f'"{key}"' in text for key in (*versions.ANNOTATIONS, versions.API_VERSIONS))


def test_a_version_leaves_out_what_it_does_not_have_and_says_why() -> None:
    old = versions.schema_for(WORKLOAD, "2.19")
    container = old["$defs"]["ContainerSpec"]
    assert "preemptibility" not in container["properties"]
    assert container[versions.NOT_IN]["preemptibility"] == "added in 2.24"
    assert "JAX" not in old["$defs"]["WorkerSpec"]["properties"]["distributedFramework"]["enum"]
    new = versions.schema_for(WORKLOAD, "2.24")
    compute = new["$defs"]["Compute"]
    assert compute[versions.NOT_IN] == {"migProfile": "removed in 2.24"}
    assert compute["properties"]["gpuRequestType"][versions.VALUES_NOT_IN] == {
        "migProfile": "removed in 2.24"
    }
    assert (
        compute["properties"]["cpuMemoryRequest"]["pattern"] == "^([+]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
    )
    assert (
        "minimum"
        not in versions.schema_for(WORKLOAD, "2.20")["$defs"]["Compute"]["properties"]["cpuCoreLimit"]
    )
    secret = versions.schema_for(WORKLOAD, "2.23")["$defs"]["SecretKeyRef"]["properties"]["name"]
    assert secret["pattern"] == "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$" and "x-jobschema-pattern" not in secret
    assert versions.schema_for(WORKLOAD, "2.19") == old  # a copy each time, the same content
    old["title"] = "changed"
    assert versions.schema_for(WORKLOAD, "2.19")["title"] != "changed"


def test_unknown_apis_and_versions_are_named() -> None:
    with pytest.raises(versions.UnknownVersion, match=r"not a known version \(2.18, 2.19"):
        versions.parse_pin("runai=2.30")
    with pytest.raises(versions.UnknownVersion, match="one of aihc, runai"):
        versions.parse_pin("slurm=1")
    with pytest.raises(versions.UnknownVersion, match="API=VERSION"):
        versions.parse_pin("runai")
    with pytest.raises(versions.UnknownVersion, match="one version per API"):
        versions.parse_pins(["runai=2.19", "runai=2.20"])
    with pytest.raises(versions.UnknownVersion, match=r"has no version 2\.30"):
        versions.schema_for(WORKLOAD, "2.30")
    assert versions.parse_pins(["runai=2.19.3", "aihc=v1", "runai=2.19"]) == (
        ("aihc", "v1"),
        ("runai", "2.19"),
    )
    assert versions.as_pins({"runai": "v2.24.0"}) == (("runai", "2.24"),)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2.19.3", "2.19"),
        ("v2.24.0", "2.24"),
        ("2.21", "2.21"),
        ("2.26.1", None),
        ("banana", None),
        ("", None),
    ],
)
def test_a_cluster_version_names_a_known_version(text: str, expected: str | None) -> None:
    assert versions.resolve("runai", text) == expected


# ------------------------------------------------------------------- example files per version


def _expect(path: Path) -> dict[str, Any]:
    return load_json(path.with_name(path.stem + ".expect.json"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_version_case_through_the_library(path: Path) -> None:
    expected = _expect(path)
    api, version = versions.parse_pin(expected["api_version"])
    result = validate_payload(load_json(path), api_versions={api: version})
    assert result.version == version
    errors = [
        {"pointer": f.pointer, "rule": f.rule, "message": f.message}
        for f in result.findings
        if f.severity == "error"
    ]
    assert errors == expected["errors"]
    assert judge_paths([str(path)]).verdicts[0].accepted == tuple(expected["accepted"])
    plain = validate_payload(load_json(path))
    assert plain.version == "" and not any(f.rule == versions.RULE for f in plain.findings)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_version_case_through_the_command_line(path: Path, run_cli) -> None:
    expected = _expect(path)
    code = 1 if expected["errors"] else 0
    out = run_cli(["validate", "--api-version", expected["api_version"], "-f", "json", str(path)], code=code)
    (result,) = json.loads(out.stdout)["results"]
    assert result["api_version"] == expected["api_version"].partition("=")[2]
    shown = [
        {"pointer": f["pointer"], "rule": f["rule"], "message": f["message"]} for f in result["findings"]
    ]
    assert [f for f in shown if f in expected["errors"]] == expected["errors"]
    judged = json.loads(
        run_cli(["versions", "-f", "json", str(path)], code=0 if expected["accepted"] else 1).stdout
    )
    assert judged["results"][0]["accepted"] == expected["accepted"]
    assert sorted(judged["results"][0]["rejected"]) == [v for v in KNOWN if v not in expected["accepted"]]


def test_every_version_case_has_an_expectation() -> None:
    assert CASES and all(path.with_name(path.stem + ".expect.json").is_file() for path in CASES)
    sidecars = {p.name.removesuffix(".expect.json") for p in (EXAMPLES / "versions").glob("*.expect.json")}
    assert sidecars == {p.stem for p in CASES}


def test_strict_names_a_property_of_another_version_once(run_cli) -> None:
    """The version's not-in-version error stands for --strict's unknown-property at its place."""
    path = EXAMPLES / "versions" / "preemptibility-in-2.19.json"
    out = run_cli(["validate", "--strict", "--api-version", "runai=2.19", str(path)], code=1)
    assert out.stdout.count("/spec/preemptibility") == 1
    assert "[not-in-version]" in out.stdout and "unknown-property" not in out.stdout


def test_report_with_a_version_matches_its_schema(run_cli) -> None:
    schema = load_json(SCHEMAS / "validate-report.schema.json")
    args = ["validate", "--api-version", "runai=2.19", "-f", "json", *map(str, CASES), str(HAR)]
    report = json.loads(run_cli(args, code=1).stdout)
    jsonschema.validate(report, schema)
    assert {result["api_version"] for result in report["results"]} == {"2.19"}


def test_the_option_is_usage_checked(run_cli) -> None:
    out = run_cli(["validate", "--api-version", "runai=3.0", str(CASES[0])], code=2)
    assert "runai=3.0" in out.stderr and "2.18, 2.19, 2.20, 2.21, 2.22, 2.23, 2.24" in out.stderr
    assert "not-in-version" in run_cli(["rules"], code=0).stdout


# ---------------------------------------------------------------------- a HAR names the version


def test_a_har_cluster_answer_gives_its_workloads_their_version(run_cli) -> None:
    report = json.loads(run_cli(["validate", "-f", "json", str(HAR)], code=1).stdout)
    first, second = report["results"]
    assert first["api_version"] == "2.19"  # the cluster answer recorded after the workload's
    assert [f["rule"] for f in first["findings"]] == ["not-in-version"]
    assert "api_version" not in second and second["valid"]  # its cluster answered 403
    assert report["summary"]["skipped"] == 2
    pinned = json.loads(
        run_cli(["validate", "--api-version", "runai=2.24", "-f", "json", str(HAR)], code=0).stdout
    )
    assert [result["api_version"] for result in pinned["results"]] == ["2.24", "2.24"]


def test_a_har_cluster_answer_before_and_after(tmp_path: Path) -> None:
    """Each workload takes the last answer of its cluster before it, else the first after it."""
    har = load_json(HAR)
    entries = har["log"]["entries"]
    upgraded = copy.deepcopy(entries[1])
    upgraded["response"]["content"]["text"] = json.dumps({"uuid": "x", "version": "2.24.1"})
    again = copy.deepcopy(entries[0])
    har["log"]["entries"] = [*entries[:3], upgraded, again]
    path = tmp_path / "upgrade.har"
    path.write_text(json.dumps(har), encoding="utf-8")
    judged = judge_paths([str(path)])
    assert [v.declared for v in judged.verdicts] == ["2.19.3", None, "2.24.1"]


# ------------------------------------------------------------------------------- jobschema versions


def test_versions_json_matches_its_schema(run_cli, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"workloadId": ', encoding="utf-8")
    inputs = [str(CASES[0]), str(HAR), str(SCHEMAS / "examples" / "aihc-error"), str(broken)]
    report = json.loads(run_cli(["versions", "-f", "json", *inputs], code=1).stdout)
    jsonschema.validate(report, load_json(SCHEMAS / "versions-report.schema.json"))
    assert report["versions"] == list(KNOWN) and report["accepted_by_all"] == []
    assert report["summary"] == {"payloads": 4, "skipped": 4, "conflict": []}  # (a parse error: no conflict)
    assert report["results"][1]["cluster_version"] == "2.19.3"
    last = report["results"][-1]
    assert last["accepted"] == [] and last["schema"] == "" and "parse-error" in last["rejected"]["2.18"]


def test_versions_text(run_cli) -> None:
    out = run_cli(["versions", str(EXAMPLES / "versions" / "jax-in-2.20.json"), str(HAR)], code=0).stdout
    lines = out.splitlines()
    assert lines[0] == f"{EXAMPLES / 'versions' / 'jax-in-2.20.json'}: Run:ai 2.21-2.24"
    assert lines[1] == (
        "  not 2.18: /spec/distributedFramework: "
        '"JAX" is not a value of Run:ai 2.18 (added in 2.21) [not-in-version]'
    )
    assert lines[4].endswith("Run:ai 2.24 (cluster 2.19.3, which 2.19 does not accept)")
    assert lines[-1] == "3 payloads, 2 skipped; every payload is accepted by Run:ai 2.24"


def test_versions_exit_codes(run_cli, tmp_path: Path) -> None:
    run_cli(["versions", str(SCHEMAS / "examples" / "runai-error")], code=0)
    run_cli(["versions", *map(str, CASES)], code=1)
    out = run_cli(["versions", str(SCHEMAS / "examples" / "aihc-error")], code=0)
    # (no payload to judge is said so, not that every payload is accepted: the summary claims nothing)
    assert out.stderr == "note: no Run:ai payload in the inputs (--api aihc judges AIHC's)\n"
    assert out.stdout == "0 payloads, 2 skipped; no Run:ai payload to judge\n"
    run_cli(["versions", str(tmp_path / "missing.json")], code=2)
    run_cli(["versions", "-f", "xml", str(CASES[0])], code=2)


def test_versions_reads_stdin(run_cli) -> None:
    text = (EXAMPLES / "versions" / "preemptibility-in-2.19.json").read_text(encoding="utf-8")
    out = run_cli(["versions", "-"], code=0, input=text)
    assert out.stdout.splitlines()[0] == "<stdin>: Run:ai 2.24"


# ----------------------------------------------------------------------- the specs as an oracle


def _official_payloads(version: str, name: str = WORKLOAD) -> Any:
    document = official_schema(version, name)
    return st.one_of(
        Compiler(document, _embedded, density=SPARSE).root(),
        Compiler(document, _embedded, density=DENSE).root(),
    )


@pytest.mark.parametrize("name", RUNAI)
@pytest.mark.parametrize("version", KNOWN)
def test_payloads_of_a_versions_official_spec_pass_that_version(version: str, name: str) -> None:
    """0 rejections by schema keywords (cross-field rules as without a version)."""

    @DRAWS
    @given(_official_payloads(version, name))
    def check(payload: Any) -> None:
        result = validate_payload(payload, name, api_versions={"runai": version})
        assert [
            f"{f.pointer}: {f.message} [{f.rule}]"
            for f in result.findings
            if f.severity == "error" and f.rule not in SEMANTIC
        ] == []

    check()


def _spec(payload: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(payload.get("spec"), dict):
        payload["spec"] = {}
    return payload["spec"]


def _compute(payload: dict[str, Any]) -> dict[str, Any]:
    spec = _spec(payload)
    if not isinstance(spec.get("compute"), dict):
        spec["compute"] = {}
    return spec["compute"]


def _storage(payload: dict[str, Any]) -> dict[str, Any]:
    spec = _spec(payload)
    if not isinstance(spec.get("storage"), dict):
        spec["storage"] = {}
    return spec["storage"]


#: Fields and values that only some versions have (or refuse), put into a payload.
MARKERS = {
    "preemptibility (2.24)": lambda p: _spec(p).update(preemptibility="preemptible"),
    "deletedAt (2.21-)": lambda p: p.update(deletedAt=None),
    "migProfile (-2.23)": lambda p: _compute(p).update(migProfile="1g.5gb"),
    "gpuRequestType migProfile (-2.23)": lambda p: _compute(p).update(gpuRequestType="migProfile"),
    "JAX (2.21-)": lambda p: _spec(p).update(distributedFramework="JAX"),
    "effect Any (2.19-)": lambda p: _spec(p).update(tolerations=[{"key": "gpu", "effect": "Any"}]),
    "cleanPodPolicy (2.20-)": lambda p: _spec(p).update(cleanPodPolicy="All"),
    "emptyDirVolume (2.22-)": lambda p: _storage(p).update(emptyDirVolume=[{"path": "/cache"}]),
    "git secretRef (2.23-)": lambda p: _storage(p).update(
        git=[{"path": "/src", "secretRef": {"name": "creds", "authenticationMethod": "ssh-key"}}]
    ),
    "label of 64 (2.18)": lambda p: _spec(p).update(labels=[{"name": "l" * 64}]),
    "negative memory (-2.22)": lambda p: _compute(p).update(cpuMemoryRequest="-1"),
    "secret name with _ (-2.22)": lambda p: _spec(p).update(
        environmentVariables=[{"name": "DB", "secret": {"name": "db_creds", "key": "password"}}]
    ),
}


@DRAWS
@given(
    st.sampled_from(KNOWN).flatmap(lambda v: st.tuples(st.just(v), payloads(WORKLOAD, version=v))),
    st.lists(st.sampled_from(sorted(MARKERS)), max_size=2, unique=True),
)
def test_versions_lists_exactly_the_versions_whose_spec_accepts(
    drawn: tuple[str, Any], marks: list[str]
) -> None:
    """A payload drawn for version V is accepted by V; with marker fields, the versions listed are
    those whose official spec accepts it (never wider, never narrower)."""
    version, payload = drawn
    payload = copy.deepcopy(payload)
    for mark in marks:
        MARKERS[mark](payload)
    (verdict,) = judge([Payload("drawn", None, value=payload)]).verdicts
    if not marks:
        assert version in verdict.accepted, verdict.rejected
    truth = truly_accepting(WORKLOAD, payload)
    assert verdict.accepted == truth, [official_errors(v, WORKLOAD, payload)[:2] for v in KNOWN]


@pytest.mark.parametrize("version", KNOWN)
def test_strategies_of_a_version_draw_only_what_it_may_send(version: str) -> None:
    @DRAWS
    @given(payloads(WORKLOAD, version=version))
    def check(payload: Any) -> None:
        result = validate_payload(payload, WORKLOAD, api_versions={"runai": version})
        assert result.errors == 0, [f"{f.pointer}: {f.message}" for f in result.findings]
        assert official_errors(version, WORKLOAD, payload) == []

    check()


def test_strategies_refuse_an_unknown_version() -> None:
    with pytest.raises(ValueError, match=r"no version 2\.30"):
        payloads(WORKLOAD, version="2.30")
    with pytest.raises(ValueError, match=r"no version 2\.19"):
        payloads("aihc-error", version="2.19")
    assert payloads("aihc-error", version="v1") is not None


# --------------------------------------------------------------------- annotating a new version


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of schemas/ (with the vendored specs) that the annotation tools write to."""
    folder = tmp_path / "schemas"
    shutil.copytree(SCHEMAS, folder)
    monkeypatch.setattr(registry, "schemas_dir", lambda: folder)
    yield folder
    monkeypatch.undo()
    for cached in (versions.apis, versions.document_of, history._spots, history._places_in):
        cached.cache_clear()


def test_adding_a_version_is_one_command(checkout: Path, run_cli, tmp_path: Path) -> None:
    """A 2.25 spec (here 2.24's without ``category``), given as YAML."""
    spec = official.load("runai", "2.24")
    _drop(spec, "category")
    source = tmp_path / "swagger.yaml"
    source.write_text(yaml.safe_dump(spec), encoding="utf-8")
    out = run_cli(
        ["schemas", "annotate-versions", "--add", "runai=2.25", "--spec", str(source), "--commit", "abc1234"],
        code=0,
    ).stdout
    assert "wrote" in out and "2.25.json" in out
    assert "runai-distributed-workload /masterSpec/category: property removed" in out
    assert "runai-distributed-workload /spec/category: property removed" in out
    written = json.loads((checkout / "official" / "runai" / "2.25.json").read_text(encoding="utf-8"))
    assert (
        written[official.SOURCE]["commit"] == "abc1234"
        and written[official.SOURCE]["control_plane"] == "2.25"
    )
    document = json.loads((checkout / f"{WORKLOAD}.schema.json").read_text(encoding="utf-8"))
    assert document[versions.API_VERSIONS][-1] == "2.25"
    assert document["$defs"]["ContainerSpec"]["properties"]["category"][versions.UNTIL] == "2.25"
    assert "up to date" in run_cli(["schemas", "annotate-versions", "--check"], code=0).stdout


def _drop(spec: dict[str, Any], name: str) -> None:
    """Remove property ``name`` from every component of ``spec``."""
    for component in spec["components"]["schemas"].values():
        for node in (component, *component.get("allOf", ())):
            if isinstance(node, dict):
                (node.get("properties") or {}).pop(name, None)


def test_stale_annotations_are_named_by_check(checkout: Path, run_cli) -> None:
    path = checkout / f"{WORKLOAD}.schema.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace('"x-jobschema-since": "2.24"', '"x-jobschema-since": "2.23"', 1), encoding="utf-8"
    )
    out = run_cli(["schemas", "annotate-versions", "--check"], code=1)
    assert "stale: " in out.stdout and "out of date" in out.stderr
    assert path.read_text(encoding="utf-8") != text  # --check wrote nothing
    run_cli(["schemas", "annotate-versions"], code=0)
    assert path.read_text(encoding="utf-8") == text


def test_a_spec_the_schema_cannot_hold_is_named_and_nothing_written(checkout: Path, run_cli) -> None:
    excerpt_path = checkout / "official" / "runai" / "2.24.json"
    excerpt = json.loads(excerpt_path.read_text(encoding="utf-8"))
    excerpt["components"]["schemas"]["PodAffinity"]["properties"]["weight"] = {"type": "integer"}
    excerpt["components"]["schemas"]["PodAffinityType"]["enum"].append("Soft")
    excerpt_path.write_text(json.dumps(excerpt), encoding="utf-8")
    before = (checkout / f"{WORKLOAD}.schema.json").read_text(encoding="utf-8")
    out = run_cli(["schemas", "annotate-versions"], code=1)
    assert "/spec/podAffinity/weight: in the official spec but not in the schema; add it" in out.stderr
    assert "/spec/podAffinity/type: 2.24 has the values ['Soft'], the schema not; add them" in out.stderr
    assert (checkout / f"{WORKLOAD}.schema.json").read_text(encoding="utf-8") == before


def test_annotate_needs_the_vendored_specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli) -> None:
    monkeypatch.setattr(registry, "schemas_dir", lambda: tmp_path)
    out = run_cli(["schemas", "annotate-versions", "--check"], code=2)
    assert "no vendored specs here" in out.stderr


# ---------------------------------------------------------------------- editing the schema text


def test_set_members_keeps_every_other_byte() -> None:
    text = (
        '{\n  "a": ["x", "y"],\n  "b": {\n    "type": "string",\n    "old": 1\n  },\n'
        '  "c": {"type": "null"}\n}\n'
    )
    names = frozenset({"old", "new"})
    changed = set_members(text, {"/b": {"new": {"2.19": None}}, "/c": {"new": "2.20"}}, names)
    assert changed == (
        '{\n  "a": ["x", "y"],\n  "b": {\n    "type": "string",\n    "new": {"2.19": null}\n  },\n'
        '  "c": {"type": "null", "new": "2.20"}\n}\n'
    )
    assert set_members(changed, {"/b": {"new": {"2.19": None}}, "/c": {"new": "2.20"}}, names) == changed
    assert (
        set_members(changed, {}, names)
        == '{\n  "a": ["x", "y"],\n  "b": {\n    "type": "string"\n  },\n  "c": {"type": "null"}\n}\n'
    )
    anchored = set_members(text, {"": {"new": 1}}, names, {"": "a"})
    assert anchored.startswith('{\n  "a": ["x", "y"],\n  "new": 1,\n  "b"')


# ------------------------------------------- every property and value a version lacks, named


def _expected_reason(has: tuple[str, ...], version: str) -> str:
    """Why ``version`` lacks what the versions ``has`` have, as the finding says it."""
    if not has:
        return f"in no published spec up to {KNOWN[-1]}"
    if KNOWN.index(version) < KNOWN.index(has[0]):
        return f"added in {has[0]}"
    return f"removed in {KNOWN[KNOWN.index(has[-1]) + 1]}"


def _carrying(place: str, value: Any) -> dict[str, Any]:
    """A workload of only its required fields, and ``value`` at ``place`` (one-item arrays and objects
    on the way)."""
    node: Any = value
    for token in reversed(place.split("/")[1:]):
        node = [node] if token == "*" else {token: node}
    return {**load_json(EXAMPLES / "versions" / "plain-workload-in-2.18.json"), "spec": None, **node}


def _absent_places(version: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each place the schema declares that ``version``'s official spec lacks while its parent is there
    (the outermost), with the versions whose spec has it: read from the specs, not the annotations."""
    from tests.official_support import official_places

    present = {v: official_places(v, WORKLOAD) for v in KNOWN}
    every = set(history._spots(WORKLOAD))  # every place the schema declares
    return [
        (place, tuple(v for v in KNOWN if place in present[v]))
        for place in sorted(every - present[version])
        if place.rsplit("/", 1)[0] in present[version] and not place.endswith("/*")
    ]


@pytest.mark.parametrize("version", KNOWN)
def test_every_property_a_version_lacks_is_named_with_the_version(version: str) -> None:
    """2.18 lacks 69 places another version (or only the schema) has, 2.24 five: each is an error
    named with the version that added or removed it."""
    places = _absent_places(version)
    assert places  # every version lacks something another has
    for place, has in places:
        result = validate_payload(_carrying(place, None), WORKLOAD, api_versions={"runai": version})
        named = [f for f in result.findings if f.rule == versions.RULE]
        key = place.rsplit("/", 1)[-1]
        expected = f'property "{key}" is not in Run:ai {version} ({_expected_reason(has, version)})'
        assert [(f.pointer.replace("/0/", "/*/"), f.message) for f in named] == [(place, expected)], place


@pytest.mark.parametrize("version", KNOWN)
def test_every_enum_value_a_version_lacks_is_named_with_the_version(version: str) -> None:
    specs = {v: official.facts("runai", v, WORKLOAD) for v in KNOWN}
    checked = 0
    for place, facts in specs[version].items():
        values = {value for v in KNOWN if place in specs[v] for value in specs[v][place].enum or ()}
        for value in sorted(values - set(facts.enum or ())):
            has = tuple(v for v in KNOWN if place in specs[v] and value in (specs[v][place].enum or ()))
            result = validate_payload(_carrying(place, value), WORKLOAD, api_versions={"runai": version})
            named = [
                (f.pointer.replace("/0/", "/*/"), f.message) for f in result.findings if f.severity == "error"
            ]
            reason = _expected_reason(has, version)
            assert (place, f'"{value}" is not a value of Run:ai {version} ({reason})') in named, named
            assert all(
                f.rule == versions.RULE for f in result.findings if f.pointer.replace("/0/", "/*/") == place
            )
            checked += 1
    assert checked == {"2.18": 3, "2.19": 1, "2.20": 1, "2.21": 0, "2.22": 0, "2.23": 0, "2.24": 2}[version]


# ------------------------------------------------ the checker's shortcuts on a version's schema


@pytest.mark.parametrize("version", KNOWN)
def test_the_shortcuts_agree_with_the_reference_on_each_versions_schema(version: str) -> None:
    """A version's schema is checked by the same ladder of shortcuts: each gives what the reference
    checks give (tests/test_shortcuts.py), on the examples and version cases and on payloads drawn
    for that version, for other versions, and broken by one mutation."""
    from jobschema.testing import invalid_payloads
    from jobschema.validate.session import Session
    from tests.support import all_examples
    from tests.test_shortcuts import agree

    checker = Session().checker(WORKLOAD, version)
    assert checker.schema.version == version
    for name, path in [*all_examples(), *((WORKLOAD, p) for p in CASES)]:
        if name == WORKLOAD:
            agree(checker, load_json(path))

    @settings(max_examples=15, derandomize=True, database=None)
    @given(
        st.one_of(
            payloads(WORKLOAD, version=version),
            payloads(WORKLOAD),
            invalid_payloads(WORKLOAD).map(lambda pair: pair[0]),
        )
    )
    def check(payload: Any) -> None:
        agree(checker, payload)

    check()


def test_json_that_is_no_payload_rules_out_every_version_unless_skip_unknown(run_cli, tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "pkg", "version": "1.0.0"}')
    capture = str(EXAMPLES / "versions" / "jax-in-2.20.json")
    failed = run_cli(["versions", capture, str(tmp_path / "package.json")], code=1)
    assert failed.stdout.splitlines()[-1] == "2 payloads, 0 skipped; no Run:ai version accepts every payload"
    skipped = run_cli(["versions", "--skip-unknown", capture, str(tmp_path / "package.json")], code=0)
    assert (
        skipped.stdout.splitlines()[-1]
        == "1 payload, 1 skipped; every payload is accepted by Run:ai 2.21-2.24"
    )
    assert judge_paths([capture, str(tmp_path / "package.json")], skip_unknown=True).skipped == 1
