"""The compiled pass checks ``date-time`` and ``uuid`` with a ``pattern`` in jsonschema-rs's regex
engine instead of a Python call per value: each pattern must accept exactly the strings its function
in :mod:`jobschema.validate.formats` accepts. Proved on the engine itself: every calendar day of the
years around each leap rule, every field just inside and outside its range, and random text."""

from __future__ import annotations

import itertools
import re
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.validate.formats import (
    AS_PATTERNS,
    DATE_TIME_PATTERN,
    HOSTNAME_PATTERN,
    UUID_PATTERN,
    is_date_time,
    is_hostname,
    is_uuid,
)
from jobschema.validate.shortcuts.quick import derive, plain_pattern


def _engine(pattern: str) -> Any:
    return jsonschema_rs.validator_for({"type": "string", "pattern": pattern})


DATE_TIME = _engine(DATE_TIME_PATTERN)
UUID = _engine(UUID_PATTERN)
YEARS = ["0000", "0004", "0100", "0400", "1600", "1700", "1896", "1900", "1904", "2000", "2023", "2024"]
YEARS += ["2100", "2400", "9996", "9999"]


@pytest.mark.parametrize("year", YEARS)
def test_every_month_and_day_of_a_year(year: str) -> None:
    for month, day in itertools.product(range(14), range(33)):
        text = f"{year}-{month:02d}-{day:02d}T12:00:00Z"
        assert DATE_TIME.is_valid(text) is is_date_time(text), text


TIMES = ["00:00:00", "23:59:59", "23:59:60", "24:00:00", "12:60:00", "12:00:61", "1:00:00", "12:00"]
FRACTIONS = ["", ".5", ".123456789", ".", ".x"]
ZONES = ["Z", "z", "+00:00", "-23:59", "+24:00", "+01:60", "+0100", "", "UTC", "Z\n"]


def test_every_time_fraction_and_zone_around_their_limits() -> None:
    for time, fraction, zone, sep in itertools.product(TIMES, FRACTIONS, ZONES, ["T", "t", " ", "_"]):
        text = f"2024-02-29{sep}{time}{fraction}{zone}"
        assert DATE_TIME.is_valid(text) is is_date_time(text), text


DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=5)
PIECES = st.one_of(DIGITS, st.sampled_from(["-", ":", "T", "t", "Z", "z", ".", "+", " ", "\n", "٣", "a"]))
NEAR_DATE_TIME = st.lists(PIECES, max_size=16).map("".join)


@settings(max_examples=3000, deadline=None)
@given(st.one_of(NEAR_DATE_TIME, st.text(max_size=40)))
def test_random_text_is_judged_alike_as_date_time(text: str) -> None:
    assert DATE_TIME.is_valid(text) is is_date_time(text)


def _near(alphabet: str, run: int, pieces: list[str]) -> st.SearchStrategy[str]:
    """Text of up to 12 runs of ``alphabet`` (up to ``run`` long each) and ``pieces``."""
    return st.lists(
        st.one_of(st.text(alphabet=alphabet, max_size=run), st.sampled_from(pieces)), max_size=12
    ).map("".join)


NEAR_UUID = _near("0123456789abcdefABCDEF", 13, ["-", "g", "{", "}", "\n", " ", "٣"])


@settings(max_examples=3000, deadline=None)
@given(st.one_of(NEAR_UUID, st.text(max_size=40)))
def test_random_text_is_judged_alike_as_uuid(text: str) -> None:
    assert UUID.is_valid(text) is is_uuid(text)


HOSTNAME = jsonschema_rs.validator_for({"type": "string", "allOf": [AS_PATTERNS["hostname"][1]]})
NEAR_HOSTNAME = _near("aZ09-", 64, [".", "-", "_", "\n", " ", "é", "a" * 63, "b" * 64])


@settings(max_examples=3000, deadline=None)
@given(st.one_of(NEAR_HOSTNAME, st.text(max_size=40)))
def test_random_text_is_judged_alike_as_hostname(text: str) -> None:
    assert HOSTNAME.is_valid(text) is is_hostname(text)


def test_a_hostname_and_its_near_misses() -> None:
    label = "a" + "-" * 61 + "b"
    longest = ".".join([label[:62]] * 4)  # 4 * 62 + 3 dots + 2 = 253 characters with "a."
    for text in (
        "",
        ".",
        "a.",
        "a..",
        "-a",
        "a-",
        label,
        label + "c",
        "a." + longest,
        "a.b" + longest,
        "a\n",
    ):
        assert HOSTNAME.is_valid(text) is is_hostname(text), text


PLAIN = ["^[a-z0-9]([a-z0-9-]*[a-z0-9])?$", "^[a-z]+(job)?-[0-9a-f-]{36}$", "a|b-c{2,}", "^x(?:yz)*?$"]
NEAR_PLAIN = st.lists(st.sampled_from(["a", "b", "c", "z", "0", "9", "-", "job", "x", "yz", "\n", "A", "é"]))


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(PLAIN), st.one_of(NEAR_PLAIN.map("".join), st.text(max_size=20)))
def test_plain_patterns_match_in_jsonschema_rs_as_in_python(pattern: str, text: str) -> None:
    native = plain_pattern(pattern)
    assert native is not None
    engine = _engine(native)
    assert engine.is_valid(text) is (re.search(pattern, text) is not None)


@pytest.mark.parametrize(
    "pattern", ["\\d", "\\w+", "a.b", "(?i)a", "(?=a)", "a$b", "[a--b]", "[[:alpha:]]", "^^a", "a**", "\\$"]
)
def test_other_expressions_are_not_plain(pattern: str) -> None:
    assert plain_pattern(pattern) is None


def test_a_uuid_and_its_near_misses() -> None:
    good = "989dc56f-2b14-42be-88ea-b7aff7cff031"
    for text in (
        good,
        good.upper(),
        good[:-1],
        good + "0",
        good.replace("-", ""),
        f"{{{good}}}",
        good + "\n",
    ):
        assert UUID.is_valid(text) is is_uuid(text), text


def test_the_compiled_pass_holds_patterns_not_python_formats() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "at": {"type": "string", "format": "date-time"},
            "id": {"$ref": "#/$defs/id"},
            "host": {"type": "string", "format": "hostname"},
            "format": {"type": "string", "format": "uuid", "pattern": "^9"},
        },
        "$defs": {"id": {"type": "string", "format": "uuid"}},
    }
    formats = {name: function for name, (function, _pattern) in AS_PATTERNS.items()}
    derived = derive(schema, formats)
    assert derived is not None
    properties = derived.document["properties"]
    assert properties["at"] == {"type": "string", "allOf": [{"pattern": DATE_TIME_PATTERN}]}
    assert derived.document["$defs"]["id"] == {"type": "string", "allOf": [{"pattern": UUID_PATTERN}]}
    assert properties["host"] == {
        "type": "string",
        "allOf": [{"pattern": HOSTNAME_PATTERN, "maxLength": 253}],
    }
    assert properties["format"] == {"type": "string", "pattern": "^9", "allOf": [{"pattern": UUID_PATTERN}]}
    assert schema["properties"]["at"]["format"] == "date-time"  # the schema itself is left alone
    validator = jsonschema_rs.validator_for(derived.document)
    assert validator.is_valid({"at": "2024-02-29T00:00:00Z", "id": "989dc56f-2b14-42be-88ea-b7aff7cff031"})
    assert not validator.is_valid({"at": "2023-02-29T00:00:00Z"})
    assert not validator.is_valid({"id": "989dc56f"})
    assert derive(schema, {}).document["properties"]["at"]["format"] == "date-time"
