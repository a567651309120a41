"""The format functions (jobschema.validate.formats): exact cases, and a plain field-by-field reading of
RFC 3339 as the oracle for ``date-time`` on many near-valid strings."""

from __future__ import annotations

import random
import re

import pytest

from jobschema.validate.formats import is_date_time, is_hostname, is_uuid

FIELDS = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))", re.ASCII
)
DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def oracle(value: str) -> bool:
    """RFC 3339 section 5.6 read field by field (leap second 60 allowed, as RFC 3339 does)."""
    match = FIELDS.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= month <= 12 or not 1 <= day <= DAYS[month - 1] or (month, day, leap) == (2, 29, False):
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    return match.group(9) is None or (int(match.group(9)) <= 23 and int(match.group(10)) <= 59)


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("2024-07-16T17:20:04Z", True),
        ("2024-07-16t17:20:04.123456789+05:30", True),
        ("2024-02-29T00:00:00Z", True),
        ("2023-02-29T00:00:00Z", False),
        ("1900-02-29T00:00:00Z", False),
        ("2000-02-29T00:00:00Z", True),
        ("2024-04-31T00:00:00Z", False),
        ("2024-12-31T23:59:60Z", True),
        ("2024-12-31T24:00:00Z", False),
        ("2024-13-01T00:00:00Z", False),
        ("2024-00-01T00:00:00Z", False),
        ("2024-01-00T00:00:00Z", False),
        ("2024-01-01T00:00:00+24:00", False),
        ("2024-01-01T00:00:00-23:59", True),
        ("2024-01-01T00:00:00", False),
        ("2024-01-01 00:00:00Z", False),
        ("2024-01-01T00:00:00Z\n", False),
        ("+024-07-16T17:20:04Z", False),
        ("2024-07-16T17:20:04.Z", False),
        ("٢٠٢٤-07-16T17:20:04Z", False),
    ],
)
def test_date_time(value: str, valid: bool) -> None:
    assert is_date_time(value) is valid
    assert oracle(value) is valid


def test_date_time_agrees_with_the_oracle_near_valid_values() -> None:
    rng = random.Random(6)
    alphabet = "0123456789:-+.TtZz "
    values = []
    for _ in range(40_000):
        chars = list(
            f"{rng.randint(0, 2400):04d}-{rng.randint(0, 13):02d}-{rng.randint(0, 32):02d}T"
            f"{rng.randint(0, 25):02d}:{rng.randint(0, 61):02d}:{rng.randint(0, 61):02d}"
            f"{rng.choice(['', '.5', '.123'])}{rng.choice(['Z', '+05:30', '-24:00', '+01:60'])}"
        )
        if rng.random() < 0.3:
            chars[rng.randrange(len(chars))] = rng.choice(alphabet)
        values.append("".join(chars))
    assert [v for v in values if is_date_time(v) != oracle(v)] == []
    assert sum(map(is_date_time, values)) > 5_000


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("0b6c7f0e-7d6b-4c4e-9a52-0f1c2d3e4f50", True),
        ("0B6C7F0E-7D6B-4C4E-9A52-0F1C2D3E4F50", True),
        ("0b6c7f0e-7d6b-4c4e-9a52-0f1c2d3e4f5", False),
        ("0b6c7f0e7d6b4c4e9a520f1c2d3e4f50", False),
        ("0b6c7f0e-7d6b-4c4e-9a52-0f1c2d3e4f50\n", False),
        ("string", False),
    ],
)
def test_uuid(value: str, valid: bool) -> None:
    assert is_uuid(value) is valid


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("node-1.example.com", True),
        ("example.com.", True),
        ("a" * 63, True),
        ("a" * 64, False),
        ("-a.com", False),
        ("a_b.com", False),
        ("a..b", False),
        ("", False),
        ("host\n", False),
        (".".join(["a" * 63] * 4), False),  # 255 characters
    ],
)
def test_hostname(value: str, valid: bool) -> None:
    assert is_hostname(value) is valid
