"""``python -m jobschema`` runs the ``jobschema`` command line."""

from __future__ import annotations

from jobschema.cli import run

run()
