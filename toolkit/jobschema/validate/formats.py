"""The ``format`` checks jobschema asserts, shared by the fast and the detailed validator.

Both validators get these same functions, so they can never disagree on a format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jsonschema import FormatChecker

#: RFC 3339 ``date-time`` with every field's range but the day of month (checked after a match).
_DATE_TIME = (
    r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)"
    r"(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
)
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_HOST_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled on first use: the compiled pass checks date-times and UUIDs in
    jsonschema-rs (:data:`AS_PATTERNS`), so a clean run never needs these."""
    return re.compile(pattern)


def is_date_time(value: str) -> bool:
    """RFC 3339 ``date-time``: ``2024-07-16T17:20:04Z``, fractions and offsets allowed."""
    if _compiled(_DATE_TIME).fullmatch(value) is None:
        return False
    day = value[8:10]
    if day < "29":  # every month has it
        return True
    month = int(value[5:7])
    if int(day) > _DAYS[month - 1]:
        return False
    return month != 2 or day != "29" or _leap(int(value[:4]))


def is_uuid(value: str) -> bool:
    """RFC 4122 textual UUID: 8-4-4-4-12 hexadecimal digits."""
    return _compiled(_UUID).fullmatch(value) is not None


def is_hostname(value: str) -> bool:
    """RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens."""
    if not value or len(value) > 253:
        return False
    labels = value[:-1].split(".") if value.endswith(".") else value.split(".")
    return all(_HOST_LABEL.fullmatch(label) for label in labels)


_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[048]|[2468][048]|[13579][26])00)"
_MONTH_DAY = (
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    r"|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
#: :func:`is_date_time` as one regular expression (the day of month and leap years included), for a
#: regex engine that runs without a Python call per value (jsonschema-rs's ``pattern``).
DATE_TIME_PATTERN = (
    rf"^(?:[0-9]{{4}}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)"
    r"(?:\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$"
)
#: :func:`is_uuid` as one regular expression.
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

#: format name -> predicate over strings (non-strings always pass, as JSON Schema says).
FORMATS: dict[str, Callable[[str], bool]] = {
    "date-time": is_date_time,
    "hostname": is_hostname,
    "uuid": is_uuid,
}


def format_checker() -> FormatChecker:
    """A python-jsonschema ``FormatChecker`` that asserts exactly :data:`FORMATS`."""
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, predicate in FORMATS.items():
        checker.checks(name)(_strings_only(predicate))
    return checker


def _strings_only(predicate: Callable[[str], bool]) -> Callable[[object], bool]:
    def check(instance: object) -> bool:
        return not isinstance(instance, str) or predicate(instance)

    return check


_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
#: :func:`is_hostname` as one regular expression (with a ``maxLength`` of 253 beside it).
HOSTNAME_PATTERN = rf"^{_LABEL}(?:\.{_LABEL})*\.?$"

#: format name -> (its function, the constraints that accept exactly the same strings).
AS_PATTERNS: dict[str, tuple[Callable[[str], bool], dict[str, str | int]]] = {
    "date-time": (is_date_time, {"pattern": DATE_TIME_PATTERN}),
    "uuid": (is_uuid, {"pattern": UUID_PATTERN}),
    "hostname": (is_hostname, {"pattern": HOSTNAME_PATTERN, "maxLength": 253}),
}
