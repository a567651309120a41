"""Masking credentials in captures: parsed payloads, JSON, NDJSON and HAR text, edited in place."""

from __future__ import annotations

from jobschema.redact.core import redact_bytes, redact_payload, redact_text, unmasked_secrets

__all__ = ["redact_bytes", "redact_payload", "redact_text", "unmasked_secrets"]
