"""Did the job change since the last recorded snapshot? Decided by the diff engine, not by bytes.

Snapshots are compared by meaning (:func:`jobschema.diff.diff_documents`: reordered keys or list
items matched by their keys, ``1`` against ``1.0``, ``"1Gi"`` against ``"1073741824"`` are no change).
Per-answer noise is left out: the API's own (AIHC's ``requestId``, :data:`jobschema.apis.aihc.NOISE`),
the pointers given with ``--ignore``, and with ``--ignore-volatile`` every field the schemas mark as
server-populated state. A new phase or status is always a change, whatever is ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jobschema.diff import DiffInputError, DiffOptions, diff_documents

Phase = Callable[[Any], "str | None"]


@dataclass(frozen=True)
class ChangeDetector:
    """Compares two snapshots of one job."""

    phase: Phase
    ignore: tuple[str, ...] = ()
    ignore_volatile: bool = False

    def changed(self, before: Any, after: Any) -> bool:
        """True when ``after`` shows the job changed since ``before`` (always for a first snapshot)."""
        if before is None or self.phase(before) != self.phase(after):
            return True
        options = DiffOptions(ignore_volatile=self.ignore_volatile, ignore=self.ignore, show_secrets=True)
        try:
            return not diff_documents(before, after, options=options).same
        except DiffInputError:  # the answer no longer fits the schema it had: that is a change
            return True
