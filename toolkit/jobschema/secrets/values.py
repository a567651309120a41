"""Which values given to a credential name in text could be the credential itself.

A name that says credential is not always given one: ``password: disabled`` is a setting,
``HF_TOKEN=$(cat /run/token)`` a reference, ``GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json`` a
path, ``api_key_header: X-API-Key`` the name of a credential, ``secret "db-password" not found`` and
``--secret-id prod/db`` the name of a resource that holds one. The readers of text ask
:func:`plausible` before they mask a value they found by its name; secrets by shape and by place in
a parsed payload do not depend on it.
"""

from __future__ import annotations

import math
import re
import shlex
from collections import Counter
from collections.abc import Iterator
from functools import cache
from typing import Any

from jobschema.secrets.names import is_secret_name, value_decides, words
from jobschema.secrets.table import (
    METAVAR_WORDS,
    PARAMETER_SCHEMES,
    REFERENCE_WORDS,
    RESOURCE_NAMES,
    SETTING_WORDS,
    TOKEN_SCHEMES,
)

#: An authorization scheme alone is no value (``"Basic " + btoa(…)``: the credential comes after it).
_SCHEMES = frozenset(scheme.lower() for scheme in (*TOKEN_SCHEMES, *PARAMETER_SCHEMES))


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    return {
        "reference": re.compile(
            # (also one whose default is a reference too: ``${DB_PASSWORD:-$FALLBACK}``)
            r"^(?:\$\{?[A-Za-z_][\w.:-]*\}?|\$\{[A-Za-z_]\w*:?[-=?+]\$\{?[A-Za-z_]\w*\}?\}"
            r"|\$\((?!\s*(?:echo|printf)\b).*\)|\{\{.*\}\}|%[A-Za-z_]\w*%"
            r"|<[A-Za-z_][\w .-]*>|\[[A-Za-z_][\w .-]*\])"
            # (then the bracket closing the call it stands in: GraphQL's ``login(password: $p) { … }``)
            r"(?:[ \t]*[)\]}][^\n]{0,4096})?$"
        ),
        "placeholder": re.compile(r"^(?:[*xX•.#_-]{3,}|(?i:redacted|masked|hidden|removed|omitted))$"),
        # a placeholder or a model's special token in angle brackets (``<pad>``, ``</s>``, ``<|eot|>``)
        "special": re.compile(r"^<[/|]?[A-Za-z_\u2581][\w.\u2581-]{0,31}\|?>$"),
        # a count, an index or a rate (``8``, ``0.1``): no credential under a token's or key's name
        "quantity": re.compile(r"^-?(?:\d{1,4}(?:\.\d+)?|\d*\.\d+)$"),
        "path": re.compile(
            r"^(?:~|\.{1,2})/[\w.@+-]*|^/[\w.@+-]+/[\w.@+/-]*$|^/[\w@+-]+\.[A-Za-z]{1,5}$|^[A-Za-z]:\\\\"
        ),
        # a credential's id and the file holding it (systemd's ``LoadCredential=db-pass:/etc/creds/db``)
        "keyed-path": re.compile(r"^[\w.@-]{1,64}:(?:~|\.{1,2})?/[\w.@+/-]*$"),
        # a reference in HCL (Terraform, Packer, Nomad) to a value held elsewhere, unquoted:
        # ``var.db_password``, ``local.token``, ``data.vault_generic_secret.db.data["pw"]``
        "hcl-reference": re.compile(
            r"^(?:var|local|module|data|each|self)\.[A-Za-z_][\w-]*(?:\.[\w-]+|\[[^\]\s]{1,64}\])*$"
        ),
        # a reference to an environment variable in code (``process.env.API_KEY``, ``os.environ["X"]``,
        # ``import.meta.env.VITE_KEY``, Ruby's ``ENV['X']``): the value is held there
        "env-reference": re.compile(
            r"^(?:process\.env|import\.meta\.env|os\.environ|System\.env|ENV|env)"
            r"(?:\.[A-Za-z_]\w{0,63}|\[[^\]\s]{1,66}\])+;?$"
        ),
        # an option, also a long one given its own value (``pass --data-file=-``)
        "option": re.compile(r"^--?[a-z][a-z0-9]*(?:-[a-z0-9]+)*$|^--[a-z][a-z0-9]*(?:-[a-z0-9]+)*="),
        "url": re.compile(r"^[A-Za-z][A-Za-z0-9+.-]{1,16}://[^\s@/?#]+(?:/[^\s?#@]*)?$"),
        "convention": re.compile(
            r"^(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z][A-Za-z0-9]*(?:-[A-Z][A-Za-z0-9]*)+"
            r"|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+)$"
        ),
        "resource": re.compile(r"^[a-z0-9][a-z0-9._-]*(?:/[a-z0-9._-]+)*$"),
        # a Kubernetes object's name (DNS-1123 subdomain): lowercase alphanumerics, ``-``, ``.``
        "object": re.compile(
            r"^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$"
        ),
        # what makes a value a locator (a URL, ``user@host``, ``key=value;`` pairs), not an opaque token
        "locator": re.compile(r"[:/=;@\s]"),
    }


_QUOTED_NOT_VALUES = ("reference", "placeholder", "special", "path", "keyed-path", "url")
_NOT_VALUES: dict[bool, tuple[str, ...]] = {
    True: _QUOTED_NOT_VALUES,
    False: (*_QUOTED_NOT_VALUES, "option", "hcl-reference", "env-reference"),
}


#: Characters of no width: inside a word, never the start of a value.
_NO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")


def plausible(value: str, name: str = "", quoted: bool = False) -> bool:
    """True when ``value``, given to ``name`` in text, may be a credential (``quoted``: it was
    written in quotes, so spaces in it are its own, not prose around it)."""
    value = value.strip()
    # (``pass\u200bword``: a word's tail after a character of no width is no value)
    if (
        value[:1] in _NO_WIDTH
        or not value.strip("\"'`{}[]()")
        or value.startswith("<secret:")
        or value.lower() in SETTING_WORDS
    ):
        return False  # (only quotes: the shell's ``'"'"'``; only brackets: ``credentials {``, a block)
    if value.lower() in _SCHEMES:
        return False  # (``"Basic " + btoa(…)``: a scheme, its credential joined after it)
    patterns = _patterns()
    # A URL that holds a credential is masked by its shape (user:password@, ?token=); an option's name
    # not in quotes (``pass --schema NAME``, ``password --help``) is no value: its value comes after it.
    if any(patterns[kind].match(value) for kind in _NOT_VALUES[quoted]):
        return False
    if value[:1] == "(" and value[-1:] == ")" and _REMARK.fullmatch(value[1:-1].strip()):
        return False  # ``password (required)``: a remark in brackets
    if _names_a_credential(value) or _placeholder_name(value):
        return False  # the name of a credential (``X-API-Key``, ``HF_TOKEN``) or of a value, not one
    return _given_to(value, name, quoted)


def _given_to(value: str, name: str, quoted: bool) -> bool:
    """What ``name`` says of the value it is given: the value decides under some names
    (:func:`_decided_by_value`); under a name that may name a resource, a resource's name is none."""
    decided = _decided_by_value(value, name)
    if decided is not None:
        return decided
    found = words(name)
    if not found or found[-1] not in RESOURCE_NAMES:
        return True
    if _environment_name(name) and re.fullmatch(r"[a-z]{4,}[0-9]{0,6}", value):
        return True  # ``API_TOKEN=hunter``: a variable holds a value; a resource's name joins words
    if _patterns()["quantity"].match(value):  # ``--pad_token_id 0``, ``key: 8``: a number about it
        return False
    if not quoted and any(c.isspace() for c in value):  # ``Secret: hf-token (Opaque, 1 key)``
        return any(_random(part) for part in value.split())  # prose, unless a part is random
    resource = _patterns()["resource"].match(value) and (_wordy(value) or "/" in value)
    password = _word_and_digits(value) and found[-1] != "id"  # (``--secret-id mydb2``: an id)
    return not (resource and not password) or _random(value)


def _environment_name(name: str) -> bool:
    """An environment variable's name (``API_TOKEN``, ``SECRET_KEY``): upper case, not an option, and
    a credential's name in any case (not only by the upper case rule's loose ``key``: ``JOB_ID_KEY``)."""
    bare = name.strip()
    return re.fullmatch(r"[A-Z][A-Z0-9_]*", bare) is not None and is_secret_name(bare.lower())


def _word_and_digits(value: str) -> bool:
    """One word run into digits, no separator (``hunter2``, ``letmein123``): how a weak password is
    written; a resource's name joins its words (``db-password``, ``prod/db``, ``regcred``)."""
    return re.fullmatch(r"[a-z]{2,}[0-9]{1,6}[a-z]{0,4}|[0-9]{1,6}[a-z]{2,}", value) is not None


def _decided_by_value(value: str, name: str) -> bool | None:
    """Under a name that may hold a credential or a reference to one (:func:`value_decides`): a
    Kubernetes object's name (``my-oss-secret``) is a reference, anything else under a Secret's
    reference the credential; a locator (a URL, ``k=v;`` pairs) is read for what it holds, an opaque
    random-looking value under a connection string's name is the credential. None: the name is not
    one of these."""
    kind = value_decides(name) if name else None
    if kind == "object":
        return _patterns()["object"].match(value) is None
    if kind == "locator":
        return _patterns()["locator"].search(value) is None and _random(value)
    judge = _VALUE_JUDGES.get(kind) if kind else None
    return None if judge is None else judge(value)


def _list_holds(value: str) -> bool:
    """``access_token, X``: an item after a credential's name."""
    items = [item.strip() for item in value.split(",")]
    return any(is_secret_name(items[i - 1]) and plausible(items[i]) for i in range(1, len(items)))


def pair_password(value: str) -> int | None:
    """Where the password of a ``user:password`` value starts, or None when the value holds none:
    no ``:``, a user and group (``1000:1000``, ``app:app``, ``root:wheel``, ``www-data:www-data``),
    references (``$(id -u):$(id -g)``), a host and port or path (``host:/data``, ``host:8080/api``), a
    name of several parts (Kubernetes' ``system:serviceaccount:ns:sa``). A password has two kinds of
    characters at least (``hunter2``) or looks random."""
    user, colon, secret = value.strip().strip("\"'").partition(":")
    if not colon or not user or not secret or secret == user or " " in user or "/" in user:
        return None
    if ":" in secret or "/" in secret:  # a name of parts (``system:serviceaccount:ns:sa``), a path or URL
        return None
    if secret.isdigit() or SHELL_REFERENCE.match(secret) or "$(" in value or "${" in value:
        return None
    if classes(secret) < 2 and not _random(secret):
        return None
    if not plausible(secret):
        return None
    return value.find(secret, value.find(":"))


#: A value that refers to a credential kept elsewhere, as a shell or a template writes it: ``$KEY``,
#: ``${KEY}``, ``$(cmd)``, ``{{ .Values.key }}``, ``%KEY%``.
SHELL_REFERENCE = re.compile(r"^(?:\$\{?[A-Za-z_][\w]*\}?|\$\(.*\)|\{\{.*\}\}|%[A-Za-z_]\w*%)$")
#: Commands whose output is their arguments.
_PRINTERS = frozenset({"echo", "printf"})
_OPERATORS = frozenset(";&|()")


def prints_literal(value: str) -> bool:
    """``value``, read as a command line, prints a literal (``echo X``, ``printf '%s' X``): the value of
    a name saying it holds the command that prints a credential is then the credential; a command
    that reads it from elsewhere (``cat /run/key``, ``vault kv get …``, ``echo $KEY``) is not."""
    for argv in _simple_commands(value):
        if not argv or basename(argv[0]) not in _PRINTERS:
            continue
        data = [word for word in argv[1:] if not word.startswith("-")]
        if basename(argv[0]) == "printf" and data and "%" in data[0]:
            data = data[1:]  # (the format, then what it prints)
        if any(plausible(word) and not SHELL_REFERENCE.match(word) for word in data):
            return True
    return False


def _simple_commands(value: str) -> Iterator[list[str]]:
    """The argument lists of the simple commands of ``value`` (lines, ``;``, ``&&``, ``|``), split as
    a shell splits words; a quote never closed ends the text read."""
    for line in value.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        argv: list[str] = []
        try:
            for token in lexer:
                if token and set(token) <= _OPERATORS:
                    yield argv
                    argv = []
                else:
                    argv.append(token)
        except ValueError:  # (no closing quote)
            pass
        yield argv


def basename(word: str) -> str:
    """A command word without its folder (``/usr/bin/echo``, ``C:\\bin\\curl``: ``echo``, ``curl``)."""
    return word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]


def credential_in(name: str, value: Any) -> bool:
    """True when ``value``, held by a member (or a pair) whose ``name`` lets its value decide
    (:func:`value_decides`), is the credential: the rule of :func:`plausible`, in a parsed payload."""
    if not isinstance(value, str | list) or value_decides(name) is None:  # (a list under another name
        return False  # is not read at all)
    if isinstance(value, list):  # a list of values, as a place holds one; nested lists are not
        return any(isinstance(item, str) and plausible(item, name, True) for item in value)
    return plausible(value, name, True)


def _names_a_credential(value: str) -> bool:
    """``X-API-Key``, ``HF_TOKEN``, ``apiKey``: a credential's name written as names are (a variable's
    upper snake case, a header's, camel case; ending in the credential's noun), not one. Lower case
    joined by ``-``, ``_`` or ``.`` (``super_secret``, ``dev-token``, ``admin-pass``) is how weak
    passwords are written too: such a value is masked."""
    if _patterns()["convention"].match(value) is None or _random(value):
        return False
    found = words(value)
    return bool(found) and (is_secret_name(found[-1]) or is_secret_name("_".join(found[-2:])))


_REMARK = re.compile(r"[a-z]+(?:[ ,.-]{1,2}[a-z]+)*|[A-Z][a-z]+(?: [a-z]+)*")
_PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9]*(?:[_-][A-Z][A-Z0-9]*){0,3}")


def _placeholder_name(value: str) -> bool:
    """A help text's placeholder: upper-case words naming what is given (``--credentials FILE``,
    ``--password PASSWORD``, ``--token TEXT``, ``CREDENTIALS_FILE``), not a value (``HUNTER2X``)."""
    if _PLACEHOLDER.fullmatch(value) is None:
        return False
    return all(word in METAVAR_WORDS or word in REFERENCE_WORDS for word in words(value))


def looks_random(value: str, length: int, entropy: float) -> bool:
    """A token that looks generated: long enough, two classes of characters or more, enough bits
    per character, and not made of words (``default-token-x1`` is a name, ``8f2aK9x…`` is not)."""
    if len(value) < length or classes(value) < 2:
        return False
    counts = Counter(value)
    bits = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return bits >= entropy and not _wordy(value)


def _random(value: str) -> bool:
    return looks_random(value, 12, 3.0)


def classes(value: str) -> int:
    """How many of lowercase, uppercase, digits and symbols (but ``-_.``) ``value`` has."""
    kinds = (str.islower, str.isupper, str.isdigit)
    found = sum(any(test(c) for c in value) for test in kinds)
    return found + any(not c.isalnum() and c not in "-_." for c in value)


def _wordy(value: str) -> bool:
    """Mostly runs of four or more lowercase letters (a name such as ``default-token-x1``)."""
    runs = re.findall(r"[a-z]{4,}", value)
    return sum(len(run) for run in runs) * 2 >= len(value)


#: A ``.pgpass`` line (``host:port:database:user:password``): its last field is the credential (also
#: indented: the line of a YAML block scalar, a here-document in a script).
PGPASS = re.compile(
    r"(?m)^[ \t]{0,64}[^:\s#]{1,255}:(?:\d{1,5}|\*):(?:[^:\s\\]|\\.){0,255}:(?:[^:\s\\]|\\.){1,255}:"
    r"(?P<value>\S[^\r\n]{0,4095})$"
)
#: A ``.pgpass`` line as a quoted string (a JSON or YAML value, a shell word): ``"db:5432:*:app:X"``.
PGPASS_QUOTED = re.compile(
    r"[\"'][^:\s#\"']{1,255}:(?:\d{1,5}|\*):[^:\s\"']{0,255}:[^:\s\"']{1,255}:(?P<value>[^\s\"']{1,4096})[\"']"
)


def password_like(value: str) -> bool:
    """The last field of a line shaped like ``.pgpass``'s may be a password (``10:30:00:12:45`` is a
    time)."""
    return not value.isdigit() and plausible(value)


def is_file_line(text: str) -> bool:
    """``text`` is one line of a credential file (``.pgpass``: ``host:port:db:user:password``)."""
    match = PGPASS.fullmatch(text)
    return match is not None and password_like(match["value"])


def _holds_a_pair(value: str) -> bool:
    return pair_password(value) is not None


#: A key's bytes in base64: 16, 24 or 32 of them (a gossip key under ``encrypt``).
_KEY_SIZED = re.compile(r"[A-Za-z0-9+/]{22}==|[A-Za-z0-9+/]{32}|[A-Za-z0-9+/]{43}=")
#: How the value decides under the other kinds of :func:`value_decides`: an API's header holds a
#: random-looking value, a key's name a value of a key's size, a command name one that prints a
#: literal (``FERNET_KEY_CMD=echo X``; ``cat /run/key`` is shown), a user's name a ``user:password``
#: pair's password, a list header an item after a credential's name.
_VALUE_JUDGES = {
    "key": lambda value: _KEY_SIZED.fullmatch(value) is not None,
    "random": _random,
    "command": prints_literal,
    "pair": _holds_a_pair,
    "list": _list_holds,
}
