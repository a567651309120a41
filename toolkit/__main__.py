"""``python -m toolkit`` runs the ``jobschema`` command line."""

from __future__ import annotations

from toolkit.cli import main

main()
