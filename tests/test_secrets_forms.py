"""The planted forms (tests/fixtures/secrets/forms/PRINCIPLE/CASE.txt): one credential per file, in a
form a principle of the secret policy must catch (commands, documents, encodings, schemes, prose).
Adding a case means adding a file. Each secret carries a marker ``PLNTggcc`` that occurs nowhere
else, also when the form hides it in base64, gzip, percent-encoding or escapes (:func:`revealed`
decodes those, independently of the policy's own readers).

Forms whose secret cannot hold a marker (hex keys, UUID tokens) are listed with their secret in
tests/fixtures/secrets/unmarked.json; ordinary strings that must stay as they are, in clean.json.

Every form is masked by ``scrub``; carried in a payload (an env value, the command, ``createdAt``
and ``status`` of an AIHC job) it is flagged by ``redact --check``, gone after ``redact``, and absent
from every output format of ``validate``, ``diff`` and ``coverage``, which do show its place masked.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import copy
import functools
import html
import json
import re
import urllib.parse
import zlib
from pathlib import Path
from typing import Any

import pytest

from jobschema.secrets import scrub
from tests.support import REPO

FORMS = REPO / "tests" / "fixtures" / "secrets" / "forms"
CASES = sorted(FORMS.glob("*/*.txt"))
MARKER = re.compile(r"PLNT\d{4}|Hx9Q\d{3}")
SEED = REPO / "schemas" / "examples" / "aihc-job-detail" / "seed.json"


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


#: Where a text is decoded in parts: a line break before a character that can neither continue a
#: base64 run (``_decodings`` joins those across lines) nor begin an escape. Every decoding is local
#: to such a part, so an output of many lines (an NDJSON capture of 6 MB) is decoded line by line,
#: each distinct line once, rather than whole at every depth (the whole text's decodings differ from
#: it wherever one line holds an escape, and were decoded again, whole, at each of four depths).
#: What this gives up: a secret holding a line break whose both sides were encoded, in a text that
#: breaks the line there (the text itself is still searched whole).
_PARTS = re.compile(r"\r?\n(?=[^A-Za-z0-9+/_%&\\-])")


def revealed(text: str, depth: int = 4) -> str:
    """``text`` and everything encoded in it, decoded (base64 with gzip or zlib inside, percent,
    JSON and HTML escapes), joined: a marker hidden in any of them shows here."""
    found = [text]
    if depth:
        for part in dict.fromkeys(_PARTS.split(text)):
            decoder = _remembered if len(part) <= _REMEMBERED else _revealed_decodings
            found.extend(decoder(part, depth))
    return "\n".join(found)


def _revealed_decodings(part: str, depth: int) -> tuple[str, ...]:
    """Every decoding of ``part`` (one part of a text: :data:`_PARTS`), itself revealed."""
    return tuple(revealed(decoded, depth - 1) for decoded in _decodings(part))


#: Parts up to this long are remembered (outputs repeat their lines; a long part is decoded each time).
_REMEMBERED = 32768
_remembered = functools.lru_cache(maxsize=1024)(_revealed_decodings)


def _decodings(text: str) -> list[str]:
    out = [urllib.parse.unquote(text), html.unescape(text)]
    try:
        out.append(json.loads(f'"{text}"'))
    except ValueError:
        unescaped = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m[1], 16)), text)
        for escape, char in (('\\"', '"'), ("\\n", "\n"), ("\\t", "\t"), ("\\/", "/"), ("\\\\", "\\")):
            unescaped = unescaped.replace(escape, char)
        out.append(unescaped)
    joined = re.sub(r"\r?\n(?=[A-Za-z0-9+/_-])", "", text)
    runs = r"[A-Za-z0-9+/_-]{12,}=*"
    for run in {*re.findall(runs, joined), *re.findall(runs, text)}:
        body = run.rstrip("=")
        for alt in (None, b"-_"):
            try:
                data = base64.b64decode(body + "=" * (-len(body) % 4), altchars=alt)
            except (binascii.Error, ValueError):
                continue
            if data[:2] == b"\x1f\x8b" or data[:1] == b"x":
                with contextlib.suppress(zlib.error):
                    data = zlib.decompress(data, 47)
            out.append(data.decode("utf-8", "replace"))
    return [item for item in out if item != text]


def _markers(text: str) -> set[str]:
    return set(MARKER.findall(revealed(text)))


def test_every_form_plants_one_marker_of_its_own() -> None:
    assert len(CASES) >= 400
    found = [_markers(_text(path)) for path in CASES]
    assert [path.name for path, markers in zip(CASES, found, strict=True) if len(markers) != 1] == []
    everything = [marker for markers in found for marker in markers]
    assert len(everything) == len(set(everything))
    assert {path.parent.name for path in CASES} == {
        "commands",
        "documents",
        "encodings",
        "schemes",
        "prose",
        "shapes",
    }


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_scrub_masks_the_form(path: Path) -> None:
    text = _text(path)
    scrubbed = scrub(text)
    assert _markers(scrubbed) == set(), scrubbed
    assert scrub(scrubbed) == scrubbed


UNMARKED = json.loads((FORMS.parent / "unmarked.json").read_text(encoding="utf-8"))
CLEAN = json.loads((FORMS.parent / "clean.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", UNMARKED, ids=[case["id"] for case in UNMARKED])
def test_scrub_masks_the_unmarked_form(case: dict[str, str]) -> None:
    scrubbed = scrub(case["text"])
    secret = case["secret"]
    pieces = {secret[i : i + 16] for i in range(0, max(1, len(secret) - 15), 4)}
    assert [piece for piece in pieces if piece in revealed(scrubbed)] == [], scrubbed


@pytest.mark.parametrize("text", CLEAN, ids=range(len(CLEAN)))
def test_ordinary_text_is_left_as_it_is(text: str) -> None:
    assert scrub(text) == text


# --- in payloads, through every command ----------------------------------------------------------

PLACES = ("/result/command", "/result/createdAt", "/result/envs/0/value", "/result/status")


def _job(form: str) -> dict[str, Any]:
    job = copy.deepcopy(json.loads(SEED.read_text(encoding="utf-8")))
    result = job["result"]
    result["command"] = result["createdAt"] = result["status"] = form
    result["envs"] = [{"name": "STARTUP_SCRIPT", "value": form}]
    return job


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every form carried by one AIHC job, a line each."""
    path = tmp_path_factory.mktemp("forms") / "jobs.ndjson"
    lines = [json.dumps(_job(_text(case))) for case in CASES]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _leaks(*texts: str) -> set[str]:
    return {marker for text in texts for marker in _markers(text)}


def test_redact_check_flags_every_place_of_every_form(run_cli, corpus: Path) -> None:
    out = run_cli(["redact", "--check", str(corpus)], code=1).stdout
    flagged = set(re.findall(r":(\d+): (\S+): unmasked secret \[redact\]", out))
    expected = {(str(line), place) for line in range(1, len(CASES) + 1) for place in PLACES}
    assert sorted(expected - flagged) == []


def test_redact_leaves_no_form_and_checks_clean(run_cli, corpus: Path, tmp_path: Path) -> None:
    out = run_cli(["redact", str(corpus)], code=0).stdout
    assert _leaks(out) == set()
    again = tmp_path / "redacted.ndjson"
    again.write_text(out, encoding="utf-8")
    assert run_cli(["redact", "--check", str(again)], code=0).stdout == ""


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "github", "sarif"])
@pytest.mark.parametrize("extra", [[], ["-v", "--strict"]])
def test_validate_prints_no_form(run_cli, corpus: Path, fmt: str, extra: list[str]) -> None:
    result = run_cli(["validate", "-f", fmt, *extra, str(corpus)], code=1)
    assert _leaks(result.stdout, result.stderr) == set()
    assert result.stdout.count("secret:") >= len(CASES)  # the values were shown, masked


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_diff_prints_no_form(run_cli, tmp_path: Path, fmt: str) -> None:
    forms = [_text(case) for case in CASES]
    left, right = _job("x"), _job("y")
    left["result"]["envs"] = [{"name": f"STEP_{i}", "value": f} for i, f in enumerate(forms)]
    right["result"]["envs"] = [{"name": f"STEP_{i}", "value": f} for i, f in enumerate(forms[1:] + forms[:1])]
    paths = tmp_path / "left.json", tmp_path / "right.json"
    for path, doc in zip(paths, (left, right), strict=True):
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    result = run_cli(["diff", "-f", fmt, *map(str, paths)], code=1)
    assert _leaks(result.stdout, result.stderr) == set()
    assert result.stdout.count("secret:") >= len(CASES)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_coverage_prints_no_form(run_cli, corpus: Path, fmt: str) -> None:
    result = run_cli(["coverage", "-f", fmt, "-v", str(corpus)], code=0)
    assert _leaks(result.stdout, result.stderr) == set()
    assert "secret:" in result.stdout
