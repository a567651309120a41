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
