"""Secrets by name: which names label a credential.

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
from functools import lru_cache

from jobschema.secrets.table import (
    CREDENTIAL_WORDS,
    FILE_SUFFIXES,
    KEY_QUALIFIERS,
    NOT_PASS_WORDS,
    PARAMETER_NAMES,
    PASS_NOT_AFTER,
    PLAIN_KEY_QUALIFIERS,
    REFERENCE_WORDS,
    SCRIPT_WORDS,
    SHORT_WORDS,
    SWITCH_WORDS,
    TAIL_WORDS,
    TRAILERS,
)

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def words(name: str) -> tuple[str, ...]:
    """``name`` split into lowercase words (``"bosSecretAccessKey"`` -> bos, secret, access, key)."""
    return tuple(word.lower() for word in _WORD.findall(name))


@lru_cache(maxsize=16384)
def is_secret_name(name: str) -> bool:
    """True when ``name`` labels a credential (``DB_PASSWORD``, ``accessToken``, ``Cookie``, ``BCE_SK``)."""
    if name in SCRIPT_WORDS:
        return True
    found = words(name)
    if not found or found[-1] in REFERENCE_WORDS or _names_a_secret_object(found) or _names_a_file(name):
        return False
    if len(found) > 1 and found[0] in SWITCH_WORDS:
        return False
    loose = name.isupper()  # an env var (OPENAI_KEY): any key but an identifier's is a credential
    return any(_credential_at(found, index, loose) for index in range(len(found)))


def names_a_secret_object(name: str) -> bool:
    """A Kubernetes-style reference to the Secret holding a credential (``passwordSecret``,
    ``accessKeySecret``): in text, whether it holds a name or the credential is told by its value."""
    found = words(name)
    return len(found) > 1 and found[-1] == "secret" and found[-2] in ("password", "key", "passwd")


def _names_a_file(name: str) -> bool:
    """A dotted name ending in a file suffix (``secret-job.json``, ``token.txt``)."""
    stem, dot, suffix = name.rpartition(".")
    return bool(dot and stem) and suffix.lower() in FILE_SUFFIXES


def _names_a_secret_object(found: tuple[str, ...]) -> bool:
    """Kubernetes-style references: the Secret holding a password or key (``passwordSecret``,
    ``accessKeySecret``), or the key of a value in one (``secretKeyOfUser``)."""
    if "of" in found[1:-1]:
        return True
    return len(found) > 1 and found[-1] == "secret" and found[-2] in ("password", "key", "passwd")


def _credential_at(found: tuple[str, ...], index: int, loose: bool) -> bool:
    word = found[index]
    if any(word.endswith(stem) for stem in CREDENTIAL_WORDS):
        return True
    if word in SHORT_WORDS or (word.endswith("pass") and word not in NOT_PASS_WORDS):
        last = all(rest in TRAILERS for rest in found[index + 1 :])
        return last and not (word == "pass" and index > 0 and found[index - 1] in PASS_NOT_AFTER)
    if word == "key" and index > 0:
        before = found[index - 1]
        if before in KEY_QUALIFIERS or (
            loose and before not in PLAIN_KEY_QUALIFIERS and not before.isdigit()
        ):
            return True
    return word in TAIL_WORDS and all(rest in TRAILERS for rest in found[index + 1 :])


def is_secret_parameter(name: str) -> bool:
    """True when a query, form or header parameter ``name`` carries a credential (adds ``key``, ``sig``)."""
    return is_secret_name(name) or name.strip().lower() in PARAMETER_NAMES
