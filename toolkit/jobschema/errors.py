"""Errors that stop a run. Problems in the data are findings, never exceptions."""

from __future__ import annotations

from collections.abc import Iterable


class ToolkitError(Exception):
    """A condition that stops the run; the CLI prints ``Error: <message>`` and exits ``exit_code``."""

    exit_code = 2


class SchemaNotFound(ToolkitError):
    """A schema name or path that names no schema."""


class SchemaInvalid(ToolkitError):
    """A schema file that is not valid JSON or not a valid JSON Schema."""


class InputNotFound(ToolkitError):
    """An input path, folder or glob that names no payload."""


class CannotCompare(ToolkitError):
    """Two sides ``jobschema changes`` cannot compare: schemas that do not pair, a document that
    holds schemas without naming one."""


class MissingExtra(ToolkitError):
    """A command needs an optional extra (``pip install 'jobschema[EXTRA]'``) that is not installed."""


def require_extra(
    extra: str, what: str, modules: Iterable[str], error: type[ToolkitError] = MissingExtra
) -> None:
    """Import ``modules`` (what the extra ``extra`` installs that the caller needs); the first that
    cannot be imported raises ``error``, one line: ``WHAT is not installed (WHY); install
    jobschema[EXTRA]: pip install 'jobschema[EXTRA]'``. A command calls it before it starts, so a
    missing package is this, never an internal error halfway (or at a server's first request)."""
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as err:
            hint = f"install jobschema[{extra}]: pip install 'jobschema[{extra}]'"
            raise error(f"{what} is not installed ({err}); {hint}") from None
