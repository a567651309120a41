"""The sentinel of a property a payload leaves out, from where this Pydantic keeps it.

Written by ``jobschema generate``: Pydantic 2.14 made ``MISSING`` public (an import from
``pydantic.experimental`` warns there); 2.12 and 2.13 have it only in ``pydantic.experimental``.
"""

from __future__ import annotations

try:
    from pydantic import MISSING  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # Pydantic 2.12 and 2.13
    from pydantic.experimental.missing_sentinel import MISSING  # type: ignore[no-redef,unused-ignore]

__all__ = ["MISSING"]
