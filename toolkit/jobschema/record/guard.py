"""Nothing unredacted leaves the recorder: every text goes through the secret policy in memory first.

Two layers. The secret policy (:func:`jobschema.redact.redact_text`, :func:`jobschema.secrets.scrub`)
masks what looks like a credential: env values under secret names, the raw request's login, HAR
headers such as ``Authorization`` and ``Cookie``, JWTs in free text. Then the :class:`Guard` masks
every credential this run knows in the clear — the client or access key secret, and each token it
was given — wherever it still appears (the policy cannot know that an innocently named field holds
one). A text the policy cannot redact is never written as it is.

A credential of :data:`MIN_GUARDED` characters or more is masked wherever it appears, inside words
too. A shorter one (whatever its length: a credential given is never written) is masked where it
stands as a whole token: no letter, digit, ``_`` or ``-`` next to it on either side — in free text
(a line, a text body, a header value, a URL) and inside every string of a JSON text, decoded (so a
``\\u`` escape or a ``\\n`` before it hides nothing). Masking every occurrence of ``a`` or ``s3cret``
would garble every word holding them, and a bare JSON number or literal (``1234``, ``true``) is
never masked, so a JSON text stays JSON.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

from jobschema.secrets import is_secret_name, mask, scrub
from jobschema.text import log_safe, visible

#: Known secrets this long or longer are masked wherever they appear; shorter ones only where they
#: stand as a whole token (:data:`_TOKEN_EDGE`): masking every occurrence of a 4-letter string would
#: garble the text (real secrets and tokens are far longer).
MIN_GUARDED = 8
#: What joins a short secret to a word it is part of (then it is not masked): a letter, a digit, ``_``
#: or ``-`` (ids such as ``abc-123``) right before or after it.
_TOKEN_EDGE = r"[\w-]"
#: A mask already in the text (also as HTML or percent-encoded): a short secret inside one is not one.
_MASKED = r"(?:<|&lt;|%3[Cc])secret(?::|%3[Aa])[0-9a-f]{8}(?:>|&gt;|%3[Ee])"
#: Members of a token answer that hold no credential: shown in the HAR, not guarded.
TOKEN_ANSWER_SHOWN = ("tokenType", "token_type", "expiresIn", "expires_in", "scope")
#: The most strings of one token answer guarded (credential-named ones first): a hostile answer
#: holding millions would slow every later mask.
MAX_LEARNED = 256
#: The most learned credentials guarded at once (the newest): every token a peer hands out, on every
#: poll, would otherwise be held and searched for until the recording ends.
MAX_GUARDED = 256
#: The longest credential guarded whole: of a longer one (no token is), its first this many characters
#: are; and the most characters of learned credentials guarded at once (the newest kept first), so
#: the forms held and searched for stay bounded however long the strings a peer hands out.
MAX_SECRET = 64 * 1024
MAX_GUARDED_TEXT = 1024 * 1024


class Guard:
    """Masks the credentials of this run in any text, in every form a peer may write them back in.

    The secrets given when it is made are guarded for the whole run; those learned later (each token
    received: :meth:`add`) are kept up to :data:`MAX_GUARDED` of them and :data:`MAX_GUARDED_TEXT`
    characters, the oldest forgotten first, so a peer handing out new tokens on every poll, or
    enormous ones, cannot make the recorder hold (and search for) more and more of them."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: dict[str, tuple[str, ...]] = {}  # each secret's forms, oldest learned first
        self._masks: dict[str, str] = {}
        self._kept: set[str] = set()  # given when made: never forgotten
        self._forms: list[tuple[str, str]] | None = None  # every form, longest first (built on use)
        self._wide: list[tuple[str, str]] | None = None  # the same as bytes seen as Latin-1
        self._tokens: _Tokens | None = None  # the short secrets, as whole tokens (built on use)
        self._wide_tokens: _Tokens | None = None  # the same as bytes seen as Latin-1
        self.caught = 0  # how many times a known credential was found after the policy had run
        for secret in secrets:
            self._kept.add(secret)
            self.add(secret)

    def __len__(self) -> int:
        """How many secrets are guarded."""
        return len(self._secrets)

    def add(self, secret: str) -> None:
        """Guard ``secret`` too (a token just received; its first :data:`MAX_SECRET` characters);
        the oldest learned ones go past :data:`MAX_GUARDED` of them or :data:`MAX_GUARDED_TEXT`
        characters."""
        secret = secret[:MAX_SECRET]
        if not secret:
            return
        forms = self._secrets.pop(secret, None) or _forms(secret)
        self._secrets[secret] = forms  # (again: now the newest)
        self._masks[secret] = mask(secret)
        learned = [known for known in self._secrets if known not in self._kept]
        count, text = len(learned), sum(map(len, learned))
        for old in learned[:-1]:  # (never the one just added)
            if count <= MAX_GUARDED and text <= MAX_GUARDED_TEXT:
                break
            del self._secrets[old], self._masks[old]
            count, text = count - 1, text - len(old)
        self._forms = self._wide = None
        self._tokens = self._wide_tokens = None

    def _all_forms(self) -> list[tuple[str, str]]:
        """The forms of the secrets masked wherever they appear (:data:`MIN_GUARDED` long or more)."""
        if self._forms is None:
            pairs = {
                form: self._masks[secret]
                for secret, forms in self._secrets.items()
                if len(secret) >= MIN_GUARDED
                for form in forms
            }
            self._forms = sorted(pairs.items(), key=lambda pair: -len(pair[0]))
        return self._forms

    def _short(self) -> _Tokens:
        """The shorter secrets, masked where they stand as a whole token: as they are, percent-encoded."""
        if self._tokens is None:
            short = [secret for secret in self._secrets if len(secret) < MIN_GUARDED]
            pairs = {form: self._masks[secret] for secret in short for form in _short_forms(secret)}
            written = {form for secret in short for form in self._secrets[secret]}  # JSON escapes too
            self._tokens = _Tokens(pairs, written)
        return self._tokens

    def clean(self, text: str) -> str:
        """Free ``text`` (a line, a text body, a header value, a URL) with every known credential
        masked: as it is, as written inside a JSON string (also with ``\\/``), percent-encoded, or
        base64-encoded at any offset (the part of the encoding that is the credential's alone); a
        short one where it stands as a whole token."""
        return self._words(self._replace(text, self._all_forms()))

    def clean_forms(self, text: str) -> str:
        """A JSON ``text`` with the credentials masked wherever they appear, the short ones left for
        its decoded strings (:meth:`clean_value`): as a token of the JSON text, one could stand where
        a mask would break it (a bare ``1234``)."""
        return self._replace(text, self._all_forms())

    def _words(self, text: str) -> str:
        tokens = self._short()
        new, found = tokens.sub(text)
        self.caught += found
        return new

    def _replace(self, text: str, forms: list[tuple[str, str]]) -> str:
        for form, replacement in forms:  # the longest first: a secret holding another goes whole
            if form in text:
                self.caught += 1
                text = text.replace(form, replacement)
        return text

    def clean_json(self, text: str) -> str:
        """JSON ``text`` guarded as text, and written anew when its decoded strings still hold a
        known credential (escaped: ``\\u0071…``; a short one as a token of a string; only then, so a
        body keeps the server's bytes); text that is no JSON is guarded as free text (:meth:`clean`)."""
        text = self._replace(text, self._all_forms())
        # every other escape (\\/, \\", \\n) is a guarded form as written, for a long credential
        if "\\u" not in text and not self._short().within(text):
            return text
        from jobschema.inputs.parse import parse_bytes

        parsed = parse_bytes(text.encode("utf-8", "surrogatepass"))
        if parsed.error is not None:
            return self._words(text)
        value, found = self.clean_value(parsed.value)
        if not found:
            return text
        try:
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except RecursionError:
            return "<not recorded: a body holding a credential, nested too deeply to mask it>"

    def line(self, text: str) -> str:
        """A line for stdout or stderr: secret shapes scrubbed, known credentials masked, and no CI
        runner's command in it (:func:`jobschema.text.log_safe`: a job's phase is the API's text)."""
        return log_safe(self.clean(scrub(text)))

    def note(self, text: str) -> str:
        """A note or warning line for stderr: :meth:`line`, and held to one line whatever the names it
        shows hold (a file name, a job id, a URL, a host, as the API or the user wrote them): control
        characters, line breaks and the bytes of a name that are not UTF-8 shown as escapes
        (:func:`jobschema.text.visible`, as every command shows names). Not for the finding lines,
        whose colours are escapes of their own (each name in them is escaped already)."""
        return log_safe(visible(self.clean(scrub(text))))

    def clean_bytes(self, data: bytes) -> bytes:
        """Bytes that are no UTF-8 text (written base64-encoded): secret shapes scrubbed and known
        credentials masked as their UTF-8, UTF-16 or Latin-1 bytes would stand in them."""
        if self._wide is None:
            pairs = {}
            for secret, forms in self._secrets.items():
                if len(secret) < MIN_GUARDED:  # (as whole tokens: below)
                    continue
                wide = [secret.encode(codec).decode("latin-1") for codec in ("utf-16-le", "utf-16-be")]
                for form in (*forms, *wide):
                    pairs[form.encode("utf-8").decode("latin-1")] = self._masks[secret]
                    pairs[form] = self._masks[secret]
            self._wide = sorted(pairs.items(), key=lambda pair: -len(pair[0]))
        if self._wide_tokens is None:
            masks = self._short().masks.items()
            self._wide_tokens = _Tokens({form.encode("utf-8").decode("latin-1"): to for form, to in masks})
        view = self._replace(scrub(data.decode("latin-1")), self._wide)
        view, found = self._wide_tokens.sub(view)
        self.caught += found
        return view.encode("latin-1", "backslashreplace")

    def clean_value(self, value: Any) -> tuple[Any, bool]:
        """A parsed JSON value with every known credential masked in each of its strings and member
        names, and whether any was (a credential a text written with ``\\u`` escapes hid)."""
        forms = self._all_forms()
        found = False

        def cleaned(text: str) -> str:
            nonlocal found
            new = self._words(self._replace(text, forms))
            found = found or new != text
            return new

        root = [value]
        stack: list[tuple[Any, Any]] = [(root, 0)]  # a loop, not recursion: any depth is walked
        while stack:
            parent, at = stack.pop()
            item = parent[at]
            if isinstance(item, str):
                parent[at] = cleaned(item)
            elif isinstance(item, dict):
                parent[at] = new = {cleaned(str(key)): inner for key, inner in item.items()}
                stack.extend((new, key) for key in new)
            elif isinstance(item, list):
                parent[at] = new_list = list(item)
                stack.extend((new_list, index) for index in range(len(new_list)))
        return root[0], found


def _forms(secret: str) -> tuple[str, ...]:
    """The ways ``secret`` is written back: as it is, JSON-escaped (non-ASCII kept or ``\\u``
    escaped in lower or upper case hex, ``/`` as ``\\/`` too), percent-encoded (``%2F`` and
    ``%2f``, ``+`` for a space), and the middle of its base64 (standard and URL-safe) at each of the
    three offsets it may start at."""
    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    ascii_escaped = json.dumps(secret)[1:-1]
    upper = re.sub(r"\\u[0-9a-f]{4}", lambda hit: "\\u" + hit[0][2:].upper(), ascii_escaped)  # (Java's)
    forms = [secret, escaped, ascii_escaped, upper]
    forms += [form.replace("/", "\\/") for form in (escaped, ascii_escaped, upper)]
    quoted = quote(secret, safe="")
    forms += [quoted, re.sub("%[0-9A-F]{2}", lambda hit: hit[0].lower(), quoted), quote_plus(secret)]
    raw = secret.encode("utf-8")
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode("ascii").rstrip("=")
        whole = (offset + len(raw)) // 3 * 4  # characters of the complete 3-byte groups
        middle = encoded[4 if offset else 0 : whole]
        if len(middle) >= MIN_GUARDED:
            forms += [middle, middle.translate(_URLSAFE)]
    return tuple(dict.fromkeys(forms))


_URLSAFE = str.maketrans("+/", "-_")


def _short_forms(secret: str) -> tuple[str, ...]:
    """The ways a short ``secret`` is written back where it stands whole: as it is, percent-encoded
    (``%2F`` and ``%2f``, ``+`` for a space). (Its JSON escapes are read by decoding the JSON; its
    base64 at an offset is too short to tell from any other.)"""
    quoted = quote(secret, safe="")
    lower = re.sub("%[0-9A-F]{2}", lambda hit: hit[0].lower(), quoted)
    return tuple(dict.fromkeys([secret, quoted, lower, quote_plus(secret)]))


class _Tokens:
    """Short secrets' forms, each masked where it stands as a whole token (no :data:`_TOKEN_EDGE`
    next to it), never inside a mask already there."""

    def __init__(self, masks: dict[str, str], written: Iterable[str] = ()) -> None:
        self.masks = masks
        self._written = frozenset([*masks, *written])  # every form a text may hold them in
        self._pattern: re.Pattern[str] | None = None
        if masks:
            forms = "|".join(re.escape(form) for form in sorted(masks, key=len, reverse=True))
            edge = _TOKEN_EDGE
            self._pattern = re.compile(f"({_MASKED})|(?<!{edge})({forms})(?!{edge})")

    def within(self, text: str) -> bool:
        """True when a form appears in ``text`` at all, as it is or JSON-escaped (a token or not: an
        escape may hide an edge, ``\\n``, or the secret itself, ``\\"``)."""
        return any(form in text for form in self._written)

    def sub(self, text: str) -> tuple[str, int]:
        """``text`` with each whole-token form masked, and how many were."""
        if self._pattern is None or not self.within(text):
            return text, 0
        found = 0

        def replace(hit: re.Match[str]) -> str:
            nonlocal found
            if hit[1] is not None:  # a mask: kept as it is
                return hit[0]
            found += 1
            return self.masks[hit[2]]

        return self._pattern.sub(replace, text), found


def mask_named(value: Any) -> Any:
    """``value`` with every string or number under a credential-like name masked, at any depth (for
    token requests and answers: ``clientSecret``, ``accessToken``, ``idToken``, ``refreshToken``)."""
    if isinstance(value, dict):
        return {
            key: mask(item) if _scalar(item) and is_secret_name(str(key)) else mask_named(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_named(item) for item in value]
    return value


def mask_answer(value: Any) -> Any:
    """A token answer with every string masked, at any depth, but the members of
    :data:`TOKEN_ANSWER_SHOWN` (an opaque token under an innocent name is masked too)."""
    shown = {name.lower() for name in TOKEN_ANSWER_SHOWN}
    if isinstance(value, dict):
        return {
            key: item if str(key).lower() in shown and _scalar(item) else _masked_answer(item, str(key))
            for key, item in value.items()
        }
    return _masked_answer(value, "")


def _masked_answer(value: Any, name: str) -> Any:
    if isinstance(value, str) or (_scalar(value) and is_secret_name(name)):
        return mask(value) if value != "" else value
    if isinstance(value, dict | list):
        return mask_answer(value) if isinstance(value, dict) else [mask_answer(item) for item in value]
    return value


def answer_credentials(value: Any, whole: bool) -> list[str]:
    """The credentials a parsed token answer holds, to guard before it is written: with ``whole`` (a
    2xx answer) every string at any depth but the members of :data:`TOKEN_ANSWER_SHOWN`, else the
    strings under credential-like names; credential-named ones first, at most :data:`MAX_LEARNED`."""
    shown = {key.lower() for key in TOKEN_ANSWER_SHOWN}
    named: list[str] = []
    others: list[str] = []
    stack: list[tuple[str, Any]] = [("", value)]  # a loop, not recursion: any depth is walked
    while stack:
        name, item = stack.pop()
        if isinstance(item, dict):
            stack.extend((str(key), inner) for key, inner in item.items() if str(key).lower() not in shown)
        elif isinstance(item, list):
            stack.extend((name, inner) for inner in item)
        elif isinstance(item, str) and item:
            if name and is_secret_name(name):  # a credential by its name, whatever its length
                named.append(item)
            elif whole and len(item) >= MIN_GUARDED:  # (a short one may be any word: "ok", "user")
                others.append(item)
    return [*named, *others][:MAX_LEARNED]


def mask_members(value: Any, keep: Iterable[str]) -> Any:
    """A JSON object with every member masked but those named in ``keep`` (a token request: only
    its ``grantType`` is shown)."""
    if not isinstance(value, dict):
        return mask_named(value)
    kept = {name.lower() for name in keep}
    return {
        key: item if str(key).lower() in kept or not _scalar(item) else mask(item)
        for key, item in value.items()
    }


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool) and value != ""
