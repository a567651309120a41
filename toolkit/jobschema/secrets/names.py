"""Secrets by place: which names label a credential, and which members of a payload hold one.

A name (an object key, an env var, a header, a cookie, a query or form parameter, a command-line
flag) is split into words at ``_``, ``-``, ``.``, spaces, digits and camelCase humps, and compared
case-insensitively word by word, so ``accessToken``, ``HF_TOKEN``, ``X-Amz-Signature`` and
``bosSecretAccessKey`` are credentials while ``TOKENIZERS_PARALLELISM``, ``mask`` and ``tasks`` are not.

A name is a credential when one of its words is (or ends in) a credential word -- password, passwd,
pwd, passphrase, secret, token, credential(s), cookie, signature, sig, authorization, apikey, ... --,
is ``ak``/``sk`` (Baidu's access key and secret key), pairs a qualifier with ``key`` (api key,
access key, secret key, private key, account key, client key, ...), or is ``auth``/``session`` at
the end of the name (``DOCKER_AUTH_CONFIG``, ``sessionId`` too). A name whose last word says it
*names* or *describes* a credential rather than holding one is not: ``secretName``, ``secretRef``,
``tokenPath``, ``passwordFile``, ``token_type``, ``tokenExpiresAt``, ``--password-stdin``,
``max_token_length``; nor are Kubernetes-style references to a Secret (``passwordSecret``,
``accessKeySecret``, ``secretKeyOfUser``). Schema fields override all of this with
``x-jobschema-secret`` true or false.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
#: Words that are a credential, and fused words ending in one (``clientsecret``, ``apitoken``).
CREDENTIAL_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "credentials",
    "cookie",
    "signature",
    "authorization",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "dockerconfigjson",
    "dockercfg",
    "contrasena",
)
#: Short words that are a credential only as a whole word.
SHORT_WORDS = frozenset({"pwd", "pass", "pat", "ak", "sk", "sig", "auths", "psk", "otp"})
#: Words that make a credential of a following ``key``.
KEY_QUALIFIERS = frozenset(
    {
        "api",
        "access",
        "secret",
        "private",
        "priv",
        "account",
        "auth",
        "client",
        "signing",
        "encryption",
        "master",
        "service",
        "ssh",
        "db",
        "database",
        "app",
        "storage",
        "subscription",
        "license",
    }
)
#: Words that count only at the end of a name (or before one of :data:`TRAILERS`).
TAIL_WORDS = frozenset({"auth", "session", "sessionid"})
TRAILERS = frozenset({"config", "header", "id", "key", "token", "cookie", "string", "data", "value", "json"})
#: Last words that say a name refers to or describes a credential instead of holding one.
REFERENCE_WORDS = frozenset(
    {
        "name",
        "names",
        "ref",
        "refs",
        "path",
        "paths",
        "file",
        "files",
        "filename",
        "dir",
        "directory",
        "mount",
        "type",
        "types",
        "kind",
        "method",
        "methods",
        "mode",
        "policy",
        "enabled",
        "disabled",
        "required",
        "length",
        "ttl",
        "url",
        "uri",
        "endpoint",
        "provider",
        "source",
        "format",
        "expiry",
        "expires",
        "expiration",
        "expire",
        "expired",
        "at",
        "in",
        "stdin",
        "env",
        "count",
        "limit",
        "size",
        "budget",
        "num",
        "number",
        "index",
        "timeout",
        "lifetime",
        "duration",
        "version",
        "hint",
        "prompt",
        "label",
        "description",
        "schema",
        "strategy",
        "selector",
        "template",
        "class",
        "field",
        "rotation",
        "store",
        "manager",
        "used",
        "set",
    }
)


def words(name: str) -> tuple[str, ...]:
    """``name`` split into lowercase words (``"bosSecretAccessKey"`` -> bos, secret, access, key)."""
    return tuple(word.lower() for word in _WORD.findall(name))


@lru_cache(maxsize=16384)
def is_secret_name(name: str) -> bool:
    """True when ``name`` labels a credential (``DB_PASSWORD``, ``accessToken``, ``Cookie``, ``BCE_SK``)."""
    found = words(name)
    if not found or found[-1] in REFERENCE_WORDS or _names_a_secret_object(found):
        return False
    return any(_credential_at(found, index) for index in range(len(found)))


def _names_a_secret_object(found: tuple[str, ...]) -> bool:
    """Kubernetes-style references: the Secret holding a password or key (``passwordSecret``,
    ``accessKeySecret``), or the key of a value in one (``secretKeyOfUser``)."""
    if "of" in found[1:-1]:
        return True
    return len(found) > 1 and found[-1] == "secret" and found[-2] in ("password", "key", "passwd")


def _credential_at(found: tuple[str, ...], index: int) -> bool:
    word = found[index]
    if word in SHORT_WORDS or any(word.endswith(stem) for stem in CREDENTIAL_WORDS):
        return True
    if word == "key" and index > 0 and found[index - 1] in KEY_QUALIFIERS:
        return True
    return word in TAIL_WORDS and all(rest in TRAILERS for rest in found[index + 1 :])


#: Names that hold a credential only as a URL query or form parameter (``?key=``, ``&sig=``).
PARAMETER_NAMES = frozenset({"key", "sig"})


def is_secret_parameter(name: str) -> bool:
    """True when a query, form or header parameter ``name`` carries a credential (adds ``key``, ``sig``)."""
    return is_secret_name(name) or name.strip().lower() in PARAMETER_NAMES


#: Keys whose values are credentials wherever they appear (beyond the name rule).
SECRET_KEYS = frozenset({"imagePullSecretUsername", "imagePullSecretPassword", "bosTemporaryToken"})
#: Objects holding a registry login, and its keys (the create request's ``jobSpec.imageConfig``).
LOGIN_HOLDERS = frozenset({"imageConfig"})
LOGIN_KEYS = frozenset({"username", "password"})


def is_scalar(value: Any) -> bool:
    """True for a string, number or boolean (what a credential can be), or a list of them."""
    if isinstance(value, list):
        return all(isinstance(item, str | int | float) for item in value)
    return isinstance(value, str | int | float)


def is_secret_place(keys: Sequence[str | int | None], parent: Any) -> bool:
    """True when the member ``keys[-1]`` of the object ``parent`` holds a credential (by rule, not schema).

    ``keys`` are the last keys of its path, nearest last (up to three are looked at; an array index
    may be given as an int or None). The rules, case-insensitive:

    - a member named like a credential (:func:`is_secret_name`) holding a scalar or a list of
      scalars (an object under such a name is looked into instead: a JSON Schema's ``password``
      property, Run:ai's ``userCredential`` reference);
    - the ``value`` beside a credential-like ``name`` or ``key`` (AIHC ``envs``, Run:ai
      ``environmentVariables``, labels and annotations as ``{key, value}``, HAR headers, query
      and form parameters), and every cookie ``value``;
    - the registry login (``imageConfig.username``/``password``) and the AIHC keys of
      :data:`SECRET_KEYS`.
    """
    key = keys[-1] if keys else None
    if not isinstance(key, str) or not isinstance(parent, dict):
        return False
    above = keys[-2] if len(keys) > 1 else None
    if key == "value":
        return _pair_value(keys, parent)
    named = is_secret_name(key) or key in SECRET_KEYS or (key in LOGIN_KEYS and above in LOGIN_HOLDERS)
    return named and is_scalar(parent.get(key))


def _pair_value(keys: Sequence[str | int | None], parent: dict[str, Any]) -> bool:
    if len(keys) > 2 and isinstance(keys[-3], str) and keys[-3].lower() == "cookies":
        return True
    name, label = parent.get("name"), parent.get("key")
    return (isinstance(name, str) and is_secret_parameter(name)) or (
        isinstance(label, str) and is_secret_name(label)
    )
