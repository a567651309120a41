"""The ``format`` checks jobschema asserts, shared by the fast and the detailed validator.

Both validators get these same functions, so they can never disagree on a format.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_DATE_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$",
    re.ASCII,
)
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HOST_LABEL = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def is_date_time(value: str) -> bool:
    """RFC 3339 ``date-time``: ``2024-07-16T17:20:04Z``, fractions and offsets allowed."""
    match = _DATE_TIME.match(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12 or day < 1 or day > _DAYS[month - 1]:
        return False
    if month == 2 and day == 29 and not _leap(year):
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    if match.group(9) is not None:
        return int(match.group(9)) <= 23 and int(match.group(10)) <= 59
    return True


def is_uuid(value: str) -> bool:
    """RFC 4122 textual UUID: 8-4-4-4-12 hexadecimal digits."""
    return _UUID.match(value) is not None


def is_hostname(value: str) -> bool:
    """RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens."""
    if not value or len(value) > 253:
        return False
    labels = value[:-1].split(".") if value.endswith(".") else value.split(".")
    return all(_HOST_LABEL.match(label) for label in labels)


#: format name -> predicate over strings (non-strings always pass, as JSON Schema says).
FORMATS: dict[str, Callable[[str], bool]] = {
    "date-time": is_date_time,
    "hostname": is_hostname,
    "uuid": is_uuid,
}


def format_checker() -> object:
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
