"""The bounds every recording keeps, whatever its options say, and the defaults of the options that
set the others (imported by ``--help`` too)."""

from __future__ import annotations

#: Polls per job at most, and seconds of one recording at most (7 days).
MAX_POLLS = 100_000
MAX_DURATION = 7 * 24 * 3600.0
#: Polls a job gets while the API has never answered anything (every request a network failure: a
#: mistyped --url, a stopped stub, a closed port) before its recording ends as unreachable. Once the
#: API has answered once, even with an error, an outage is polled through.
UNREACHABLE_POLLS = 3
#: The pause between rounds varies by this share either way, so many recorders do not beat in step.
JITTER = 0.1
#: The largest answer body kept, in decoded bytes (``--max-body``'s default, and its range): a larger
#: one is an error answer, recorded without its body.
MAX_BODY = 64 * 1024 * 1024
MIN_BODY = 1024
TOP_BODY = 4 * 1024**3
#: Decoded bytes produced per step while reading a body: reading stops within a step of the cap.
BODY_STEP = 64 * 1024
#: The most content codings an answer may name (``Content-Encoding: deflate, gzip`` is two): a longer
#: chain is a decoding error, not a decoder per name.
MAX_CODINGS = 4
#: The most Run:ai clusters asked for their version in one recording: a server naming a new cluster
#: in every answer costs no more requests, nor memory, past these.
MAX_CLUSTERS = 16
#: The most times one cluster is asked in one recording: at its first snapshot, then again when the
#: question failed (a 503, a dropped connection) or a snapshot holds what the version answered lacks
#: (the cluster was upgraded while it was recorded).
CLUSTER_ASKS = 4
