"""The policy's name rules remember short names (a payload repeats its keys); the remembered answer
is the rule's, for short and long names alike (a long name is not kept, and is decided the same)."""

from __future__ import annotations

import pytest

from jobschema.secrets import names

NAMES = ["DATABASE_URL", "passwordSecret", "X-Api-Key", "encrypt", "user", "BORG_PASSCOMMAND", "replicas"]


@pytest.mark.parametrize("name", NAMES)
def test_value_decides_is_its_rule_for_short_and_long_names(name: str) -> None:
    long = "a_" * 70 + name  # (longer than 128 characters: decided, not remembered)
    for asked in (name, long):
        assert names.value_decides(asked) == names.value_decides(asked) == names._value_decides(asked)
    assert [names.value_decides(n) for n in ("DATABASE_URL", "passwordSecret", "replicas")] == [
        "locator",
        "object",
        None,
    ]
