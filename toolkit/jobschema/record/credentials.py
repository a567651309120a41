"""Where the recorder's credentials come from, and what an error may call them (never their values).

Each credential is looked up in this order: an option, the ``--credentials`` file, the environment
(the variables ``jobschema serve`` reads, :data:`jobschema.serve.auth.ENV`). A credentials file is
TOML::

    [runai]
    client_id = "..."          # grant client_credentials
    client_secret = "..."
    app_id = "..."             # grant app_token (the client pair when unset)
    app_secret = "..."

    [aihc]
    access_key_id = "..."
    secret_access_key = "..."

Every credential remembers where it was found (``RUNAI_CLIENT_SECRET``, ``--runai-client-secret``,
``creds.toml: runai.client_secret``), so an auth failure can say which one was rejected.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobschema.errors import ToolkitError
from jobschema.inputs.files import named
from jobschema.secrets.policy import masked_token

#: credential -> (environment variable, option, file table, file key). An option is named after its
#: variable (``RUNAI_CLIENT_ID`` -> ``--runai-client-id``), in ``record`` and ``serve`` alike.
SOURCES = {
    "client_id": ("RUNAI_CLIENT_ID", "--runai-client-id", "runai", "client_id"),
    "client_secret": ("RUNAI_CLIENT_SECRET", "--runai-client-secret", "runai", "client_secret"),
    "app_id": ("RUNAI_APP_ID", "--runai-app-id", "runai", "app_id"),
    "app_secret": ("RUNAI_APP_SECRET", "--runai-app-secret", "runai", "app_secret"),
    "access_key_id": ("BCE_ACCESS_KEY_ID", "--bce-access-key-id", "aihc", "access_key_id"),
    "secret_access_key": ("BCE_SECRET_ACCESS_KEY", "--bce-secret-access-key", "aihc", "secret_access_key"),
}
#: The keys a credentials file may hold, per table.
FILE_KEYS = {"runai": {"client_id", "client_secret", "app_id", "app_secret"}}
FILE_KEYS["aihc"] = {"access_key_id", "secret_access_key"}


class CredentialsError(ToolkitError):
    """Credentials that are missing, or a credentials file that cannot be used (exit 2)."""


class AuthFailed(ToolkitError):
    """The API refused a credential: one line naming which one and who refused it, never its value."""


@dataclass(frozen=True)
class Credential:
    """One credential's value (kept out of ``repr``) and where it was found."""

    value: str = field(repr=False)
    source: str


@dataclass(frozen=True)
class Pair:
    """An id and its secret (a Run:ai client or app, an AIHC access key)."""

    id: Credential
    secret: Credential

    @property
    def names(self) -> str:
        """Both sources, as an error names them: ``RUNAI_CLIENT_ID/RUNAI_CLIENT_SECRET``."""
        return join_sources(self.id.source, self.secret.source)


def join_sources(first: str, second: str) -> str:
    """``A/B`` for two variables or options; ``FILE: runai.client_id/client_secret`` for one file."""
    head, sep, key = first.rpartition(": ")
    other_head, other_sep, other_key = second.rpartition(": ")
    if sep and other_sep and head == other_head:
        table = key.split(".", 1)[0] + "."
        return f"{head}: {key}/{other_key.removeprefix(table)}"
    return f"{first}/{second}"


@dataclass(frozen=True)
class Lookup:
    """Everything a credential may come from: options given, the parsed file, the environment."""

    options: Mapping[str, str | None]
    env: Mapping[str, str]
    file: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    file_name: str = ""

    def find(self, name: str) -> Credential | None:
        """The credential ``name`` (a key of :data:`SOURCES`), or None when nothing sets it."""
        variable, option, table, key = SOURCES[name]
        given = self.options.get(name)
        if given:
            return Credential(given, option)
        in_file = self.file.get(table, {}).get(key)
        if in_file:
            return Credential(in_file, f"{named(self.file_name)}: {table}.{key}")
        from_env = self.env.get(variable)
        return Credential(from_env, variable) if from_env else None


def lookup(options: Mapping[str, str | None], env: Mapping[str, str], path: Path | None) -> Lookup:
    """A :class:`Lookup` over the options, the environment and the credentials file ``path``."""
    if path is None:
        return Lookup(options, env)
    return Lookup(options, env, read_file(path), str(path))


def read_file(path: Path) -> dict[str, dict[str, str]]:
    """The tables of a credentials file; any problem is one line naming the file (never a value).
    Read by the one reader of side files (:mod:`jobschema.inputs.side`): a FIFO is an error, never
    a wait."""
    from jobschema.inputs.side import SideFile, load_toml

    return _checked(path, load_toml(SideFile(path, "the credentials file", CredentialsError, secret=True)))


def _checked(path: Path, data: dict[str, Any]) -> dict[str, dict[str, str]]:
    tables: dict[str, dict[str, str]] = {}
    for table, content in data.items():
        if table not in FILE_KEYS:
            shown = masked_token(table)  # (the file's data: read by the secret policy)
            raise CredentialsError(f"{named(path)}: {shown}: unknown table (known: aihc, runai)")
        if not isinstance(content, dict):
            raise CredentialsError(f"{named(path)}: {table}: must be a table")
        for key, value in content.items():
            if key not in FILE_KEYS[table]:
                known = ", ".join(sorted(FILE_KEYS[table]))
                shown = f"{masked_token(table)}.{masked_token(key)}"
                raise CredentialsError(f"{named(path)}: {shown}: unknown key (known: {known})")
            if not isinstance(value, str):
                raise CredentialsError(f"{named(path)}: {table}.{key}: must be a string")
        tables[table] = dict(content)
    return tables


def exposed(path: Path) -> bool:
    """True when the credentials file can be read by other users (group or world)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return os.name == "posix" and bool(mode & (stat.S_IRGRP | stat.S_IROTH))


def runai_pair(found: Lookup, grant: str) -> Pair:
    """The pair a Run:ai token request sends: the client pair, or for ``app_token`` the app pair
    (the client pair when no app credential is set, as ``jobschema serve`` accepts)."""
    if grant == "app_token":
        app_id, app_secret = found.find("app_id"), found.find("app_secret")
        if app_id or app_secret:
            return _pair(app_id, app_secret, "app_id", "app_secret", "Run:ai app")
    return _pair(
        found.find("client_id"), found.find("client_secret"), "client_id", "client_secret", "Run:ai client"
    )


def bce_pair(found: Lookup) -> Pair:
    """The AIHC access key pair; an access key id that cannot stand in a header (it is sent in the
    ``Authorization`` of every request) is refused, naming where it came from, never its value."""
    pair = _pair(
        found.find("access_key_id"),
        found.find("secret_access_key"),
        "access_key_id",
        "secret_access_key",
        "AIHC access key",
    )
    if not header_safe(pair.id.value):
        raise CredentialsError(f"{pair.id.source}: {NOT_HEADER_SAFE} (a stray newline, space or quote?)")
    return pair


#: Why a credential sent in a header cannot be (every attempt would fail before it is sent).
NOT_HEADER_SAFE = "holds a space, a control or a non-ASCII character: it cannot be sent in a header"


def header_safe(value: str) -> bool:
    """``value`` is visible ASCII only: what a token or key sent in a header may hold."""
    return value.isascii() and value.isprintable() and " " not in value


def _pair(first: Credential | None, second: Credential | None, a: str, b: str, what: str) -> Pair:
    if first is None or second is None:
        missing = [name for name, got in ((a, first), (b, second)) if got is None]
        wanted = " and ".join(SOURCES[name][0] for name in missing)
        options = "/".join(SOURCES[name][1] for name in missing)
        raise CredentialsError(f"no {what} credentials: set {wanted} (or {options}, or --credentials FILE)")
    return Pair(first, second)
