"""Errors that stop a run. Problems in the data are findings, never exceptions."""

from __future__ import annotations


class ToolkitError(Exception):
    """A condition that stops the run; the CLI prints ``Error: <message>`` and exits ``exit_code``."""

    exit_code = 2


class SchemaNotFound(ToolkitError):
    """A schema name or path that names no schema."""


class SchemaInvalid(ToolkitError):
    """A schema file that is not valid JSON or not a valid JSON Schema."""


class InputNotFound(ToolkitError):
    """An input path, folder or glob that names no payload."""
