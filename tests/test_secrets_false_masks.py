"""No false alarms: the secret policy's readers mask nothing in ordinary payloads.

- Every capture we ship (schemas/examples, tests/examples, tests/fixtures): the strings the readers
  mask are exactly the secrets planted there on purpose (tests/golden/secrets/shipped-masks.txt,
  rewritten only with ``--update-golden``); image digests, UUIDs, job ids, pod names, IPs,
  quantities, commands and event messages stay as they are.
- Payloads drawn from every bundled schema's strategies: no string outside a secret place (by the
  schema, by name, by pair) is masked by reading it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.apis.aihc import RAW_REQUEST_ANNOTATION
from jobschema.pointer import escape
from jobschema.secrets.policy import is_secret_place
from jobschema.secrets.reading import find
from jobschema.testing import SCHEMAS, payloads
from tests.support import REPO, compare_golden

SHIPPED = sorted(
    path
    for pattern in ("schemas/examples/**/*", "tests/examples/**/*", "tests/fixtures/**/*")
    for path in REPO.glob(pattern)
    if path.suffix in (".json", ".ndjson", ".jsonl", ".har") and "secrets" not in path.parts
)
GOLDEN = REPO / "tests" / "golden" / "secrets" / "shipped-masks.txt"


def _documents(path: Path) -> Iterator[tuple[str, Any]]:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in (".ndjson", ".jsonl"):
        for number, line in enumerate(text.splitlines(), 1):
            try:
                yield f":{number}", json.loads(line)
            except ValueError:
                continue
        return
    try:
        yield "", json.loads(text)
    except ValueError:
        return


def _strings(value: Any, pointer: str = "", keys: tuple[Any, ...] = ()) -> Iterator[tuple[str, str]]:
    """Every string outside a secret place (keys too), with its pointer; an embedded raw-request
    document is walked as the document it is."""
    if isinstance(value, dict):
        for key, item in value.items():
            below = (*keys[-2:], key)
            yield f"{pointer}/{escape(key)}#key", key
            if is_secret_place(below, value):
                continue
            inner = _embedded(item) if key == RAW_REQUEST_ANNOTATION else item
            yield from _strings(inner, f"{pointer}/{escape(key)}", below)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if not is_secret_place((*keys[-1:], index), value):
                yield from _strings(item, f"{pointer}/{index}", (*keys[-1:], index))
    elif isinstance(value, str):
        yield pointer, value


def _embedded(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def test_shipped_captures_are_masked_only_where_a_secret_was_planted(update_golden: bool) -> None:
    assert len(SHIPPED) > 100
    masked, read = [], 0
    for path in SHIPPED:
        for line, document in _documents(path):
            for pointer, text in _strings(document):
                read += 1
                if find(text):
                    masked.append(f"{path.relative_to(REPO)}{line} {pointer}")
    assert read > 40_000
    compare_golden(GOLDEN, "".join(f"{entry}\n" for entry in masked), update_golden)


@pytest.mark.parametrize("schema", SCHEMAS)
@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_payloads_have_nothing_masked_by_reading(schema: str, data: st.DataObject) -> None:
    payload = data.draw(payloads(schema))
    assert [(pointer, text) for pointer, text in _strings(payload) if find(text)] == []
