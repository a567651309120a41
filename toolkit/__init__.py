"""jobschema: validate and diff recorded Run:ai and Baidu AIHC job API payloads.

The library is usable without the command line; importing it loads neither click nor pydantic.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
