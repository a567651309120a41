"""Round-5 review of version names (``validate --api-version``, ``changes API@VERSION``, a cluster's
version in a HAR): one grammar for every place a version is written.

- A version is ``[v|V]MAJOR.MINOR`` in ASCII digits, optionally followed by more of the release
  (``.3``, ``-rc.1``, ``+build``): ``V2.20`` is ``v2.20`` is ``2.20`` (``V2.20`` was unknown), and
  digits of another script (fullwidth, Arabic-Indic) name no version (they were
  read as 2.20). ``aihc=V1`` is ``aihc=v1``; an API is named in any case (``RunAI=2.20``).
- ``aihc=v2`` says why there is no such version: AIHC v2 jobs have a schema of their own.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.schemas import versions
from tests.support import REPO

KNOWN = versions.known("runai")
JAX = "tests/examples/versions/jax-in-2.20.json"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jobschema", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )


@settings(database=None, max_examples=200, deadline=None)
@given(
    version=st.sampled_from(KNOWN),
    prefix=st.sampled_from(["", "v", "V"]),
    suffix=st.sampled_from(["", ".0", ".3", ".12", ".3-rc.1", ".3+build.7", "-rc1", ".0.0"]),
    space=st.sampled_from(["", " ", "\t"]),
)
def test_every_spelling_of_a_known_version_names_it(
    version: str, prefix: str, suffix: str, space: str
) -> None:
    text = f"{space}{prefix}{version}{suffix}{space}"
    assert versions.resolve("runai", text) == version
    assert versions.parse_pin(f"runai={text}") == ("runai", version)


FOREIGN_DIGITS = str.maketrans("0123456789", "".join(chr(0xFF10 + d) for d in range(10)))
ARABIC_DIGITS = str.maketrans("0123456789", "".join(chr(0x0660 + d) for d in range(10)))


@pytest.mark.parametrize(
    "text",
    [
        "2.20".translate(FOREIGN_DIGITS),
        "2.20".translate(ARABIC_DIGITS),
        "v" + "2.24".translate(FOREIGN_DIGITS),
        "2.2",
        "2.17",
        "2.99",
        "3.20",
        "latest",
        "2.20x",
        "2.20 beta",
        "vv2.20",
        "2,20",
        "2.20\n2.19",
        "",
        "v",
    ],
)
def test_text_that_names_no_known_version_is_a_usage_error(text: str) -> None:
    assert versions.resolve("runai", text) is None
    with pytest.raises(versions.UnknownVersion):
        versions.parse_pin(f"runai={text}")


def test_a_foreign_script_version_is_named_on_the_command_line() -> None:
    text = "2.20".translate(FOREIGN_DIGITS)
    result = _run("validate", "--api-version", f"runai={text}", JAX)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"Error: Invalid value for '--api-version': 'runai={text}': Run:ai {text} is not a known "
        "version (2.18, 2.19, 2.20, 2.21, 2.22, 2.23, 2.24)"
    ]
    changes = _run("changes", f"runai@{text}", "runai@2.24")
    assert changes.returncode == 2 and changes.stdout == ""
    assert changes.stderr.splitlines() == [
        f"Error: runai@{text}: no such Run:ai version (known: 2.18, 2.19, 2.20, 2.21, 2.22, 2.23, 2.24)"
    ]


def test_capital_v_and_any_case_of_an_api_name() -> None:
    assert versions.parse_pins(["RunAI=V2.20", "AIHC=V1"]) == (("aihc", "v1"), ("runai", "2.20"))
    assert versions.resolve("aihc", " V1 ") == "v1"
    result = _run("validate", "--api-version", "RUNAI=V2.20", JAX)
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped"
    same = _run("changes", "runai@V2.20", "runai@v2.21.3", "--no-witnesses")
    assert same.returncode == 1  # (JAX: an enum value added breaks a reader's switch, round 8)
    assert same.stdout.splitlines()[0].startswith("runai@2.20 -> runai@2.21: ")


def test_aihc_v2_is_a_known_version_whose_answers_have_a_schema_of_their_own() -> None:
    """(Round 8: AIHC has two versions, v1's job detail and v2's DescribeJob answer; a Run:ai payload
    is not AIHC's, so pinning AIHC leaves it as it was.)"""
    result = _run("validate", "--api-version", "aihc=v2", JAX)
    assert result.returncode == 0, result.stderr
    assert versions.parse_pin("aihc=v2") == ("aihc", "v2")


# --- the library: api_versions in every shape the docs name, and a TypeError for the rest ------------


@pytest.mark.parametrize(
    "given",
    [
        "runai=2.19",
        "RunAI=v2.19.3",
        ["runai=2.19"],
        ("runai=2.19",),
        {"runai": "2.19"},
        {"runai": "2.19.3"},
        [("runai", "2.19")],
        iter(["runai=2.19"]),
    ],
)
def test_api_versions_in_every_documented_shape(given: object) -> None:
    assert versions.as_pins(given) == (("runai", "2.19"),)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"runai": 2.20}, "api_versions: runai's version is the number 2.2; write it as text ('2.20')"),
        ([("runai", 2.19)], "api_versions: runai's version is the number 2.19; write it as text ('2.20')"),
        (5, "api_versions: expected a mapping such as {'runai': '2.19'}, not int"),
        ([5], "api_versions: expected 'API=VERSION' or (API, VERSION), not 5"),
        ([("runai",)], "api_versions: expected 'API=VERSION' or (API, VERSION), not ('runai',)"),
        ({"runai": None}, "api_versions: expected the API and its version as text, not ('runai', None)"),
    ],
)
def test_api_versions_of_another_type_are_a_type_error_naming_them(given: object, message: str) -> None:
    with pytest.raises(TypeError) as raised:
        versions.as_pins(given)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_serve_and_validate_take_one_pin_as_a_string() -> None:
    from jobschema.validate import validate_payload

    payload = (REPO / JAX).read_text()
    assert validate_payload(payload, api_versions="runai=2.20").version == "2.20"  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="write it as text"):
        validate_payload(payload, api_versions={"runai": 2.20})  # type: ignore[dict-item]


# --- one version's schema, named as everywhere else ---------------------------------------------------

WORKLOAD = "runai-distributed-workload"


@pytest.mark.parametrize("text", ["2.19", "v2.19", "V2.19", "2.19.3", " 2.19 ", "2.19.3-rc.1"])
def test_schema_for_takes_a_version_as_everything_else_does(text: str) -> None:
    assert versions.schema_for(WORKLOAD, text) == versions.schema_for(WORKLOAD, "2.19")
    assert versions.schema_for(WORKLOAD, text)["x-jobschema-api-version"] == "2.19"


@pytest.mark.parametrize(
    ("name", "version", "error", "message"),
    [
        (WORKLOAD, "2.30", versions.UnknownVersion, f"{WORKLOAD}: has no version 2.30 ({', '.join(KNOWN)})"),
        ("aihc-job-detail", "V3", versions.UnknownVersion, "aihc-job-detail: has no version V3 (v1, v2)"),
        ("aihc-v2-job", "v3", versions.UnknownVersion, "aihc-v2-job: has no version v3 (v1, v2)"),
        (
            "runai-distributed-workload",
            "v1",
            versions.UnknownVersion,
            f"{WORKLOAD}: has no version v1 ({', '.join(KNOWN)})",
        ),
        (WORKLOAD, 2.19, TypeError, "version: expected text such as '2.19', not float 2.19"),
        (WORKLOAD, None, TypeError, "version: expected text such as '2.19', not NoneType None"),
    ],
)
def test_schema_for_names_what_it_cannot_give(name: str, version: object, error: type, message: str) -> None:
    with pytest.raises(error) as raised:
        versions.schema_for(name, version)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_versions_of_names_a_schema_without_versions_and_reads_ascii_indices() -> None:
    from jobschema.schemas.history import versions_of

    assert versions_of("aihc-v2-job", "/job") == ("v2",)  # (round 8: AIHC v2's; v1 has no aihc-v2-job)
    assert versions_of("aihc-job-detail", "/result") == ("v1",)
    assert versions_of(WORKLOAD, "/spec/tolerations/3/effect", "Any") == KNOWN[1:]
    arabic_three = chr(0x0663)
    with pytest.raises(KeyError):
        versions_of(WORKLOAD, f"/spec/tolerations/{arabic_three}/effect")
