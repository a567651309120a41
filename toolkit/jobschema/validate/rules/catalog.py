"""Every rule id a finding can carry that is not a JSON Schema keyword: input checks, annotation
checks and the semantic rules, with their severity and a one-line description."""

from __future__ import annotations

from jobschema.findings import Severity

#: rule id -> (severity, description) for checks built into the validator
BUILTIN: dict[str, tuple[Severity, str]] = {
    "read-error": ("error", "The input file cannot be read"),
    "encoding": ("error", "The input is empty, binary, or not UTF-8 text"),
    "parse-error": ("error", "The input is not valid JSON (NaN and Infinity are not JSON)"),
    "duplicate-key": ("warning", "An object repeats a key; JSON parsers keep only the last value"),
    "lone-surrogate": (
        "warning",
        "A string holds a lone surrogate escape (\\ud800): no Unicode character, and readers differ",
    ),
    "har": ("error", "A HAR entry for a job endpoint has no usable response body"),
    "no-schema": ("error", "No bundled schema fits the payload's shape; pass --schema"),
    "ambiguous-schema": (
        "error",
        "The payload holds the marks of more than one bundled schema (an AIHC v1 'result' beside a v2 "
        "'job'); none is guessed: pass --schema",
    ),
    "nesting": ("error", "The payload is nested too deeply to validate"),
    "embedded-json": ("error", "A string that must hold a JSON document does not parse"),
    "known-values": ("warning", "An open string holds a value not seen in the API's documentation so far"),
    "soft-format": ("warning", "A documented format that the API itself does not always follow"),
    "soft-pattern": ("warning", "A documented pattern that the API itself does not always follow"),
    "deprecated": ("warning", "The field is deprecated in the API"),
    "not-in-version": (
        "error",
        "--api-version (or a capture's cluster version): a property or enum value that version of the "
        "API does not have; the message names the version that added or removed it",
    ),
    "unknown-property": (
        "warning",
        "--strict: a property the schema does not declare (the API added a field?)",
    ),
}


def descriptions() -> dict[str, str]:
    """Rule id -> description, for every built-in and semantic rule."""
    from jobschema.validate import rules

    found = {rule_id: text for rule_id, (_, text) in BUILTIN.items()}
    found.update({item.id: item.description for item in rules.all_rules()})
    return found
