"""Validation on a Dask cluster: the public name of :mod:`jobschema.validate.parallel.dask`.

>>> from jobschema.validate.dask import connect, validate_bag, validate_files  # doctest: +SKIP
"""

from __future__ import annotations

from jobschema.validate.parallel.dask import (
    connect,
    validate_bag,
    validate_dataframe,
    validate_expanded,
    validate_files,
)

__all__ = ["connect", "validate_bag", "validate_dataframe", "validate_expanded", "validate_files"]
