"""API versions, round 9: captures a real cluster produces, and version texts nobody listed.

Probed this round: a capture holding fields of two versions at once (a 2.24-only property beside
one removed in 2.24; a 2.23 property beside a negative quantity 2.23 forbids), a capture every
version accepts, NDJSON histories upgraded mid-way (with empty lines and a BOM), a field whose only
value is ``null`` or ``[]``, AIHC v1 beside v2 beside the error body both send, inputs unreadable
among many, and 30 ``--api-version`` texts (ranges, lists, a second ``=``, whitespace, stray
suffixes).

Classes found and fixed:

- **a range, list or malformed release taken as one version**: ``runai=2.20-2.22`` was read as
  2.20 (its ``-2.22`` as a pre-release), ``runai=2.21..1``, ``runai=2.21-`` and ``runai=2.21+`` as
  2.21, and ``runai>=2.20`` said "runai>: not an API". A version is ``[v]MAJOR.MINOR``, then at most
  ``.PATCH``, a pre-release of dot-separated identifiers and build metadata (SemVer's); a range is
  not supported (``--api-version`` pins one version; ``jobschema versions`` tells which versions fit)
  and is said so, naming the pin meant.
- **no version fits, and the fields that conflict are not named together**: each version's first
  reason was listed, leaving the reader to work out that two fields exclude each other. Now a
  payload whose fields each fit some version, but no version all of them, ends with a line naming
  each field and the versions it fits (``no version has them all: /spec/compute/migProfile (2.18-2.23),
  /spec/environmentVariables/0/userCredential (2.24)``), and the JSON result says it in
  ``"conflict"``.
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.schemas import versions
from tests.conftest import RunCli
from tests.support import EXAMPLES, SCHEMAS, load_json

KNOWN = ("2.18", "2.19", "2.20", "2.21", "2.22", "2.23", "2.24")
PLAIN = EXAMPLES / "versions" / "plain-workload-in-2.18.json"
DRAWS = settings(max_examples=60, derandomize=True, database=None)


def _payload(**spec: Any) -> dict[str, Any]:
    payload = json.loads(PLAIN.read_text(encoding="utf-8"))
    payload["spec"].update(spec)
    return payload


# ----------------------------------------------------------- ranges, lists, stray suffixes


@pytest.mark.parametrize(
    "text",
    ["runai=2.20-2.22", "runai=2.20 - 2.22", "runai=2.20..2.22", "runai=2.20,2.22", "runai=2.20 2.22"],
)
def test_a_range_or_list_is_not_taken_as_its_first_version(text: str) -> None:
    with pytest.raises(versions.UnknownVersion, match="one version, not a range or list") as raised:
        versions.parse_pin(text)
    assert "runai=2.20" in str(raised.value) and "jobschema versions" in str(raised.value)


@pytest.mark.parametrize("text", ["aihc=v1-v2", "aihc=v1,v2", "aihc@v1..v2"])
def test_aihc_s_two_versions_are_a_list_too(text: str) -> None:
    with pytest.raises(versions.UnknownVersion, match="not a range or list"):
        versions.parse_pin(text)


@pytest.mark.parametrize("text", ["runai>=2.20", "runai<=2.22", "runai>2.20", "runai<2.22", "runai~=2.20"])
def test_a_comparison_is_said_to_be_unsupported(text: str) -> None:
    with pytest.raises(versions.UnknownVersion, match="one version, not a range or list") as raised:
        versions.parse_pin(text)
    assert f"(runai={text[-4:]})" in str(raised.value)  # (the pin meant, its own version)


@pytest.mark.parametrize(
    ("text", "meant"), [("2.20-2.22", "runai=2.20"), ("v1,v2", "aihc=v1"), (">=2.21", "runai=2.21")]
)
def test_a_range_without_its_api_names_the_pin_meant(text: str, meant: str) -> None:
    with pytest.raises(versions.UnknownVersion, match="not a range or list") as raised:
        versions.parse_pin(text)
    assert f"({meant})" in str(raised.value)


def test_an_unknown_api_is_said_before_its_range() -> None:
    with pytest.raises(versions.UnknownVersion, match="not an API jobschema knows"):
        versions.parse_pin("slurm=2.20-2.22")


@pytest.mark.parametrize("text", ["runai==2.21", "runai == 2.21"])
def test_a_double_equals_names_the_pin_meant(text: str) -> None:
    with pytest.raises(versions.UnknownVersion, match=r"did you mean runai=2\.21"):
        versions.parse_pin(text)


@pytest.mark.parametrize(
    "version",
    ["2.21..1", "2.21-", "2.21+", "2.21.", "2.21.3.", "2.21-rc..1", "2.21+b..7", "2.21_3", "2.21 3"],
)
def test_a_malformed_release_names_no_version(version: str) -> None:
    assert versions.resolve("runai", version) is None
    with pytest.raises(versions.UnknownVersion):
        versions.parse_pin(f"runai={version}")


@DRAWS
@given(
    st.sampled_from(KNOWN),
    st.sampled_from(["", "v", "V"]),
    st.sampled_from(["", ".0", ".3", ".12"]),
    st.sampled_from(["", "-rc.1", "-alpha", "-0.3.7", "-x-y.1"]),
    st.sampled_from(["", "+b7", "+build.5", "+sha-1a2b"]),
)
def test_every_semver_release_of_a_known_version_is_it(
    version: str, prefix: str, patch: str, pre: str, build: str
) -> None:
    text = f"{prefix}{version}{patch}{pre}{build}"
    assert versions.resolve("runai", text) == version
    assert versions.parse_pin(f"runai={text}") == ("runai", version)


@DRAWS
@given(
    st.sampled_from(KNOWN),
    st.sampled_from(KNOWN),
    st.sampled_from(["-", " - ", "..", ",", " ", "~", " to ", ";"]),
    st.sampled_from(["=", "@", " = "]),
)
def test_two_versions_joined_in_any_way_are_a_range(first: str, second: str, joint: str, sep: str) -> None:
    with pytest.raises(versions.UnknownVersion, match="not a range or list"):
        versions.parse_pin(f"runai{sep}{first}{joint}{second}")


@settings(max_examples=100, derandomize=True, database=None)
@given(st.text(alphabet=st.sampled_from("runaihc=@<>~^!*,.-+ vV0123456789\t"), max_size=16))
def test_any_pin_text_is_a_pin_or_one_unknown_version_error(text: str) -> None:
    """No text makes the reader of pins fail otherwise; what it takes names a known version."""
    try:
        api, version = versions.parse_pin(text)
    except versions.UnknownVersion as error:
        assert "\n" not in str(error)
        return
    assert version in versions.known(api)


def test_the_cli_says_a_range_in_one_line_exit_2(run_cli: RunCli) -> None:
    for command in (["validate"], ["coverage"]):
        result = run_cli([*command, "--api-version", "runai=2.20-2.22", str(PLAIN)], code=2)
        (line,) = [line for line in result.stderr.splitlines() if line.startswith("Error")]
        assert "one version, not a range or list" in line and "Traceback" not in result.stderr
    result = run_cli(["changes", "runai@2.20-2.22", "runai@2.24", "--no-witnesses"], code=2)
    assert "one version, not a range or list" in result.stderr


# ------------------------------------------------------------ fields of two versions at once


def _conflicts(tmp_path: Path) -> dict[str, dict[str, Any]]:
    both_ends = _payload(
        compute={"migProfile": "1g.5gb"},
        environmentVariables=[{"name": "X", "userCredential": {"name": "c", "key": "k"}}],
    )
    quantity = _payload(
        compute={"cpuMemoryRequest": "-1"},
        storage={"secretVolume": [{"name": "v", "secret": "s", "mountPath": "/m", "defaultMode": "0644"}]},
    )
    three = _payload(
        compute={"migProfile": "1g.5gb"},
        distributedFramework="JAX",
        tolerations=[{"name": "t", "operator": "Exists", "effect": "Any"}],
        environmentVariables=[{"name": "X", "userCredential": {"name": "c", "key": "k"}}],
    )
    cases = {"both-ends.json": both_ends, "quantity.json": quantity, "three.json": three}
    for name, payload in cases.items():
        (tmp_path / name).write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return cases


def test_a_capture_of_two_versions_names_the_fields_that_conflict(run_cli: RunCli, tmp_path: Path) -> None:
    _conflicts(tmp_path)
    names = ["both-ends.json", "quantity.json", "three.json"]
    result = run_cli(["versions", *(str(tmp_path / n) for n in names)], code=1)
    said = [line for line in result.stdout.splitlines() if line.startswith("  no version has them all")]
    assert said == [
        "  no version has them all: /spec/compute/migProfile (2.18-2.23), "
        "/spec/environmentVariables/0/userCredential (2.24)",
        "  no version has them all: /spec/compute/cpuMemoryRequest (2.18-2.22), "
        "/spec/storage/secretVolume/0/defaultMode (2.23-2.24)",
        "  no version has them all: /spec/compute/migProfile (2.18-2.23), "
        "/spec/environmentVariables/0/userCredential (2.24)",
    ]
    report = json.loads(run_cli(["versions", "-f", "json", str(tmp_path / "both-ends.json")], code=1).stdout)
    jsonschema.validate(report, load_json(SCHEMAS / "versions-report.schema.json"))
    assert report["results"][0]["conflict"] == [
        {"pointer": "/spec/compute/migProfile", "versions": ["2.18", "2.19", "2.20", "2.21", "2.22", "2.23"]},
        {"pointer": "/spec/environmentVariables/0/userCredential", "versions": ["2.24"]},
    ]


def test_no_conflict_is_said_where_a_version_fits_or_a_field_fits_none(
    run_cli: RunCli, tmp_path: Path
) -> None:
    fits = _payload(distributedFramework="JAX", compute={"migProfile": "1g.5gb"})
    none = {"workloadId": "w"}
    mixed = tmp_path / "caps.ndjson"
    mixed.write_text("\n".join(json.dumps(p) for p in (fits, none)) + "\n", encoding="utf-8")
    result = run_cli(["versions", str(mixed)], code=1)
    assert "no version has them all" not in result.stdout
    report = json.loads(run_cli(["versions", "-f", "json", str(mixed)], code=1).stdout)
    assert [r["conflict"] for r in report["results"]] == [[], []]
    jsonschema.validate(report, load_json(SCHEMAS / "versions-report.schema.json"))


#: One field per kind of version step, each with the versions it fits alone.
MARKERS: dict[str, tuple[Any, tuple[str, ...]]] = {
    "distributedFramework": ("JAX", KNOWN[3:]),
    "compute": ({"migProfile": "1g.5gb"}, KNOWN[:6]),
    "tolerations": ([{"name": "t", "operator": "Exists", "effect": "Any"}], KNOWN[1:]),
    "imagePullSecrets": ([], KNOWN[4:]),
    "cleanPodPolicy": ("All", KNOWN[2:]),
    "environmentVariables": ([{"name": "X", "userCredential": {"name": "c", "key": "k"}}], KNOWN[6:]),
    "storage": ({"emptyDirVolume": [{"name": "e", "path": "/e", "sizeLimit": "-1G"}]}, KNOWN[4:5]),
}


def test_the_conflict_is_said_exactly_when_each_field_fits_but_not_together() -> None:
    """Every combination of the markers (127), judged in one run: the versions that accept it are
    the meet of its markers', and a conflict is said exactly when that meet is empty, naming markers
    that fit some version each and none together."""
    from jobschema.inputs.payload import Payload
    from jobschema.validate.accepted import judge

    combos = [c for n in range(1, len(MARKERS) + 1) for c in itertools.combinations(sorted(MARKERS), n)]
    payloads = [_payload(**{name: copy.deepcopy(MARKERS[name][0]) for name in combo}) for combo in combos]
    items = [Payload(source=str(i), path=None, value=p, text=json.dumps(p)) for i, p in enumerate(payloads)]
    said = 0
    for combo, verdict in zip(combos, judge(items).verdicts, strict=True):
        fit = set(KNOWN).intersection(*(MARKERS[name][1] for name in combo))
        assert set(verdict.accepted) == fit, combo
        if fit:
            assert verdict.conflict == (), combo
            continue
        said += 1
        named = dict(verdict.conflict)
        assert 2 <= len(named) <= len(combo), combo
        assert not set(KNOWN).intersection(*(set(fits) for fits in named.values())), combo
        for pointer, fits in named.items():
            marker = pointer.split("/")[2]
            assert marker in combo and set(fits) == set(MARKERS[marker][1]), (combo, pointer)
    assert said == 48  # (with environmentVariables, 2.24 only, and compute or storage, 2.22 only)


# ------------------------------------------------------- histories and inputs of many kinds


def test_a_history_upgraded_mid_way_is_judged_per_snapshot(run_cli: RunCli, tmp_path: Path) -> None:
    """An NDJSON history with a BOM and empty lines: 2.18's snapshots, then 2.24's; each line its own
    versions, none for the whole (exit 1), and no conflict within one snapshot."""
    early = _payload(compute={"migProfile": "1g.5gb"})
    late = _payload(environmentVariables=[{"name": "X", "userCredential": {"name": "c", "key": "k"}}])
    path = tmp_path / "history.ndjson"
    text = "\n".join([json.dumps(early), "", json.dumps(early), "   ", json.dumps(late)]) + "\n\n"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    lines = [
        line for line in run_cli(["versions", str(path)], code=1).stdout.splitlines() if line[:2] != "  "
    ]
    assert lines == [
        f"{path}:1: Run:ai 2.18-2.23",
        f"{path}:3: Run:ai 2.18-2.23",
        f"{path}:5: Run:ai 2.24",
        "3 payloads, 0 skipped; no Run:ai version accepts every payload: "  # (named since round 12)
        f"{path}:1 (2.18-2.23) and {path}:5 (2.24) rule each other out",
    ]


def test_one_bad_input_among_many_stops_none_of_the_others(run_cli: RunCli, tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_payload()), encoding="utf-8")
    (tmp_path / "cut.json").write_text('{"workloadId": ', encoding="utf-8")
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "latin.json").write_bytes(b'{"name": "caf\xe9"}')
    names = ["cut.json", "empty.json", "missing.json", "latin.json", "good.json"]
    result = run_cli(["versions", *(str(tmp_path / n) for n in names)], code=2)
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [f"Error: {tmp_path / 'missing.json'}: no such file or folder"]
    said = result.stdout.splitlines()
    assert said[-1] == "4 payloads, 0 skipped; no Run:ai version accepts every payload"
    assert f"{good}: Run:ai 2.18-2.24" in said
    for name in ("cut.json", "empty.json", "latin.json"):
        (line,) = [line for line in said if line.startswith(str(tmp_path / name))]
        assert ": no Run:ai version: " in line
