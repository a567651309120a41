"""Secrets by place: which members of a payload (or of a document inside one) hold a credential."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from jobschema.secrets.names import is_secret_name, is_secret_parameter, qualified_key, words
from jobschema.secrets.table import (
    HOST_TOKEN_MAPS,
    JWK_PRIVATE_MEMBERS,
    LOGIN_HOLDERS,
    LOGIN_KEYS,
    NOT_HELD_KEYS,
    PAIR_NAMES,
    PAIR_VALUES,
    REFERENCE_WORDS,
    SECRET_CONTAINERS,
    SECRET_KEYS,
    SECRET_MEMBERS,
    USER_KEYS,
    USER_NAMES,
)
from jobschema.secrets.values import credential_in, plausible


def is_scalar(value: Any) -> bool:
    """True for a string, number or boolean (what a credential can be), or a list of them."""
    if isinstance(value, list):
        return all(isinstance(item, str | int | float) for item in value)
    return isinstance(value, str | int | float)


def is_secret_place(keys: Sequence[str | int | None], parent: Any) -> bool:
    """True when the member ``keys[-1]`` of ``parent`` holds a credential (by rule, not schema).

    ``keys`` are the last keys of its path, nearest last (up to three are looked at; an array index
    is an int, or None when unknown). The rules (the table's places, :mod:`jobschema.secrets.table`):

    - a member named like a credential (:func:`is_secret_name`) holding a scalar or a list of
      scalars (an object under such a name is looked into instead: a JSON Schema's ``password``
      property, Run:ai's ``userCredential`` reference); under a name that lets its value decide
      (``accessKeySecret``, ``CONN_STR``: :func:`~jobschema.secrets.names.value_decides`), a value
      that is the credential (:func:`~jobschema.secrets.values.credential_in`);
    - the ``value`` (``val``, ``v``) beside a credential-like ``name`` or ``key`` (``k``) (AIHC
      ``envs``, Run:ai ``environmentVariables``, Kubernetes ``env``, labels and annotations as
      ``{key, value}``, HAR headers, query and form parameters), the ``value`` of a member named like
      a credential (``{"WANDB_API_KEY": {"value": …}}``), and every cookie ``value``;
    - the registry login (``imageConfig.username``/``password``), the keys of :data:`SECRET_KEYS`, and
      the members of :data:`SECRET_MEMBERS` (cloud-init's ``chpasswd: {list: …}``);
    - whatever a Kubernetes Secret holds (``data``, ``stringData`` of an object of ``kind: Secret``);
    - in an argument list (``["mysql", "-p", "X"]``, ``["--token", "X"]``), the word a credential
      option takes (:func:`jobschema.secrets.commands.secret_arguments`).
    """
    key = keys[-1] if keys else None
    if isinstance(key, int) and isinstance(parent, list):
        return 0 <= key < len(parent) and isinstance(parent[key], str) and _is_secret_argument(parent, key)
    if not isinstance(key, str) or not isinstance(parent, dict):
        return False
    if (key in _CONTAINED and parent.get("kind") == _CONTAINED[key]) or _jwk_private(key, parent):
        return True  # the data of a Kubernetes Secret, the private part of a JSON Web Key
    above = keys[-2] if len(keys) > 1 else None
    if key in PAIR_VALUES and _pair_value(keys, parent):
        return True
    named = is_secret_name(key) or key in SECRET_KEYS or (key in LOGIN_KEYS and above in LOGIN_HOLDERS)
    if isinstance(above, str) and (above, key) in SECRET_MEMBERS:  # chpasswd's list: a text or a list
        return True
    named = named or (key in USER_KEYS and _beside_a_user(parent))
    named = named or (isinstance(above, str) and _host_token(above, key, parent.get(key)))
    named = named or (isinstance(above, str) and _held_under(above, key, parent.get(key)))
    named = named or (isinstance(above, str) and qualified_key(above, key))
    return (named and is_scalar(parent.get(key))) or credential_in(key, parent.get(key))


def _jwk_private(key: str, parent: dict[str, Any]) -> bool:
    """A JSON Web Key's private member (``d``, ``k``: :data:`JWK_PRIVATE_MEMBERS`) in an object with a
    ``kty``."""
    return (
        key in JWK_PRIVATE_MEMBERS and isinstance(parent.get("kty"), str) and isinstance(parent.get(key), str)
    )


def _held_under(above: str, key: str, value: Any) -> bool:
    """A string (or strings) in an object under a credential's name, not under a key that refers to
    where the credential is kept or describes it (:data:`NOT_HELD_KEYS`, ``x-`` annotations): a
    ``plain`` member holds it, a ``secretKeyRef`` (``{"name": "db", "key": "pw"}``) refers to it."""
    if not is_secret_name(above) or not _holds_strings(value):
        return False
    found = words(key)
    if not found or found[0] == "x" or found[-1] in REFERENCE_WORDS:  # (``x-…``: an annotation)
        return False
    if any(word in NOT_HELD_KEYS for word in found):
        return False
    items = value if isinstance(value, list) else [value]
    return any(plausible(item, key, True) for item in items)


def _holds_strings(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and bool(value) and all(isinstance(item, str) for item in value)
    )


_HOST = re.compile(r"[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+(?::\d{1,5})?")


def _host_token(above: str, key: str, value: Any) -> bool:
    """A host's string under a map of hosts to tokens (``{"github-oauth": {"github.com": X}}``)."""
    if not isinstance(value, str) or _HOST.fullmatch(key) is None:
        return False
    return above.lower() in HOST_TOKEN_MAPS or is_secret_name(above)


#: The members that may hold a container's credentials, and the kinds of container they belong to.
_CONTAINED = {member: kind for kind, members in SECRET_CONTAINERS for member in members}


def _beside_a_user(parent: dict[str, Any]) -> bool:
    """A user's name stands in the object (a login: ``{"username": "bob", "key": "…"}``)."""
    return any(isinstance(parent.get(name), str) for name in USER_NAMES)


def _is_secret_argument(argv: list[Any], index: int) -> bool:
    from jobschema.secrets.commands import is_secret_argument  # loaded when a list of strings is first judged

    return is_secret_argument(argv, index)


def _pair_value(keys: Sequence[str | int | None], parent: dict[str, Any]) -> bool:
    if len(keys) > 2 and isinstance(keys[-3], str) and keys[-3].lower() == "cookies":
        return True
    above = keys[-2] if len(keys) > 1 else None
    if isinstance(above, str) and is_secret_name(above):  # {"WANDB_API_KEY": {"value": …}}
        return True
    value = parent.get(keys[-1]) if keys and isinstance(keys[-1], str) else None
    if any(_names_pair(member, parent.get(member), value) for member in PAIR_NAMES):
        return True
    return _stored_secret(parent) or _patched_secret(parent)


def _patched_secret(parent: dict[str, Any]) -> bool:
    """A JSON Patch operation (RFC 6902) giving a member named like a credential its ``value``:
    ``{"op": "replace", "path": "/data/password", "value": X}`` (``kubectl patch --type=json``)."""
    path = parent.get("path")
    if not isinstance(parent.get("op"), str) or not isinstance(path, str):
        return False
    last = path.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    return is_secret_name(last)


#: Members naming what a secret store answered with: its secret's identifier.
_STORED_IDS = ("id", "Id", "ID", "name", "Name", "secretId")


def _stored_secret(parent: dict[str, Any]) -> bool:
    """A secret store's answer: the ``value`` beside an identifier naming a secret (Azure Key Vault's
    ``{"id": "https://kv.vault.azure.net/secrets/db/1", "value": X}``, Google's ``projects/p/secrets/db``)."""
    return any(
        isinstance(ident := parent.get(member), str) and _STORED_ID.match(ident) is not None
        for member in _STORED_IDS
    )


#: A secret's identifier in a store: Azure Key Vault's (``https://kv.vault.azure.net/secrets/db/1``),
#: Google Secret Manager's (``projects/p/secrets/db/versions/1``).
_STORED_ID = re.compile(
    r"https://[\w-]{1,127}\.vault\.(?:azure\.net|azure\.cn|usgovcloudapi\.net)(?::443)?/secrets/[\w-]{1,127}"
    r"|projects/[\w-]{1,127}/secrets/[\w-]{1,255}"
)


def _names_pair(member: str, name: Any, value: Any) -> bool:
    """The pair's ``member`` (``name``, ``key``, ``k``) says its ``value`` is a credential: a name of a
    query or form parameter (``{"name": "sig", …}``) or a credential's, or one that lets the value
    decide (``{"name": "AccessKeySecret", "value": …}``)."""
    if not isinstance(name, str):
        return False
    named = is_secret_parameter(name) if member.lower() == "name" else is_secret_name(name)
    return named or credential_in(name, value)
