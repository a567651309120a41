"""Validate payloads that are not files: parsed values or JSON texts, each named or not.

An item is a parsed JSON value (a dict, list, ...), JSON text (``str`` or ``bytes``: parsed exactly
as a ``.json`` file with those bytes, so duplicate keys, long numbers, bad UTF-8 and parse errors are
reported with their line and column in the text), or a ``(source, payload)`` pair that names it in
the report. Unnamed items are all named ``name`` (``<payload>``, as :func:`validate_payload` does).

>>> from jobschema.validate.payloads import validate_payloads
>>> report = validate_payloads([("ok.json", '{"code": 404, "message": "Resource id not found."}')])
>>> report.ok, report.summary()["inputs"]
(True, 1)

:mod:`jobschema.validate.parallel.dask` runs the same check on a Dask bag; this is its local run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from jobschema.findings import Report
from jobschema.inputs.payload import Payload
from jobschema.inputs.read import document
from jobschema.text import several
from jobschema.validate.session import Session, Settings
from jobschema.validate.tally import Tally, tally_payloads

#: The source of an item that is not named with a ``(source, payload)`` pair.
UNNAMED = "<payload>"


def validate_payloads(
    items: Iterable[Any],
    schema: str | None = None,
    *,
    strict: bool = False,
    skip_unknown: bool = False,
    keep_clean: bool = True,
    name: str = UNNAMED,
    api_versions: Mapping[str, str] | None = None,
) -> Report:
    """Check every item (a parsed value, JSON text, or a ``(source, payload)`` pair), in order.

    The options are those of :func:`~jobschema.validate.validate_paths`; ``name`` is the source of
    unnamed items.
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected the source of unnamed items as a str, not {type(name).__name__}")
    several(items, "items", "payloads", " (validate_payload checks one payload)")
    settings = Settings.of(schema, strict, skip_unknown, keep_clean, api_versions)
    session = Session(settings)
    session.forced()
    return check_items(session, items, name).report()


def check_items(session: Session, items: Iterable[Any], name: str = UNNAMED) -> Tally:
    """The tally of checking ``items`` within ``session`` (one Dask partition, or a whole local run)."""
    return tally_payloads(session, loaded(items, name))


def loaded(items: Iterable[Any], name: str = UNNAMED) -> Iterator[Payload]:
    """Each item as the payload the checker takes."""
    for item in items:
        yield as_payload(item, name)


def as_payload(item: Any, name: str = UNNAMED) -> Payload:
    """One item as a payload: JSON text is parsed (as a file's bytes are), a value is taken as it is."""
    source, value = named(item, name)
    if isinstance(value, str):
        return document(source, None, value.encode("utf-8", "surrogatepass"))
    if isinstance(value, bytes | bytearray | memoryview):
        return document(source, None, bytes(value))
    return Payload(source, None, value=value)


def named(item: Any, name: str = UNNAMED) -> tuple[str, Any]:
    """``(source, payload)`` of an item: its own name when it is such a pair, else ``name``."""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        return item[0], item[1]
    return name, item
