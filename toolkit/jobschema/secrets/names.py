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
``max_token_length``.

Short forms and synonyms count as whole words: ``pw``, ``pwd``, ``pin``, ``cred``, ``passcode``,
``privkey``; ``signing``, ``salt`` and ``pepper`` at the end of a name (``JWT_SIGNING``,
``HMAC_SALT``; not ``signingAlgorithm``, ``saltLength``); ``seed`` and ``code`` after a one-time
password word (``OTP_SEED``, ``MFA_CODE``; not ``random_seed``, ``exit_code``). A name of another
script is a credential when it holds a credential word of that script (``数据库密码``, ``访问密钥``)
and does not end in a word that names or describes one (``密码长度``, ``密钥名称``).

Some names may hold either a credential or a reference to one: there the *value* decides
(:func:`value_decides`, applied by :func:`jobschema.secrets.values.plausible` in text and in
parsed payloads alike):

- a Kubernetes-style reference to a Secret (``passwordSecret``, ``accessKeySecret``,
  ``AccessKeySecret``) holds a Kubernetes object's name (DNS-1123: ``my-oss-secret``), or else the
  credential itself (Alibaba's ``AccessKeySecret``). An environment variable's name in upper case
  (``ACCESS_KEY_SECRET``, ``OSS_ACCESS_KEY_SECRET``) always holds the credential: variables hold
  values, not references;
- a connection string's name (``CONN_STR``, ``DATABASE_URL``, ``dsn``) holds a locator read for the
  credential inside it (``user:password@``, ``Password=…;``), or an opaque value that is the
  credential when it looks random.

``secretKeyOfUser`` (the key of a value inside a Secret) is a reference whatever its value. Schema
fields override all of this with ``x-jobschema-secret`` true or false.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from jobschema.secrets.mask import MASK_IN_TEXT
from jobschema.secrets.table import (
    COMMAND_NAMES,
    COMMAND_WORDS,
    CREDENTIAL_WORDS,
    FILE_SUFFIXES,
    FOREIGN_WORDS,
    HEADER_TAIL_WORDS,
    KEY_QUALIFIERS,
    KEY_VALUE_WORDS,
    LIST_HEADERS,
    LOCATOR_NAMES,
    LOOSE_WORDS,
    NOT_AFTER,
    NOT_FIRST,
    NOT_PASS_WORDS,
    PARAMETER_NAMES,
    PLAIN_KEY_QUALIFIERS,
    PLURAL_QUALIFIED,
    PLURAL_WORDS,
    QUALIFIED_WORDS,
    REFERENCE_WORDS,
    SCRIPT_REFERENCE_SUFFIXES,
    SCRIPT_WORDS,
    SECRET_NAMES,
    SHORT_WORDS,
    SWITCH_WORDS,
    TAIL_WORDS,
    TRAILERS,
    USER_PAIR_NAMES,
    VOCABULARY_WORDS,
)

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def words(name: str) -> tuple[str, ...]:
    """``name`` split into lowercase words (``"bosSecretAccessKey"`` -> bos, secret, access, key).

    A mask in it is no word: a name redacted once (``curl -u bob:<secret:…>``) must not make its
    value a credential the second time, or redacting twice would not give the same bytes. Names
    repeat: short ones are remembered."""
    return _short_words(name) if len(name) <= 128 else _words(name)


@lru_cache(maxsize=16384)
def _short_words(name: str) -> tuple[str, ...]:
    return _words(name)


def _words(name: str) -> tuple[str, ...]:
    if "secret:" in name:
        name = MASK_IN_TEXT.sub(" ", name)  # (no word of a mask counts: it names no credential)
    if not name.isascii():
        name = plain_letters(name)
    return tuple(word.lower() for word in _WORD.findall(name))


#: Latin letters that are no base letter with a mark (NFKD leaves them whole).
_LETTERS = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ß": "ss", "\u0131": "i"}
)


def plain_letters(name: str) -> str:
    """``name`` with the marks taken off its Latin letters (``contraseña``, ``hasło``, ``şifre``,
    ``Paßwort``: ``contrasena``, ``haslo``, ``sifre``, ``Passwort``), so a name written with them is
    split into the words it is written without them."""
    decomposed = unicodedata.normalize("NFKD", name.translate(_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=16384)
def is_secret_name(name: str) -> bool:
    """True when ``name`` labels a credential (``DB_PASSWORD``, ``accessToken``, ``Cookie``, ``BCE_SK``)."""
    if not name.isascii() and any(word in name.lower() for word in SCRIPT_WORDS):
        return not name.endswith(SCRIPT_REFERENCE_SUFFIXES)
    if name.lower().endswith(SECRET_NAMES):  # (also a Java property: ``-Dsonar.login``)
        return True
    found = words(name)
    header = _names_a_header(name, found)
    # an env var (OPENAI_KEY) or a header ending in a key (X-Customer-Key; not its ``-MD5``): any key
    # but an identifier's is a credential
    loose = name.isupper() or (header and found[-1] == "key")
    if not found or found[-1] in REFERENCE_WORDS or found[-1] in COMMAND_WORDS or _names_a_file(name):
        return False
    if "of" in found[1:-1] or (_names_a_secret_object(found) and not loose):
        return False
    if len(found) > 1 and found[0] in SWITCH_WORDS:
        return False
    return any(_credential_at(found, index, loose) for index in range(len(found)))


def names_a_secret_object(name: str) -> bool:
    """A Kubernetes-style reference to the Secret holding a credential (``passwordSecret``,
    ``accessKeySecret``), not an environment variable's name: whether it holds a Secret's name or the
    credential is told by its value."""
    return not name.isupper() and _names_a_secret_object(words(name))


def names_a_locator(name: str) -> bool:
    """A connection string's or database URL's name (``CONN_STR``, ``DATABASE_URL_RAW``, ``dsn``)."""
    found = words(name)
    for end in range(len(found), 0, -1):  # the locator's words, then trailers only
        if any(found[:end][-len(locator) :] == locator for locator in LOCATOR_NAMES):
            return True
        if found[end - 1] not in TRAILERS:
            return False
    return False


def value_decides(name: str) -> str | None:
    """Whether ``name`` may hold a credential or a reference to one, told apart by its value:
    ``"object"`` (a Kubernetes Secret's name), ``"locator"`` (a connection string), ``"random"`` (an
    API's header: a random-looking value), ``"key"`` (``encrypt``: a value of a key's size),
    ``"list"`` (a list holding a credential's name, then the
    credential: ``access_token, X``), ``"command"`` (a command that prints the credential: a literal
    it prints is one, ``cat /run/key`` is not), ``"pair"`` (``user:password``: a ``.curlrc``'s
    ``user``), else None. Names repeat: short ones are remembered."""
    return _short_value_decides(name) if len(name) <= 128 else _value_decides(name)


@lru_cache(maxsize=16384)
def _short_value_decides(name: str) -> str | None:
    return _value_decides(name)


def _value_decides(name: str) -> str | None:
    if is_secret_name(name):
        return None
    if names_a_credential_command(name):
        return "command"
    if names_a_secret_object(name):
        return "object"
    if names_an_api_header(name):
        return "random"
    if name.lower() in LIST_HEADERS or (words(name)[-1:] and words(name)[-1] in KEY_VALUE_WORDS):
        return "list" if name.lower() in LIST_HEADERS else "key"  # (``encrypt = "<32 bytes' base64>"``)
    return "pair" if names_a_user_pair(name) else "locator" if names_a_locator(name) else None


@lru_cache(maxsize=4096)
def names_a_credential_command(name: str) -> bool:
    """A credential's name, then a word saying its value is the command that prints it
    (:data:`COMMAND_WORDS`: ``FERNET_KEY_CMD``, ``passwordCommand``, ``--token-exec``)."""
    found = words(name)
    if found[-1:] and found[-1] in COMMAND_NAMES:  # ``--extpass``, ``BORG_PASSCOMMAND``: one fused word
        return True
    if len(found) < 2 or found[-1] not in COMMAND_WORDS:
        return False
    cut = name.lower().rfind(found[-1])
    rest = name[:cut].rstrip("_-. ")
    return bool(rest) and is_secret_name(rest)


def names_a_user_pair(name: str) -> bool:
    """A name whose value is ``user:password`` (:data:`USER_PAIR_NAMES`: a ``.curlrc``'s ``user``,
    ``--proxy-user``, ``--creds``)."""
    return words(name) in USER_PAIR_NAMES


def names_an_api_header(name: str) -> bool:
    """A header named for the API it opens (``X-JFrog-Art-Api``): a random-looking value is its key
    (an OpenAPI extension, ``x-jobschema-api: runai``, names one)."""
    found = words(name)
    return bool(found) and found[-1] in HEADER_TAIL_WORDS and _names_a_header(name, found)


def _names_a_header(name: str, found: tuple[str, ...]) -> bool:
    """An HTTP header's name: ``X-`` and hyphenated words (``X-JFrog-Art-Api``,
    ``x-amz-server-side-encryption-customer-key``)."""
    return len(found) > 2 and found[0] == "x" and name[1:2] == "-" and "_" not in name and "." not in name


def _names_a_file(name: str) -> bool:
    """A dotted name ending in a file suffix (``secret-job.json``, ``token.txt``)."""
    stem, dot, suffix = name.rpartition(".")
    return bool(dot and stem) and suffix.lower() in FILE_SUFFIXES


def _names_a_secret_object(found: tuple[str, ...]) -> bool:
    """Kubernetes-style references: the Secret holding a password or key (``passwordSecret``,
    ``accessKeySecret``)."""
    return len(found) > 1 and found[-1] == "secret" and found[-2] in ("password", "key", "passwd")


def _credential_at(found: tuple[str, ...], index: int, loose: bool) -> bool:
    word = found[index]
    if any(word.endswith(stem) for stem in CREDENTIAL_WORDS):
        return not _vocabulary(found, index)
    if word in SHORT_WORDS or (word.endswith("pass") and word not in NOT_PASS_WORDS):
        return _last_word(found, index)
    # (``BEARER=X``, ``API_BEARER``: :data:`LOOSE_WORDS` end an env var's name)
    loose_word = loose and word in LOOSE_WORDS and index == len(found) - 1
    if loose_word or _qualified_key(found, index, loose) or word in FOREIGN_WORDS or _several(found, index):
        return True
    if word in QUALIFIED_WORDS and not (index > 0 and found[index - 1] in QUALIFIED_WORDS[word]):
        return False
    if word in NOT_FIRST and index == 0:
        return False
    return (word in TAIL_WORDS or word in QUALIFIED_WORDS) and _last_word(found, index)


def _qualified_key(found: tuple[str, ...], index: int, loose: bool) -> bool:
    """``api_key``, ``ACCESS_KEY``; in an env var's or a header's name any ``key`` but an identifier's
    (``OPENAI_KEY``; not ``SORT_KEY``)."""
    if found[index] != "key" or index == 0:
        return False
    before = found[index - 1]
    return before in KEY_QUALIFIERS or (loose and before not in PLAIN_KEY_QUALIFIERS and not before.isdigit())


def _several(found: tuple[str, ...], index: int) -> bool:
    """A name of several credentials ending the name (or before :data:`TRAILERS`)."""
    return _plural(found, index) and _last_word(found, index)


def _plural(found: tuple[str, ...], index: int) -> bool:
    """``passwords``, ``API_KEYS``, ``accessTokens``, ``client_secrets``: the name of several
    credentials (:data:`PLURAL_WORDS`, :data:`PLURAL_QUALIFIED`)."""
    word = found[index]
    if len(word) < 4 or not word.endswith("s"):
        return False
    single = word[:-1]
    if single in PLURAL_WORDS:
        return True
    return index > 0 and found[index - 1] in PLURAL_QUALIFIED.get(single, ())


def names_several(name: str) -> bool:
    """A name of several credentials (``API_KEYS``, ``passwords``): its value may be a list
    (``API_KEYS=k1,k2``)."""
    found = words(name)
    return bool(found) and is_secret_name(name) and _plural(found, len(found) - 1)


def _vocabulary(found: tuple[str, ...], index: int) -> bool:
    """``pad_token``, ``eos_token_id``, ``mask_token``: a model's special token (or its id) is a
    vocabulary entry, not a credential."""
    return found[index] == "token" and index > 0 and found[index - 1] in VOCABULARY_WORDS


def _last_word(found: tuple[str, ...], index: int) -> bool:
    """``found[index]`` ends the name (but for :data:`TRAILERS`) and no word before it makes it
    something else (:data:`NOT_AFTER`: ``proxy_pass``, ``cpu_pin``)."""
    if not all(rest in TRAILERS for rest in found[index + 1 :]):
        return False
    return not (index > 0 and found[index - 1] in NOT_AFTER.get(found[index], ()))


def is_secret_parameter(name: str) -> bool:
    """True when a query, form or header parameter ``name`` carries a credential (adds ``key``, ``sig``)."""
    return is_secret_name(name) or name.strip().lower() in PARAMETER_NAMES


def qualified_key(parent: str, key: str) -> bool:
    """A plain ``key`` member whose parent's name makes it a credential's (``{"api": {"key": X}}``,
    ``[license] key = X``, ``encryption: {key: X}``; not ``sort: {key: name}``): judged as
    ``PARENT_key`` would be. Under a credential's own name (``secret: {name: s3, key: AccessKeyId}``,
    Run:ai's ``userCredential``) ``key`` names the key of a Secret: a reference."""
    found = words(parent)
    if words(key) != ("key",) or not found or is_secret_name(parent):
        return False
    return is_secret_name(f"{found[-1]}_key")
