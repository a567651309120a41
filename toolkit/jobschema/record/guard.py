"""Nothing unredacted leaves the recorder: every text goes through the secret policy in memory first.

Two layers. The secret policy (:func:`jobschema.redact.redact_text`, :func:`jobschema.secrets.scrub`)
masks what looks like a credential: env values under secret names, the raw request's login, HAR
headers such as ``Authorization`` and ``Cookie``, JWTs in free text. Then the :class:`Guard` masks
every credential this run knows in the clear — the client or access key secret, and each token it
was given — wherever it still appears (the policy cannot know that an innocently named field holds
one). A text the policy cannot redact is never written as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from jobschema.secrets import is_secret_name, mask, scrub

#: Shorter known secrets are not searched for: masking every occurrence of a 4-letter string would
#: garble the text, and real secrets and tokens are far longer.
MIN_GUARDED = 8
#: Members of a token answer that hold no credential: shown in the HAR, not guarded.
TOKEN_ANSWER_SHOWN = ("tokenType", "token_type", "expiresIn", "expires_in", "scope")
#: The most strings of one token answer guarded (credential-named ones first): a hostile answer
#: holding millions would slow every later mask.
MAX_LEARNED = 256


class Guard:
    """Masks the credentials of this run in any text."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._forms: dict[str, str] = {}
        self.caught = 0  # how many times a known credential was found after the policy had run
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        """Guard ``secret`` too (a token just received)."""
        if len(secret) < MIN_GUARDED:
            return
        replacement = mask(secret)
        self._forms[secret] = replacement
        escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
        if escaped != secret:
            self._forms[escaped] = replacement
        ascii_escaped = json.dumps(secret)[1:-1]
        if ascii_escaped not in (secret, escaped):
            self._forms[ascii_escaped] = replacement

    def clean(self, text: str) -> str:
        """``text`` with every known credential (also as written inside JSON strings) masked."""
        for form, replacement in self._forms.items():
            if form in text:
                self.caught += 1
                text = text.replace(form, replacement)
        return text

    def line(self, text: str) -> str:
        """A line for stdout or stderr: secret shapes scrubbed, known credentials masked."""
        return self.clean(scrub(text))


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
        elif isinstance(item, str) and len(item) >= MIN_GUARDED:
            if name and is_secret_name(name):
                named.append(item)
            elif whole:
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
