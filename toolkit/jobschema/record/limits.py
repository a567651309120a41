"""The bounds every recording keeps, whatever its options say (imported by ``--help`` too)."""

from __future__ import annotations

#: Polls per job at most, and seconds of one recording at most (7 days).
MAX_POLLS = 100_000
MAX_DURATION = 7 * 24 * 3600.0
#: The pause between rounds varies by this share either way, so many recorders do not beat in step.
JITTER = 0.1
