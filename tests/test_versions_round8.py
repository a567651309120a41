"""API versions, round 8: how a version is written.

Every form a person writes a version in is read the same way wherever one is taken
(``validate --api-version``, ``coverage --api-version``, ``changes OLD NEW``, the library's
``api_versions``, a cluster's answer): ``API=VERSION`` and ``API@VERSION`` alike; ``2.21.0``,
``v2.21`` and ``2.21-rc.1`` are 2.21; a number written with a leading zero (``2.019``, ``02.19``)
names no version (it is not how any release is written, and ``2.019`` may as well be a typo of 2.1.9
as of 2.19); a version given without its API is an error that names the pin meant
(``runai=2.21``); an unknown version is one line listing the known ones.

(The captures derived from the official specs, one per property, enum value, pattern and bound of
every version, agreed with ``versions`` and ``validate --api-version`` in every version before this
round: 1687 single captures, 600 combinations, as JSON files, NDJSON and HAR; see the report.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.schemas import versions
from tests.conftest import RunCli
from tests.support import EXAMPLES

KNOWN = ("2.18", "2.19", "2.20", "2.21", "2.22", "2.23", "2.24")
JAX = EXAMPLES / "versions" / "jax-in-2.20.json"
DRAWS = settings(max_examples=60, derandomize=True, database=None)


# ------------------------------------------------------------- leading zeros name no version


@pytest.mark.parametrize("text", ["2.019", "02.19", "v2.019", "2.019.3", "002.19", "2.00"])
def test_a_number_with_a_leading_zero_names_no_version(text: str) -> None:
    assert versions.resolve("runai", text) is None
    with pytest.raises(versions.UnknownVersion, match="leading zero"):
        versions.parse_pin(f"runai={text}")


def test_a_leading_zero_is_a_usage_error_naming_the_known_versions(run_cli: RunCli) -> None:
    result = run_cli(["validate", "--api-version", "runai=2.019", str(JAX)], code=2)
    (line,) = [line for line in result.stderr.splitlines() if line.strip()][-1:]
    assert "2.019" in line and "2.18, 2.19, 2.20, 2.21, 2.22, 2.23, 2.24" in line
    assert "leading zero" in line


def test_changes_reads_a_leading_zero_as_validate_does(run_cli: RunCli) -> None:
    result = run_cli(["changes", "runai@2.019", "runai@2.20", "--no-witnesses"], code=2)
    assert "2.019" in result.stderr and "leading zero" in result.stderr


@DRAWS
@given(
    st.sampled_from(KNOWN),
    st.sampled_from(["", "v", "V"]),
    st.sampled_from(["", ".0", ".3", ".12", "-rc.1", "+b7", ".3-rc.1"]),
    st.integers(min_value=1, max_value=3),
)
def test_zeros_before_either_number_name_no_version_in_any_form(
    version: str, prefix: str, tail: str, zeros: int
) -> None:
    major, minor = version.split(".")
    assert versions.resolve("runai", f"{prefix}{major}.{minor}{tail}") == version
    for text in (f"{'0' * zeros}{major}.{minor}", f"{major}.{'0' * zeros}{minor}"):
        assert versions.resolve("runai", f"{prefix}{text}{tail}") is None


# ------------------------------------------------------------- API@VERSION and API=VERSION


@pytest.mark.parametrize("text", ["runai@2.21", "RunAI@v2.21", "runai@2.21.0", " runai @ 2.21 "])
def test_api_at_version_is_taken_as_changes_takes_it(text: str) -> None:
    assert versions.parse_pin(text) == ("runai", "2.21")


def test_validate_takes_api_at_version(run_cli: RunCli) -> None:
    at = run_cli(["validate", "--api-version", "runai@2.20", str(JAX)], code=1).stdout
    equals = run_cli(["validate", "--api-version", "runai=2.20", str(JAX)], code=1).stdout
    assert at == equals and "not a value of Run:ai 2.20" in at


@pytest.mark.parametrize("text", ["runai=2.19", "RunAI=v2.19.3"])
def test_changes_takes_api_equals_version_as_validate_does(run_cli: RunCli, text: str) -> None:
    by_equals = run_cli(["changes", text, "runai=2.21", "--no-witnesses"], code=1).stdout
    by_at = run_cli(["changes", "runai@2.19", "runai@2.21", "--no-witnesses"], code=1).stdout
    assert by_equals.splitlines()[1:] == by_at.splitlines()[1:]


def test_a_schema_file_whose_name_holds_an_equals_sign_is_still_a_file(
    run_cli: RunCli, tmp_path: Path
) -> None:
    schema = tmp_path / "runai=2.19"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    other = tmp_path / "new.json"
    other.write_text(json.dumps({"type": "object", "properties": {}}))
    result = run_cli(["changes", str(schema), str(other), "--no-witnesses"], code=1)
    assert "/a: removed" in result.stdout


# ------------------------------------------------------------- a version without its API


@pytest.mark.parametrize(
    ("text", "meant"), [("2.21", "runai=2.21"), ("v2.21.0", "runai=2.21"), ("v1", "aihc=v1")]
)
def test_a_version_without_its_api_names_the_pin_meant(text: str, meant: str) -> None:
    with pytest.raises(versions.UnknownVersion, match=f"did you mean {meant}"):
        versions.parse_pin(text)


def test_a_version_without_its_api_is_one_line_on_the_command_line(run_cli: RunCli) -> None:
    result = run_cli(["validate", "--api-version", "2.21", str(JAX)], code=2)
    last = [line for line in result.stderr.splitlines() if line.strip()][-1]
    assert last.startswith("Error:") and "did you mean runai=2.21?" in last


def test_text_that_is_no_version_of_any_api_is_still_asked_for_as_api_equals_version() -> None:
    with pytest.raises(versions.UnknownVersion, match=r"give API=VERSION, e\.g\. runai=2\.19$"):
        versions.parse_pin("latest")


# ------------------------------------------------------------- unknown versions, twice


@pytest.mark.parametrize("text", ["runai=2.25", "runai@2.25", "runai=3.0", "runai=2.2"])
def test_an_unknown_version_is_one_line_listing_the_known_ones(run_cli: RunCli, text: str) -> None:
    result = run_cli(["validate", "--api-version", text, str(JAX)], code=2)
    lines = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1
    assert lines[0].endswith("is not a known version (2.18, 2.19, 2.20, 2.21, 2.22, 2.23, 2.24)")


@pytest.mark.parametrize(
    ("first", "second", "code"),
    [("runai=2.20", "runai@2.20.1", 1), ("runai=2.20", "v2.20", 2), ("runai=2.20", "runai@2.21", 2)],
)
def test_the_option_given_twice(run_cli: RunCli, first: str, second: str, code: int) -> None:
    result = run_cli(["validate", "--api-version", first, "--api-version", second, str(JAX)], code=code)
    if code == 2:
        assert len([line for line in result.stderr.splitlines() if line.startswith("Error:")]) == 1


@DRAWS
@given(
    st.sampled_from(KNOWN),
    st.sampled_from(["=", "@", " = ", " @ "]),
    st.sampled_from(["runai", "RUNAI", "RunAI"]),
)
def test_every_separator_and_spelling_of_the_api_gives_the_same_pin(version: str, sep: str, api: str) -> None:
    assert versions.parse_pins([f"{api}{sep}{version}", f"runai={version}"]) == (("runai", version),)


# ------------------------------------------------------------- AIHC: v1 and v2

AIHC_EXAMPLES = EXAMPLES.parent.parent / "schemas" / "examples"
V1 = AIHC_EXAMPLES / "aihc-job-detail" / "mpi-job.json"
V2_SDK = AIHC_EXAMPLES / "aihc-v2-job" / "sdk-running-4-pods.json"
V2_DOCS = AIHC_EXAMPLES / "aihc-v2-job" / "documentation-flattened.json"
V2_JAVA = AIHC_EXAMPLES / "aihc-v2-job" / "java-sdk-spelling.json"
ERROR = AIHC_EXAMPLES / "aihc-error" / "not-found.json"


def test_aihc_has_two_versions_and_its_error_body_is_both_of_theirs() -> None:
    assert versions.known("aihc") == ("v1", "v2")
    assert versions.parse_pin("aihc=V2") == ("aihc", "v2")
    assert versions.schemas_of("aihc") == ("aihc-job-detail", "aihc-raw-request", "aihc-error", "aihc-v2-job")


@pytest.mark.parametrize("capture", [V2_SDK, V2_DOCS, V2_JAVA])
def test_a_v2_answer_pinned_to_aihc_v1_is_not_in_that_version(run_cli: RunCli, capture: Path) -> None:
    """Each SDK's shape (the Python SDK's, the Java SDK's, the documentation's flattened one)."""
    result = run_cli(["validate", "--api-version", "aihc=v1", str(capture)], code=1)
    errors = [line for line in result.stdout.splitlines() if "[not-in-version]" in line]
    assert errors == [
        f"{capture}:1:1: (root): an aihc-v2-job payload is not an answer of AIHC v1 (it is AIHC v2's)"
        " [not-in-version]"
    ]
    assert run_cli(["validate", "--api-version", "aihc=v2", str(capture)], code=0)


def test_a_v1_detail_pinned_to_aihc_v2_is_not_in_that_version(run_cli: RunCli) -> None:
    result = run_cli(["validate", "--api-version", "aihc=v2", str(V1)], code=1)
    assert "(root): an aihc-job-detail payload is not an answer of AIHC v2 (it is AIHC v1's)" in result.stdout
    run_cli(["validate", "--api-version", "aihc=v1", str(V1)], code=0)


@pytest.mark.parametrize("pin", ["aihc=v1", "aihc=v2"])
def test_an_error_body_is_an_answer_of_either_version(run_cli: RunCli, pin: str) -> None:
    run_cli(["validate", "--api-version", pin, str(ERROR)], code=0)


def test_which_aihc_version_could_have_sent_each_line_of_a_mixed_history(tmp_path: Path) -> None:
    from jobschema.validate.accepted import judge_paths

    lines = [json.loads(path.read_text(encoding="utf-8")) for path in (V1, V2_SDK, ERROR, V2_DOCS)]
    history = tmp_path / "mixed.ndjson"
    history.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    judged = judge_paths([str(history)], api="aihc")
    assert [verdict.accepted for verdict in judged.verdicts] == [("v1",), ("v2",), ("v1", "v2"), ("v2",)]
    assert judged.accepted_by_all == ()
    assert judge_paths([str(history)], api="runai").skipped == 4


def test_the_versions_command_judges_aihc_captures_on_v1_and_v2(run_cli: RunCli, tmp_path: Path) -> None:
    lines = [json.loads(path.read_text(encoding="utf-8")) for path in (V1, V2_JAVA, ERROR)]
    history = tmp_path / "mixed.ndjson"
    history.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    text = run_cli(["versions", "--api", "aihc", str(history)], code=1).stdout.splitlines()
    assert text[0] == f"{history}:1: AIHC v1"
    assert text[1] == (
        "  not v2: (root): an aihc-job-detail payload is not an answer of AIHC v2 (it is AIHC v1's)"
        " [not-in-version]"
    )
    assert text[2] == f"{history}:2: AIHC v2"
    assert f"{history}:3: AIHC v1-v2" in text
    assert text[-1] == (  # (round 12: the summary names the captures that rule each other out)
        f"3 payloads, 0 skipped; no AIHC version accepts every payload: {history}:1 (v1) and "
        f"{history}:2 (v2) rule each other out"
    )
    report = json.loads(run_cli(["versions", "--api", "AIHC", "-f", "json", str(history)], code=1).stdout)
    assert (report["api"], report["versions"]) == ("aihc", ["v1", "v2"])
    assert [r["accepted"] for r in report["results"]] == [["v1"], ["v2"], ["v1", "v2"]]
    run_cli(["versions", str(history)], code=0)  # (Run:ai's, by default: none here)


def test_a_schema_at_a_version_of_its_api_it_is_not_in_rules_out_every_payload() -> None:
    from jobschema.schemas.history import versions_of

    document = versions.schema_for("aihc-v2-job", "V1")
    assert document[versions.VERSION] == "v1"
    assert versions.absent(document, {"requestId": "r"})[0].rule == "not-in-version"
    assert versions.absent(versions.schema_for("aihc-v2-job", "v2"), {"requestId": "r"}) == []
    assert versions_of("aihc-v2-job", "/job") == ("v2",)
    assert versions_of("aihc-error", "/code") == ("v1", "v2")
