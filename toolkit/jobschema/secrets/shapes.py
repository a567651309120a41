"""Secrets by shape: the parts of any text that look like a credential, wherever they stand.

The value shapes come from detect-secrets' plugins where one fits (their patterns, and their
validity check for JSON Web Tokens); :func:`own` adds what they lack. Only the secret part of a
match is masked (the password of ``postgres://app:PW@host``, the value of ``--hf-token X``); every
other character is kept.

A scan is linear in the text: one pass of two plain alternations finds the *anchors* (literals a
shape cannot match without: ``eyJ``, ``AKIA``, ``://``, a credential word such as ``token``), and at
each anchor only that shape's expression is tried, from a known start (the name holding the anchor,
its line, a few characters back) over a bounded window. Text without any anchor costs two searches
and never imports detect-secrets; it is imported on the first text that has one.

Shapes:

- from detect-secrets (:data:`PLUGINS`): AWS access key ids and quoted AWS secret keys, Azure storage
  account keys, GitHub, GitLab, Slack, Stripe, OpenAI (legacy), PyPI, npm, SendGrid, Twilio, Square,
  Artifactory and Mailchimp tokens; its JWT validity check;
- added here (:func:`own`; add a shape there, with its anchors): the authorization schemes of the
  table (:data:`~jobschema.secrets.table.TOKEN_SCHEMES`, :data:`~jobschema.secrets.table.PARAMETER_SCHEMES`,
  ``bce-auth-v1/…`` whatever its signed headers), whole JWTs, private key blocks, Hugging Face,
  GitHub fine-grained, OpenAI project and Anthropic keys, Google API keys, OAuth client secrets and
  access tokens, Azure AD client secrets, Twilio API keys, AWS STS session tokens, a secret key beside
  its key id (:data:`KEY_PAIRS`: AWS, Baidu BCE), ``user:password@`` with any password (also without
  a scheme: ``admin:pw@db.internal:5432``), a token as a URL's user (``https://<token>@github.com``).

Credentials given by a name (``NAME=VALUE``, ``--flag VALUE``, ``"name": "value"``) are the
named-value reader's (:mod:`jobschema.secrets.named`), commands the command reader's
(:mod:`jobschema.secrets.commands`); :mod:`jobschema.secrets.reading` puts all readers together.
"""

from __future__ import annotations

import re
import re._parser as sre  # type: ignore[import-not-found]  # the parser behind re.compile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, NamedTuple

from jobschema.secrets.consumes import most_consumed
from jobschema.secrets.table import PARAMETER_SCHEMES, TOKEN_SCHEMES, WORD_SCHEMES

Accept = Callable[[str, "re.Match[str]"], bool]


@dataclass(frozen=True)
class Anchor:
    """A literal a shape cannot match without; ``fold``: compared ignoring ASCII case; ``word``: no
    letter may stand right before or after it."""

    text: str
    fold: bool = False
    word: bool = False

    def fragment(self) -> str:
        """The anchor as a regular expression."""
        body = re.escape(self.text)
        if self.word:
            body = f"(?<![A-Za-z]){body}(?![A-Za-z])"
        return f"(?i:{body})" if self.fold else body

    def at(self, text: str, position: int) -> bool:
        """True when the anchor stands at ``position`` of ``text``."""
        end = position + len(self.text)
        part = text[position:end]
        if (part.lower() if self.fold else part) != self.text:
            return False
        return not self.word or (_starts_word(text, position) and _ends_word(text, end))


@dataclass(frozen=True)
class Shape:
    """A secret shape: its expression, anchors, window and which group is the secret.

    ``before`` is how far before an anchor a match may start, ``reach`` how far after it it may end;
    ``start`` where it is tried: ``scan`` every position from ``before`` back to the anchor, ``name``
    where the run of name characters holding the anchor starts, ``quote`` at the nearest quote
    before it, ``line`` where its line starts, ``search`` wherever it starts in its window.
    ``groups`` name the groups that hold the secret (the first one matched counts); empty: the whole
    match. ``quote`` groups are replaced by a
    quoted mask (a number in JSON stays valid JSON). ``accept`` rejects a match (a name that is no
    credential, a JWT that does not decode).
    """

    name: str
    source: str | re.Pattern[str]
    anchors: tuple[Anchor, ...]
    before: int = 0
    reach: int | None = None
    groups: tuple[str | int, ...] = ()
    quote: tuple[str, ...] = ()
    accept: Accept | None = None
    start: str = "scan"

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """The compiled expression (compiled on first use: start-up stays light)."""
        return self.source if isinstance(self.source, re.Pattern) else re.compile(self.source)

    @cached_property
    def after(self) -> int:
        """How far after its anchor a match may end: ``reach``, or, not given, the expression's
        longest match (every repetition is bounded: the gate's window holds any match)."""
        return longest(self.pattern) if self.reach is None else self.reach

    @cached_property
    def grown(self) -> re.Pattern[str] | None:
        """The expression with its long repetitions unbounded (``{20,4096}`` read as ``{20,}``),
        tried where a match was found: a token longer than its format's maximum (a 10,000-character
        bearer token) is masked whole, never cut with its tail shown. None: nothing to lift."""
        lifted = requantified(self.pattern.pattern, _lift)
        return None if lifted == self.pattern.pattern else re.compile(lifted, self.pattern.flags)


#: A repetition that may take this many characters or more is a token's body, whose format's
#: maximum a longer token may exceed (:attr:`Shape.grown`).
LONG = 64


def longest(pattern: re.Pattern[str]) -> int:
    """The most characters one match of ``pattern`` can take (``sre.MAXREPEAT`` or more: unbounded)."""
    return int(sre.parse(pattern.pattern, pattern.flags).getwidth()[1])


def _lift(low: int, high: int | None) -> tuple[int, int | None]:
    return (low, None) if high is not None and high >= LONG and high > low else (low, high)


def bounded(source: str, most: int) -> str:
    """``source`` with every unbounded repetition (``+``, ``*``, ``{n,}``) taking at most ``most``."""
    return requantified(source, lambda low, high: (low, max(low, most) if high is None else high))


_QUANTIFIER = re.compile(r"\{(\d*)(,?)(\d*)\}")


def requantified(source: str, change: Callable[[int, int | None], tuple[int, int | None]]) -> str:
    """``source`` with each repetition's bounds ``(low, high)`` (``high`` None: unbounded) replaced
    by ``change(low, high)``; every other part of the expression kept as written (escapes, sets,
    group openings, lazy and possessive marks)."""
    out: list[str] = []
    at, repeatable = 0, False
    while at < len(source):
        step, repeatable, bounds = _token(source, at, repeatable)
        text = source[at:step]
        if bounds is not None and change(*bounds) != bounds:
            low, high = change(*bounds)
            text = f"{{{low},{'' if high is None else high}}}"
        out.append(text)
        at = step
    return "".join(out)


def _token(source: str, at: int, repeatable: bool) -> tuple[int, bool, tuple[int, int | None] | None]:
    """The token of ``source`` at ``at``: where it ends, whether a quantifier may follow it, and the
    bounds it sets when it is a quantifier of a repeatable atom."""
    char = source[at]
    if char in "\\[(|^":
        return _atom(source, at)
    if not repeatable:  # a lazy or possessive mark after a quantifier, or a literal
        return at + 1, char not in "?+*", None
    if char in "*+":
        return at + 1, False, (0 if char == "*" else 1, None)
    quantifier = _QUANTIFIER.match(source, at) if char == "{" else None
    if quantifier is not None and (quantifier[1] or quantifier[3]):
        low, comma, high = quantifier.groups()
        top = None if comma and not high else int(high or low)
        return quantifier.end(), False, (int(low or 0), top)
    return at + 1, char != "?", None


def _atom(source: str, at: int) -> tuple[int, bool, None]:
    """An escape, a set, a group's opening or an alternation at ``at``: where it ends, and whether
    a quantifier may follow it."""
    char = source[at]
    if char == "\\":
        return at + 2, True, None
    if char == "[":
        end = at + 1 + (source.startswith("^", at + 1))
        end += source.startswith("]", end)
        while source[end] != "]":
            end += 2 if source[end] == "\\" else 1
        return end + 1, True, None
    if char == "(":
        return _group_opening(source, at), False, None
    return at + 1, False, None


def _group_opening(source: str, at: int) -> int:
    """Where a group's opening ends: ``(``, ``(?:``, ``(?P<name>``, ``(?<=``, ``(?i:``, ``(?i)``."""
    if not source.startswith("(?", at):
        return at + 1
    if source.startswith("(?P<", at):
        return source.index(">", at) + 1
    end = at + 2
    if source.startswith(("<=", "<!"), end):
        return end + 2
    while source[end] not in ":=!)":
        end += 1
    return end + 1


#: Small expressions of the scan, compiled on first use (importing this module compiles nothing).
_PATTERNS = {
    # an escape's digits (``%22``, ``\\x22``, ``\\u0022``): where a token grown backwards stops
    "escape-digits": r"(?<=%)[0-9A-Fa-f]{2}|(?<=\\)(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4})",
    "hex": r"[0-9A-Fa-f]{2}",
    "token": r"[A-Za-z0-9_-]*",
}


@cache
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(_PATTERNS[name])


def _letter(text: str, index: int) -> bool:
    return 0 <= index < len(text) and text[index].isascii() and text[index].isalpha()


def _starts_word(text: str, at: int) -> bool:
    """A word starts at ``at``: no letter before it, or a camelCase hump (``bosAk``)."""
    return not _letter(text, at - 1) or (text[at - 1].islower() and text[at].isupper())


def _ends_word(text: str, end: int) -> bool:
    """A word ends before ``end``: no letter after it, or a hump (``akId``, ``AKId``)."""
    if not _letter(text, end):
        return True
    return text[end].isupper() and (
        text[end - 1].islower() or (end + 1 < len(text) and text[end + 1].islower())
    )


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _webhook_token(text: str, match: re.Match[str]) -> bool:
    """A webhook's path holds a token: a UUID, or a part of letters and digits that looks generated
    (``/hooks/12345`` is an id, ``/hooks/deploy-prod`` a name, ``/hooks/useAuth.ts`` a file)."""
    for part in re.split(r"[/@]", match["secret"]):
        if _UUID.fullmatch(part) or (
            len(part) >= 6
            and part.isalnum()
            and not part.isdigit()
            and not part.isalpha()
            and not re.search(r"[a-z]{5,}|[A-Z]{5,}", part)
        ):
            return True
    return False


def _boundary(text: str, match: re.Match[str]) -> bool:
    """No letter or digit right before the match (an escape such as ``\\n`` or ``%20`` before it is a
    boundary)."""
    start = match.start()
    if start == 0 or not text[start - 1].isalnum():
        return True
    if start >= 2 and text[start - 2] == "\\" and text[start - 1] in "ntr":
        return True
    return (
        start >= 3
        and text[start - 3] == "%"
        and _pattern("hex").fullmatch(text[start - 2 : start]) is not None
    )


def _credential_like(text: str, match: re.Match[str]) -> bool:
    """A Bearer/Basic value, not a word: a digit or symbol in it, or several capitals."""
    value = match["secret"]
    if not _boundary(text, match):
        return False
    if any(c.isdigit() or c in "._~+/=-" for c in value):
        return True
    return sum(c.isupper() for c in value) >= 2 and any(c.islower() for c in value)


def _bot_boundary(text: str, match: re.Match[str]) -> bool:
    """A boundary, or ``bot`` right before (a Telegram bot token in its API URL)."""
    return _boundary(text, match) or text[max(0, match.start() - 3) : match.start()] == "bot"


def _userinfo_secret(text: str, match: re.Match[str]) -> bool:
    """A URL's password, or its user when that looks like a token (``https://<token>@host``)."""
    if match["secret"] is not None:
        return True
    from jobschema.secrets.values import looks_random

    user = match["user"]
    return looks_random(user, TOKEN_USER_LENGTH, TOKEN_USER_ENTROPY) and "%40" not in user


#: A version, not a password (``node:18@latest``, ``app:v1.2.3@main``).
_VERSION = re.compile(r"[vV]?\d+(?:[.-]\d+)*")


def _bare_host_login(text: str, match: re.Match[str]) -> bool:
    """``user:X@host`` before a host of one label (``db``, ``redis``): a user is given and X looks
    like a password (a digit, a symbol or a capital in it, not a version, no bracket), so a script's
    name before a branch (``build:lint@main``) is none; with no user (``:X@redis:6379``) X holds no
    bracket."""
    secret = match["secret"]
    if match["login"] is None and any(c in "[](){}" for c in secret):
        return False  # (``user[:passwd]@host[:port]``: a usage's brackets, no login)
    if match["bare"] is None:
        return True
    if match["login"] is None or _VERSION.fullmatch(secret) or secret.startswith("<secret:"):
        return False  # (``:x@db``, no user and a host of one label: too little to go on)
    return any(not c.islower() for c in secret) and not any(c in "[](){}" for c in secret)


def _prompt_secret(text: str, match: re.Match[str]) -> bool:
    """A password after a prompt's ``auth``, not a word of prose quoted in Markdown (``> auth
    required``): a digit, a symbol or a capital in it."""
    return any(not c.islower() for c in match["secret"])


def _not_reference(text: str, match: re.Match[str]) -> bool:
    """A value, not a variable's reference (``::add-mask::$TOKEN``, ``${{ secrets.X }}``)."""
    value = match["secret"].strip()
    return bool(value) and value[0] not in "$%" and not value.startswith("{{")


def _secret_variable(text: str, match: re.Match[str]) -> bool:
    """A pipeline variable set as a secret (``issecret=true``, which the expression requires) or named
    like a credential."""
    from jobschema.secrets.names import is_secret_name

    if match["name"] is not None and not is_secret_name(match["name"]):
        return False
    return _not_reference(text, match)


def _jwt(text: str, match: re.Match[str]) -> bool:
    """A JSON Web Token that decodes (detect-secrets' check), or an encrypted one (JWE: five parts,
    only its header is JSON)."""
    from detect_secrets.plugins.jwt import JwtTokenDetector

    if not _boundary(text, match):
        return False
    token = re.sub(r"\s", "", match.group())
    if token.count(".") == 4:
        return _jose_header(token.partition(".")[0])
    return bool(JwtTokenDetector.is_formally_valid(token))


def _jose_header(part: str) -> bool:
    import base64
    import binascii
    import json

    try:
        header = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and "enc" in header


def _fold(*words: str, word: bool = False) -> tuple[Anchor, ...]:
    return tuple(Anchor(w, fold=True, word=word) for w in words)


def _exact(*words: str) -> tuple[Anchor, ...]:
    return tuple(Anchor(w) for w in words)


_PARAMETER = r"[\w-]{1,64}=(?:\"[^\"\r\n]{0,1024}\"|[^\s,\"]{0,1024})"


#: The token schemes recognised in any text (``Bearer X``, not ``token X``).
_PROSE_SCHEMES = tuple(scheme for scheme in TOKEN_SCHEMES if scheme not in WORD_SCHEMES)
#: A secret key beside its key id (within a few separators, or a short name between them: ``AKIA…
#: wJal…``, ``"ak": "ALTAK…", "sk": "…"``): ``(name, key id, secret key, anchors of the key id, how far
#: into the key id its anchors stand)``. AWS
#: secret access keys are 40 base64 characters, Baidu BCE's 32 hex digits.
KEY_PAIRS = (
    (
        "aws",
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
        r"[A-Za-z0-9/+=]{40}",
        ("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
        0,
    ),
    ("bce", r"ALTAK-?[A-Za-z0-9]{10,40}", r"[0-9a-f]{32}", ("ALTAK",), 0),
    # Tencent Cloud: ``AKID`` and 32 more, its SecretKey 32 letters and digits
    ("tencent", r"AKID[A-Za-z0-9]{13,40}", r"[A-Za-z0-9]{32}", ("AKID",), 0),
    # Alibaba Cloud: ``LTAI`` and 12 to 20 more (anchored on ``TAI``: ``L`` starts no anchor yet),
    # its AccessKey secret 30 letters and digits
    ("alibaba", r"LTAI[A-Za-z0-9]{12,24}", r"[A-Za-z0-9]{30}", ("TAI",), 1),
    # Twilio: an account's SID (``AC`` and 32 hex digits), its auth token 32 hex digits
    ("twilio", r"AC[0-9a-f]{32}", r"[0-9a-f]{32}", ("AC",), 0),
)
#: URI schemes written without ``//`` (``mailto:user@host``): never a login's ``user:password@``.
_NOT_LOGIN_SCHEMES = r"(?i:mailto|sips?|tel|xmpp|im|pres|urn|news|data|cid|mid)"
#: A user of a URL with no password is a token when it looks generated: this long at least, two classes
#: of characters or more, this many bits per character (``https://<token>@github.com/…``; not
#: ``https://alice@host``, ``ssh://git@host``).
TOKEN_USER_LENGTH = 20
TOKEN_USER_ENTROPY = 3.0


class Provider(NamedTuple):
    """A provider's token that says what it is by a literal: its expression, the anchors it cannot
    match without (exact, or folded for a literal whose first character the gates do not branch on
    yet: each new first character slows every report's last search), how far before its anchor the
    token starts (``before``: the anchor is inside it, ``tskey-`` anchored on ``skey-``) and after
    it ends (``reach``)."""

    name: str
    expression: str
    anchors: tuple[Anchor, ...]
    reach: int
    before: int = 0


def _provider(name: str, expression: str, anchors: tuple[str, ...], reach: int) -> Provider:
    return Provider(name, expression, _exact(*anchors), reach)


#: A generated key's lookaheads: a digit and a capital within the key's first characters (``{0}``
#: before them at most; Fireworks' ``fw_`` is a short prefix).
_MIXED = r"(?=[A-Za-z0-9_-]{{0,{0}}}[0-9])(?=[A-Za-z0-9_-]{{0,{0}}}[A-Z])"
#: Nothing of a word right before a token (its prefix starts a word: ``task_``, ``disk_`` hold no ``sk_``).
_ALONE = r"(?<![A-Za-z0-9_-])"
#: Provider tokens that say what they are by a prefix (add one here: a row, its anchors, a test row in
#: tests/test_secrets_unlisted.py).
PROVIDER_TOKENS = (
    _provider("baidu-qianfan", r"bce-v3/ALTAK-[A-Za-z0-9]{8,64}/[0-9a-f]{16,128}", ("bce-v3/",), 220),
    _provider("docker-pat", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,128}", ("dckr_pat_", "dckr_oat_"), 140),
    _provider("groq", r"gsk_[A-Za-z0-9]{40,64}", ("gsk_",), 70),
    _provider("vault", r"hv[sbr]\.[A-Za-z0-9_-]{24,256}", ("hvs.", "hvb.", "hvr."), 260),
    _provider("grafana", r"gl(?:sa|c)_[A-Za-z0-9_+/=]{32,256}", ("glsa_", "glc_"), 262),
    _provider("shopify", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", ("shpat_", "shpss_", "shpca_", "shppa_"), 40),
    _provider("linear", r"lin_api_[A-Za-z0-9]{40}", ("lin_api_",), 50),
    _provider("atlassian", r"ATATT3[A-Za-z0-9_=-]{20,512}", ("ATATT3",), 520),
    _provider("npm", r"npm_[A-Za-z0-9]{36}", ("npm_",), 40),
    _provider("digitalocean", r"do[opr]_v1_[a-f0-9]{64}", ("dop_v1_", "doo_v1_", "dor_v1_"), 72),
    _provider("nvidia-ngc", r"nvapi-[A-Za-z0-9_-]{40,128}", ("nvapi-",), 140),
    _provider("replicate", r"r8_[A-Za-z0-9]{37}", ("r8_",), 42),
    # a Weights & Biases key of a local (self-hosted) server: ``local-`` and the 40 hex digits of a key
    _provider("wandb-local", r"local-[0-9a-f]{40}(?![0-9A-Za-z])", ("local-",), 47),
    _provider("postman", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", ("PMAK-",), 70),
    _provider("sentry", r"sntry[su]_[A-Za-z0-9+/=_-]{40,512}", ("sntrys_", "sntryu_"), 520),
    _provider("figma", r"figd_[A-Za-z0-9_-]{40,64}", ("figd_",), 70),
    _provider(  # a service token names its config (``dp.st.prd.<40>``), a personal one does not
        "doppler",
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,64}",
        ("dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
        120,
    ),
    _provider("square", r"sq0atp-[A-Za-z0-9_-]{22}", ("sq0atp-",), 30),
    _provider("databricks", r"dapi[0-9a-f]{32}(?:-\d)?", ("dapi",), 40),
    _provider("pulumi", r"pul-[0-9a-f]{40}", ("pul-",), 48),
    _provider("mailgun", r"key-[0-9a-f]{32}", ("key-",), 40),
    # a Twitch stream key (``rtmp://live.twitch.tv/app/live_<user id>_<30>``): whoever has it streams
    _provider("twitch-stream-key", r"live_\d{6,12}_[A-Za-z0-9]{20,40}", ("live_",), 90),
    _provider("perplexity", r"pplx-[A-Za-z0-9]{48}", ("pplx-",), 56),
    # Airtable's personal access token: ``pat``, 14 letters and digits, a dot, 64 hex digits (``pat``
    # starts words, but nothing else has this structure: a word fails at its first non-alphanumeric)
    _provider("airtable", r"(?<![A-Za-z0-9])pat[A-Za-z0-9]{14}\.[0-9a-f]{64}(?![0-9a-f])", ("pat",), 82),
    _provider("notion", r"ntn_\d{11}[A-Za-z0-9]{35}", ("ntn_",), 52),
    _provider("notion-integration", r"secret_[A-Za-z0-9]{43}(?![A-Za-z0-9_])", ("secret_",), 52),
    _provider("supabase", r"sbp_[a-f0-9]{40}", ("sbp_",), 46),
    _provider("planetscale", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=._-]{32,64}", ("pscale_",), 80),
    _provider("rubygems", r"rubygems_[a-f0-9]{48}", ("rubygems_",), 60),
    _provider("dynatrace", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}", ("dt0c01.",), 96),
    _provider("mapbox-secret", r"sk\.eyJ[A-Za-z0-9_-]{20,512}\.[A-Za-z0-9_-]{20,128}", ("sk.eyJ",), 650),
    _provider("age", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", ("AGE-SECRET-KEY-1",), 76),
    _provider("stripe-test", r"[sr]k_test_[A-Za-z0-9]{20,247}", ("k_test_",), 260)._replace(before=1),
    Provider("tailscale", r"tskey-[a-z]{3,8}-[A-Za-z0-9]{6,32}-[A-Za-z0-9]{16,64}", _exact("skey-"), 120, 1),
    Provider("facebook", r"EAACEdEose0cBA[A-Za-z0-9]{20,512}", _exact("AACEdEose0cBA"), 530, 1),
    # (the eighth round: prefixed tokens of vendors no row had)
    _provider("netlify", r"nfp_[A-Za-z0-9]{36,64}", ("nfp_",), 70),
    _provider("render", r"rnd_[A-Za-z0-9]{28,64}", ("rnd_",), 70),
    _provider("linear-oauth", r"lin_oauth_[a-f0-9]{64}", ("lin_oauth_",), 76),
    _provider("contentful", r"CFPAT-[A-Za-z0-9_-]{43,64}", ("CFPAT-",), 72),
    _provider("honeycomb-ingest", r"hc(?:aik|ik|ak)_[A-Za-z0-9]{40,96}", ("hcaik_", "hcik_", "hcak_"), 104),
    _provider("adafruit", r"aio_[A-Za-z0-9]{28}", ("aio_",), 34),
    _provider("bitbucket", r"ATBB[A-Za-z0-9_=.-]{32,128}", ("ATBB",), 134),
    _provider("prefect", r"pnu_[A-Za-z0-9]{36}", ("pnu_",), 42),
    _provider("pinecone", r"pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,128}", ("pcsk_",), 144),
    _provider("langsmith", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", ("lsv2_pt_", "lsv2_sk_"), 56),
    _provider("resend", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24,40}", ("re_",), 54),
    _provider("neon", r"napi_[A-Za-z0-9]{64}", ("napi_",), 72),
    _provider("supabase-secret", r"sb_secret_[A-Za-z0-9_-]{24,64}", ("sb_secret_",), 76),
    _provider("dropbox", r"sl\.[A-Za-z0-9_-]{130,1024}", ("sl.",), 1030),
    # Fly.io's macaroon tokens (``FlyV1 fm2_…``)
    _provider("fly", r"fm(?:1[ar]?|2)_[A-Za-z0-9+/=_-]{64,2048}", ("fm1_", "fm2_", "fm1a_", "fm1r_"), 2060),
    _provider(
        "braintree",
        r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
        ("access_token$",),
        80,
    ),
    # an ECR login password (base64 of ``{"payload":…,"datakey":…}``): whoever has it pulls and pushes
    _provider("ecr-login", r"eyJwYXlsb2FkIjoi[A-Za-z0-9+/]{64,8192}={0,2}", ("eyJwYXlsb2FkIjoi",), 8210),
    Provider("cloudflare-origin-ca", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}", _fold("v1.0-"), 180),
    Provider("azure-devops", r"[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}", _exact("AZDO"), 8, 76),
    # Terraform Cloud / Enterprise: 14 characters, ``.atlasv1.``, 60-70 more (folded: the folded gate
    # branches on ``a`` already)
    Provider(
        "terraform-cloud", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}", _fold("atlasv1."), 80, 15
    ),
    Provider("huggingface-org", r"api_org_[A-Za-z]{34}", _fold("api_org_"), 42),
    Provider("new-relic", r"NRAK-[A-Z0-9]{27}", _fold("nrak-"), 32),
    Provider("heroku", r"HRKU-AA[A-Za-z0-9_-]{58}", _fold("hrku-"), 70),
    Provider("onepassword", r"ops_eyJ[A-Za-z0-9+/]{100,2048}={0,3}", _fold("ops_eyj"), 2060),
    Provider("nuget", r"oy2[a-z0-9]{43}(?![A-Za-z0-9])", _fold("oy2"), 46),
    Provider(  # Slack's config, refresh, client and cookie tokens (detect-secrets knows a, b, p, o, s, r)
        "slack-more", r"xox[cde](?:\.xox[a-z])?-[A-Za-z0-9%./+=-]{20,2048}", _fold("xox"), 2060
    ),
    # (the thirteenth round: ML and AI platforms' prefixed keys, CI and code-quality tokens, an
    # Alibaba STS token, PASETO's local tokens; each a structure nothing else has, as a word of its
    # own: ``_ALONE`` before it, so ``task_`` and ``disk_`` hold no ``sk_``, a certificate's base64 no
    # ``CAIS``)
    _provider("tavily", rf"{_ALONE}tvly-(?:dev-|prod-)?[A-Za-z0-9]{{24,64}}", ("tvly-",), 74),
    _provider("anyscale", rf"{_ALONE}esecret_[A-Za-z0-9]{{20,64}}", ("esecret_",), 72),
    _provider("jina", rf"{_ALONE}jina_[A-Za-z0-9_-]{{40,96}}", ("jina_",), 101),
    _provider("llamacloud", rf"{_ALONE}llx-[A-Za-z0-9]{{30,64}}", ("llx-",), 68),
    _provider("runpod", rf"{_ALONE}rpa_[A-Za-z0-9]{{30,64}}", ("rpa_",), 68),
    _provider("kaggle", rf"{_ALONE}KGAT_[0-9a-f]{{32}}", ("KGAT_",), 37),
    _provider("sonarqube", rf"{_ALONE}sq[pua]_[0-9a-f]{{40}}", ("sqp_", "squ_", "sqa_"), 44),
    _provider("buildkite", rf"{_ALONE}bkua_[0-9a-f]{{40}}", ("bkua_",), 45),
    _provider(
        "paseto-local",
        r"(?<![\w.-])v[1-4]\.local\.[A-Za-z0-9_-]{40,4096}",
        ("v1.local.", "v2.local.", "v3.local.", "v4.local."),
        4106,
    ),
    # (folded: an exact ``sk_`` would end the exact gate's branch before Stripe's ``sk_live_``)
    Provider("elevenlabs", rf"{_ALONE}sk_[0-9a-f]{{48}}(?![0-9A-Za-z])", _fold("sk_"), 51),
    _provider("firecrawl", rf"{_ALONE}fc-[0-9a-f]{{32}}(?![0-9A-Za-z])", ("fc-",), 35),
    # (a short prefix: the key holds a digit and a capital, as generated keys do, and no more)
    _provider("fireworks", rf"{_ALONE}fw_{_MIXED.format(23)}[A-Za-z0-9]{{24,48}}", ("fw_",), 51),
    # (Voyage's ``pa-`` and 43 characters of URL-safe base64: exactly)
    _provider("voyage", rf"{_ALONE}pa-[A-Za-z0-9_-]{{43}}(?![A-Za-z0-9_-])", ("pa-",), 46),
    _provider("alibaba-sts", r"(?<![A-Za-z0-9+/])CAIS[A-Za-z0-9+/=]{60,4096}", ("CAIS",), 4100),
)


@cache
def own() -> tuple[Shape, ...]:
    """The shapes added here (detect-secrets lacks them)."""
    return (
        Shape(
            "authorization",
            rf"(?i:{'|'.join(re.escape(s) for s in _PROSE_SCHEMES)})[ \t]{{1,16}}"
            r"(?P<secret>[A-Za-z0-9._~+/:-]{8,4096}={0,2})",
            _fold(*_PROSE_SCHEMES, word=True),
            groups=("secret",),
            accept=_credential_like,
        ),
        Shape(
            "authorization-parameters",
            rf"(?i:{'|'.join(re.escape(s) for s in PARAMETER_SCHEMES)})[ \t]{{1,16}}"
            rf"(?P<secret>{_PARAMETER}(?:[ \t]{{0,16}},[ \t]{{0,16}}{_PARAMETER}){{0,15}})",
            _fold(*PARAMETER_SCHEMES, word=True),
            groups=("secret",),
        ),
        Shape(
            "bce-authorization",
            (r"(?i:bce-auth-v1)/(?P<secret>[^\s\"'<>,\\]{8,4096})"),
            _fold("bce-auth-v1/"),
            reach=4200,
            groups=("secret",),
        ),
        Shape(
            "jwt",
            (
                # (a line may break after a dot: a JWT wrapped in a log, ``\r\n`` too)
                r"eyJ[A-Za-z0-9_-]{2,4096}\.(?:\r?\n[ \t]{0,32})?[A-Za-z0-9_-]{2,32768}\."
                r"(?:\r?\n[ \t]{0,32}(?=[A-Za-z0-9_-]{20}))?"
                r"[A-Za-z0-9_-]{0,4096}"
                r"(?:\.[A-Za-z0-9_-]{2,16384}\.[A-Za-z0-9_-]{2,4096})?"  # a JWE's ciphertext and tag
            ),
            _exact("eyJ"),
            accept=_jwt,
        ),
        Shape(
            "private-key",
            (
                r"(?:-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
                r"|---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----)"
                r"(?P<secret>(?:(?!-----END|---- END)[\s\S]){1,16384})"
            ),
            _exact("PRIVATE KEY"),
            before=60,
            reach=16500,
            groups=("secret",),
        ),
        Shape(  # a private key's DER without its armor, in base64 (``PRIVATE_KEY=MIIEvQIBADAN…``):
            # PKCS#1 RSA (``MII..AIBAAK``, ``MIIEowIBAAK``), PKCS#8 (``MII...IBADAN``), PKCS#12
            # (``MII...IBAzCC``); a certificate or a public key (``MIIBIjAN…``) holds none of these
            "der-private-key",
            r"MII[A-Za-z0-9+/]{2,3}(?:IBAAK|IBADAN|IBAzCC)[A-Za-z0-9+/]{16,16384}={0,2}",
            _exact("IBAAK", "IBADAN", "IBAzCC"),
            before=6,
            reach=16400,
        ),
        Shape(  # an EC key without its armor (SEC 1 P-256, P-384; PKCS#8 EC and Ed25519)
            "der-ec-private-key",
            r"(?:MHcCAQEE|MIGkAgEBBD|MIGHAgEAMBMGByqGSM49|MC4CAQAwBQYDK2Vw)[A-Za-z0-9+/]{16,512}={0,2}",
            _exact("MHcCAQEE", "MIGkAgEBBD", "MIGHAgEAMBMGByqGSM49", "MC4CAQAwBQYDK2Vw"),
            reach=540,
        ),
        Shape(  # an OpenSSH private key's body without its armor (``openssh-key-v1``, base64)
            "openssh-private-body",
            r"b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]{16,16384}={0,2}",
            _exact("b3BlbnNzaC1rZXktdjE"),
            reach=16420,
        ),
        Shape(  # a minisign or signify secret key file: the line after its comment
            "signing-secret-key-file",
            r"untrusted comment: [^\r\n]{0,80}secret key[^\r\n]{0,40}(?:\r?\n|\\r?\\n)"
            r"(?P<secret>[A-Za-z0-9+/]{40,512}={0,2})",
            _exact("untrusted comment:"),
            reach=700,
            groups=("secret",),
        ),
        Shape(  # a PuTTY key file: its private lines (also escaped, in a JSON string)
            "putty-private-lines",
            r"Private-Lines: \d{1,4}(?:\r?\n|\\r?\\n)(?P<secret>[A-Za-z0-9+/=]{4,128}"
            r"(?:(?:\r?\n|\\r?\\n)(?!Private-MAC)[A-Za-z0-9+/=]{4,128}){0,256})",
            _exact("Private-Lines:"),
            reach=34000,
            groups=("secret",),
        ),
        Shape(
            "url-userinfo",
            # (a password may hold a ``#``, as people write them: ``postgres://bob:Qw9#x@db``)
            r"[A-Za-z][A-Za-z0-9+.-]{0,31}://(?:[^\s/?#@:\"'<>]{0,256}:(?P<secret>[^\s/?@\"'<>]{1,1024})"
            r"|(?P<user>[^\s/?#@:\"'<>]{1,1024}))@",
            _exact("@"),
            before=1320,
            reach=1,
            start="search",
            groups=("secret", "user"),
            accept=_userinfo_secret,
        ),
        Shape(  # the same read forward from ``://``: a user or password longer than the window the
            # ``@`` above searches back over (a 2,000-character token as a URL's password), also in a
            # URL longer than 1,024 characters; ``grown`` takes a longer one whole
            "url-userinfo-long",
            # (read forward, a match stops at the authority's end, the first ``/``: its cost is the
            # authority's length, however long the bound)
            r"[A-Za-z0-9+.-]://(?:[^\s/?#@:\"'<>]{0,4096}:(?P<secret>[^\s/?@\"'<>]{1,1048576})"
            r"|(?P<user>[^\s/?#@:\"'<>]{257,1048576}))@",
            _exact("://"),
            before=1,
            groups=("secret", "user"),
            accept=_userinfo_secret,
        ),
        # A protocol's login in a transcript or a client's script (the twelfth round): SASL PLAIN's
        # ``[authzid]\0user\0password`` (what ``AUTH PLAIN``, ``AUTHENTICATE PLAIN``, XMPP's
        # ``<auth mechanism='PLAIN'>`` give in base64: read where the base64 is decoded), IMAP's
        # ``TAG LOGIN user X``, IRC's ``NickServ IDENTIFY [account] X``
        Shape(  # (read from the first NUL: the authorization identity before it is no secret)
            "sasl-plain",
            # (a user and a password of printable ASCII: bytes written ``\x00`` in code are none)
            r"\x00[!#-&(-\[\]-~]{1,255}\x00(?P<secret>[!#-&(-\[\]-~]{1,255})(?![^\s\"'\\])",
            _exact("\x00"),
            groups=("secret",),
        ),
        Shape(
            "imap-login",
            # (a tag with a digit, ``a001``, ``LOGIN``, a user and a password, then the line's or the
            # string's end)
            r"(?<![^\s\"'>])[A-Za-z]{0,8}\d{1,8}[A-Za-z0-9.]{0,8}[ \t]{0,15} LOGIN [ \t]{0,15}"
            r"(?:\"[^\"\r\n]{1,255}\"|[^\s\"]{1,255})[ \t]{1,16}"
            r"(?:\"(?P<quoted>[^\"\r\n]{1,1024})\"|(?P<secret>[^\s\"'\\<]{1,1024}))"
            r"(?=[ \t]{0,16}(?:[\r\n\"'\\<]|$))",
            _exact(" LOGIN "),
            before=40,
            groups=("quoted", "secret"),
        ),
        Shape(
            "nickserv-identify",
            r"(?i:nickserv|/ns|/msg[ \t]{1,8}nickserv)[ \t]{1,8}(?i:identify)(?:[ \t]{1,8}[^\s]{1,64})?"
            r"[ \t]{1,8}(?P<secret>[^\s\"'\\;&|<]{1,1024})(?=[\s\"'\\;&|<]|$)",
            _fold("identify"),
            before=len("/msg") + 8 + len("nickserv") + 8,
            groups=("secret",),
        ),
        Shape(  # a Redis client's prompt line (``> auth X``, ``127.0.0.1:6379> AUTH bob X``)
            "prompt-auth",
            r"(?<![^\s\"'])[\w.:\[\]-]{0,64}> ?(?i:auth) [ \t]{0,7}(?:[^\s\"'\\]{1,64}[ \t]{1,8})?"
            r"(?P<secret>[^\s\"'\\]{1,1024})(?=[ \t]{0,16}(?:[\r\n\"'\\]|$))",
            _fold("> auth ", ">auth "),
            before=64,
            groups=("secret",),
            accept=_prompt_secret,
        ),
        Shape(  # CVS's ``:pserver:user:password@host:/root``
            "cvs-pserver",
            r":pserver:[^\s:@/]{1,64}:(?P<secret>[^\s@]{1,1024})@",
            _exact(":pserver:"),
            groups=("secret",),
        ),
        Shape(  # a CI log command that masks its value: GitHub Actions' ``::add-mask::X``
            "ci-add-mask",
            r"::add-mask::(?P<secret>[^\r\n\"'\\]{1,4096})",
            _exact("::add-mask::"),
            groups=("secret",),
            accept=_not_reference,
        ),
        Shape(  # Azure Pipelines' ``##vso[task.setvariable variable=dbPassword;issecret=true]X``
            "ci-secret-variable",
            r"task\.setvariable[ \t][^\]\r\n]{0,512}?(?:(?i:issecret)[ \t]*=[ \t]*(?i:true)"
            r"|(?i:variable)[ \t]*=[ \t]*(?P<name>[\w.-]{0,64}"
            r"(?i:password|passwd|secret|token|apikey|api_key|credential|credentials))(?=[ \t]*[;\]]))"
            r"[^\]\r\n]{0,512}\](?P<secret>[^\r\n\"'\\]{1,4096})",
            _fold("setvariable"),
            before=len("task."),
            groups=("secret",),
            accept=_secret_variable,
        ),
        Shape(
            "userinfo-without-scheme",
            # (a user, or none: ``:X@redis:6379``, a Redis URL's empty user without ``redis://``)
            rf"(?<![\w/:@.%+-])(?!{_NOT_LOGIN_SCHEMES}:)(?P<login>[A-Za-z_][A-Za-z0-9_.-]{{0,63}})?:"
            # (a password may hold ``#`` and ``?`` after its first character: no URL's fragment or
            # query stands before its ``@`` without a scheme, ``admin:Xk9#mP2vQ@mongo``)
            r"(?P<secret>[^\s/?#@:\"'<>][^\s/@:\"'<>]{0,127})"
            # a host of at most 5 labels (``db.eu-1.corp.example.com``), or any host and a port, an
            # IPv4 or IPv6 address (``[::1]``)
            r"@(?:(?:[A-Za-z0-9-]{1,63}\.){1,4}[A-Za-z]{2,63}|[A-Za-z0-9.-]{1,253}:\d{1,5}"
            r"|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]{2,45}\](?::\d{1,5})?"
            # or a Go driver's network and address (``bob:X@tcp(db:3306)/app``)
            r"|(?:tcp6?|udp|unix)\([^\s()@]{1,253}\)"
            # or a host of one label, as compose names its services (``bob:X@db/app``): the password
            # must look like one there (:func:`_bare_host_login`; ``build:lint@main`` is no login)
            r"|(?P<bare>[A-Za-z][A-Za-z0-9_-]{0,62})(?![:\w.-]))"
            r"(?![\w.-])",
            _exact("@"),
            before=194,
            reach=320,
            start="search",
            groups=("secret",),
            accept=_bare_host_login,
        ),
        Shape("huggingface", (r"hf_[A-Za-z0-9]{30,64}"), _exact("hf_"), reach=70, accept=_boundary),
        Shape("github-fine-grained", (r"github_pat_[A-Za-z0-9_]{22,255}"), _exact("github_pat_"), reach=270),
        Shape(
            "openai-anthropic",
            (r"sk-(?:(?:proj|svcacct|admin|ant)-[A-Za-z0-9_-]{20,512}|[A-Za-z0-9_-]{32,512})"),
            _exact("sk-"),
            reach=530,
            accept=_boundary,
        ),
        *(
            Shape(
                token.name,
                token.expression,
                token.anchors,
                before=token.before,
                reach=token.reach,
                start="search" if token.before > 8 else "scan",
                accept=_boundary,
            )
            for token in PROVIDER_TOKENS
        ),
        # Anchored on a character the gate already branches on (``h``): a new first character
        # (``/``, ``w``) made the gate's search of every report ~20% slower.
        Shape(  # Discord's (and the like's) webhook URL: its last part is the token
            "webhook-url-token",
            r"/api/webhooks/\d{5,30}/(?P<secret>[A-Za-z0-9_-]{30,128})",
            _exact("hooks/"),
            before=len("/api/web"),
            reach=180,
            groups=("secret",),
        ),
        Shape(  # any webhook URL whose path after its hook segment holds the token (Feishu/Lark
            # ``/bot/v2/hook/<uuid>``, Teams ``/webhookb2/…/IncomingWebhook/<hex>/…``, Mattermost
            # ``/hooks/<id>``, Zapier ``/hooks/catch/<n>/<id>/``); anchored on ``h``, as above
            "webhook-path",
            r"://(?:hooks\.[^\s/?#@]{1,253}/|[^\s/?#@]{1,253}/(?:[^\s?#/]{1,128}/){0,8}?[A-Za-z]{0,16}hook(?:s|b2)?/)"
            r"(?P<secret>[^\s?#\"'<>\\]{6,1024})",
            _exact("hook/", "hooks/", "hookb2/", "hooks."),  # (``hooks.``: a hooks host, Slack's workflows)
            before=1300,
            reach=1100,
            start="search",
            groups=("secret",),
            accept=_webhook_token,
        ),
        # ``x`` starts no exact anchor but folded ones: these are found by the folded gate, free.
        Shape(
            "slack-app",
            r"xapp-\d-[A-Za-z0-9]{6,16}-\d{6,20}-[A-Za-z0-9]{20,128}",
            _fold("xapp-"),
            reach=180,
            accept=_boundary,
        ),
        Shape("xai", r"xai-[A-Za-z0-9]{40,128}", _fold("xai-"), reach=140, accept=_boundary),
        Shape(  # Stripe's webhook signing secret
            "stripe-webhook",
            r"whsec_[A-Za-z0-9+/=]{24,128}",
            _exact("hsec_"),
            before=len("w"),
            reach=140,
            accept=_boundary,
        ),
        Shape(
            "telegram-bot",
            r"\d{6,12}:AA[A-Za-z0-9_-]{30,40}",
            _exact(":AA"),
            before=12,
            reach=45,
            accept=_bot_boundary,
        ),
        *(
            Shape(  # (every part bounded: a match is never longer than its reach, which the gate scans)
                f"secret-beside-id-{name}",
                rf"{key_id}[\s,;:|\"'=]{{1,4}}(?:[A-Za-z_]{{1,24}}[\"']?[ \t]{{0,4}}[:=][ \t]{{0,4}}[\"']?)?"
                rf"(?P<secret>{secret})(?![A-Za-z0-9/+=])",
                _exact(*anchors),
                before=before,
                reach=130,
                groups=("secret",),
                accept=_boundary,
            )
            for name, key_id, secret, anchors, before in KEY_PAIRS
        ),
        Shape(
            "twilio-api-key",
            r"SK[0-9a-f]{32}(?![0-9A-Za-z])",
            _exact(*(f"SK{c}" for c in "0123456789abcdef")),
            reach=40,
            accept=_boundary,
        ),
        Shape(
            "aws-session-token",
            r"(?:IQoJb3JpZ2luX2Vj|AgoJb3JpZ2luX2Vj|FwoGZXIvYXdzE|FQoGZXIvYXdzE)[A-Za-z0-9+/]{40,8192}={0,2}",
            _exact("IQoJb3JpZ2luX2Vj", "AgoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE", "FQoGZXIvYXdzE"),
            reach=8220,
            accept=_boundary,
        ),
        Shape(
            "oracle-login",
            r"(?:(?i:jdbc:oracle:\w{1,16}:@?|userid[ \t]{0,4}=[ \t]{0,4})"
            r"|(?:(?i:sqlplus)|expdp|sqlldr|rman|dgmgrl)[ \t]{1,16}"
            r"(?:(?:-\w{1,32}|target|auxiliary|catalog)[ \t]{1,16}){0,3})"
            r"[\w.$#-]{1,128}/(?:(?P<secret>[^@\s\"'/]{1,1024})@"
            # ``sqlplus -S system/PASSWORD @script.sql``: no database named, the login ends the word
            r"|(?P<bare>(?![$%{])[^@\s\"'/]{1,1024})(?=[\s\"']|$))",
            # (Oracle's tools by the gates' branches: ``e``, ``r``, ``d`` exact, ``userid=`` folded
            # on its ``s``, a character before; ``imp``/``impdp`` would need a new first character)
            (
                *_fold("jdbc:oracle"),
                *_fold("sqlplus", word=True),
                *(Anchor(tool, word=True) for tool in ("expdp", "sqlldr", "rman", "dgmgrl")),
                Anchor("serid", fold=True),
            ),
            before=1,
            groups=("secret", "bare"),
        ),
        Shape(
            "password-hash",
            r"\$(?:1|2[abxy]|5|6|7|y|apr1|argon2(?:id|i|d)|scrypt|pbkdf2[\w-]{0,16})\$[./A-Za-z0-9$=,+-]{8,512}",
            _exact(
                "$1$",
                "$2a$",
                "$2b$",
                "$2x$",
                "$2y$",
                "$5$",
                "$6$",
                "$7$",
                "$y$",
                "$apr1$",
                "$argon2",
                "$scrypt$",
                "$pbkdf2",
            ),
            reach=560,
        ),
        Shape(  # a scheme in braces before a hash or a password: an LDAP ``userPassword``/``rootpw
            # {SSHA}…``, an htpasswd ``bob:{SHA}…`` line, Dovecot's ``{SHA512-CRYPT}$6$…``, ``{PLAIN}x``
            "scheme-hash",
            r"\{(?:S?SHA(?:1|224|256|384|512)?(?:\.B64)?|S?MD5|(?:BLF-|SHA256-|SHA512-|MD5-|B)?CRYPT"
            r"|PBKDF2(?:[_-]SHA(?:1|256|512))?|ARGON2(?:I|ID|D)?|CRAM-MD5|PLAIN(?:-MD5)?|CLEARTEXT)\}"
            r"(?P<secret>[A-Za-z0-9+/=.$_,-]{4,1024})",
            _exact(
                *(f"SHA{n}}}" for n in ("", "1", "224", "256", "384", "512")),
                "B64}",
                "MD5}",
                "CRYPT}",
                "PBKDF2",
                "ARGON2",
                "PLAIN}",
                "CLEARTEXT}",
            ),
            before=16,
            reach=1040,
            groups=("secret",),
        ),
        Shape("google-api-key", (r"AIza[0-9A-Za-z_-]{35}"), _exact("AIza"), reach=40),
        Shape("google-oauth-secret", (r"GOCSPX-[A-Za-z0-9_-]{28}"), _exact("GOCSPX-"), reach=40),
        Shape("google-oauth-token", (r"ya29\.[0-9A-Za-z_-]{20,4096}"), _exact("ya29."), reach=4110),
        Shape(
            "azure-client-secret",
            (r"[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
            _exact("Q~"),
            before=4,
            reach=40,
        ),
    )


#: detect-secrets plugins used, with the anchors of each pattern in their ``denylist`` (in order) and
#: how far before its anchor a match may start. The secret is the whole match, except for the
#: patterns of :data:`PLUGIN_GROUPS` (a group holds it; detect-secrets' other groups are prefixes).
#: Left out: KeywordDetector (its line expressions backtrack without bound on long lines; the
#: ``assignment``/``flag``/``member`` shapes cover it with bounded windows), BasicAuthDetector (the
#: ``url-password`` shape finds every password it finds, and those with ``$`` or ``!`` too), the
#: high-entropy detectors (they flag every id, hash and base64 body), public IPs and Twilio SIDs (not
#: credentials), the IBM, SoftLayer and Cloudant detectors (keyword forms of those clouds only),
#: Discord and Telegram tokens (no literal to anchor a linear scan on). A pattern's anchors narrow
#: where it is tried (``AP`` and a hex digit for Artifactory, ``-us`` and a digit for Mailchimp), so
#: detect-secrets is imported only for text that may hold one of its shapes.
PLUGINS: dict[str, tuple[tuple[tuple[Anchor, ...], int], ...]] = {
    "AWSKeyDetector": ((_exact("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), 0), (_fold("aws"), 0)),
    "ArtifactoryDetector": ((_exact("AKC"), 1), (_exact(*(f"AP{c}" for c in "0123456789ABCDEF")), 1)),
    "AzureStorageKeyDetector": ((_exact("AccountKey="), 0),),
    "GitHubTokenDetector": ((_exact("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), 0),),
    "GitLabTokenDetector": (
        (_exact("glpat-", "gldt-", "glft-", "glsoat-", "glrt-"), 0),
        (_exact("GR1348941"), 0),
        (_exact("glcbt-"), 0),
        (_exact("glimt-"), 0),
        (_exact("glptt-"), 0),
        (_exact("glagent-"), 0),
        (_exact("gloas-"), 0),
    ),
    "MailchimpDetector": ((_exact(*(f"-us{d}" for d in "0123456789")), 32),),
    "NpmDetector": ((_exact("_authToken"), 4 + 512),),
    "OpenAIDetector": ((_exact("T3BlbkFJ"), 3 + 512 + 20),),
    "PypiTokenDetector": ((_exact("pypi-AgEIcHlwaS5vcmc"), 0), (_exact("pypi-AgENdGVzdC5weXBpLm9yZw"), 0)),
    "SendGridDetector": ((_exact("SG."), 0),),
    "SlackDetector": ((_fold("xox"), 0), (_fold("https://hooks.slack.com/"), 0)),
    "SquareOAuthDetector": ((_exact("sq0csp-"), 0),),
    "StripeDetector": ((_exact("k_live_"), 1),),
}


#: The most characters one repetition of a detect-secrets pattern takes: its expressions leave some
#: unbounded (``+``, ``*``, ``{70,}``), bounded here by the token format's real maximum (and the
#: before of :data:`PLUGINS` by the part before the anchor), so the gate's window holds any match; a
#: longer token is still masked whole (:attr:`Shape.grown` lifts the bounds again where one matched).
PLUGIN_MOST = {
    "ArtifactoryDetector": 128,  # an API key is ``AKC`` and 70 more, an encrypted password shorter
    "NpmDetector": 512,  # an ``.npmrc`` line: a registry's path, a token (``npm_`` and 36)
    "OpenAIDetector": 512,  # a project key before its ``T3BlbkFJ``: ~160
    "PypiTokenDetector": 4096,  # a macaroon: ~200, more with caveats
    "SlackDetector": 64,  # a workspace, user or bot id (digits), a 24-64 character secret
}
#: The bound of any other unbounded repetition (detect-secrets may add one).
PLUGIN_MOST_ELSE = 256


PLUGIN_GROUPS = {"AWSKeyDetector[1]": 1, "BasicAuthDetector[0]": 1, "NpmDetector[0]": 1}


def _plugin_shapes() -> Iterator[Shape]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    mapping: dict[str, Any] = get_mapping_from_secret_type_to_class()
    classes: dict[str, Any] = {plugin.__name__: plugin for plugin in mapping.values()}
    for name, anchored in PLUGINS.items():
        patterns = list(classes[name]().denylist)
        if len(patterns) != len(anchored):
            raise RuntimeError(
                f"detect-secrets {name} has {len(patterns)} patterns, {len(anchored)} anchored"
            )
        for index, (pattern, (anchors, before)) in enumerate(zip(patterns, anchored, strict=True)):
            start = "search" if before > 64 else "scan"
            label = f"{name}[{index}]"
            group = PLUGIN_GROUPS.get(label)
            groups = () if group is None else (group,)
            most = PLUGIN_MOST.get(name, PLUGIN_MOST_ELSE)
            source = re.compile(bounded(pattern.pattern, most), pattern.flags)
            yield Shape(label, source, anchors, before=before, start=start, groups=groups)


def _by_anchor(found: Iterable[Shape]) -> dict[Anchor, tuple[Shape, ...]]:
    table: dict[Anchor, tuple[Shape, ...]] = {}
    for shape in found:
        for anchor in shape.anchors:
            table[anchor] = (*table.get(anchor, ()), shape)
    return table


@cache
def _own_by_anchor() -> dict[Anchor, tuple[Shape, ...]]:
    return _by_anchor(own())


@cache
def _plugin_by_anchor() -> dict[Anchor, tuple[Shape, ...]]:
    return _by_anchor(_plugin_shapes())


@cache
def _plugin_anchors() -> frozenset[Anchor]:
    return frozenset(a for anchored in PLUGINS.values() for anchors, _ in anchored for a in anchors)


@cache
def shapes() -> tuple[Shape, ...]:
    """Every shape: detect-secrets' (imported now) and :func:`own`'s."""
    return (*_plugin_shapes(), *own())


def _anchors() -> tuple[Anchor, ...]:
    found = {a for shape in own() for a in shape.anchors}
    found |= {a for anchored in PLUGINS.values() for anchors, _ in anchored for a in anchors}
    return tuple(sorted(found, key=lambda a: (-len(a.text), a.text, a.fold, a.word)))


@cache
def _gates() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Plain alternations (fast to search): exact anchors in the text, folded ones in its lowercase.

    No anchor holds a line break, so an anchor in a text lies within one of its lines
    (:func:`anchor_positions`)."""
    anchors = _anchors()
    broken = [a.text for a in anchors if "\n" in a.text]
    if broken:
        raise ValueError(f"secret shape anchors must not hold a line break: {broken!r}")
    exact = _trie([a.text for a in anchors if not a.fold])
    folded = _trie([a.text for a in anchors if a.fold])
    return re.compile(exact), re.compile(folded)


def _trie(words: list[str]) -> str:
    """One expression matching any of ``words``, branching a character at a time (a trie), so the
    search rejects most positions at their first character."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _branch(tree)


def _branch(node: dict[str, Any]) -> str:
    if "" in node:
        return ""  # a word ends here: its longer words need no separate match
    parts = [re.escape(char) + _branch(child) for char, child in sorted(node.items())]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


@cache
def _by_first() -> dict[str, tuple[Anchor, ...]]:
    first: dict[str, list[Anchor]] = {}
    for anchor in _anchors():
        chars = {anchor.text[0], anchor.text[0].upper()} if anchor.fold else {anchor.text[0]}
        for char in chars:
            first.setdefault(char, []).append(anchor)
    return {char: tuple(found) for char, found in first.items()}


def anchors_hold(fragment: str) -> bool:
    """True when an anchor's text holds ``fragment`` (a folded anchor's ignoring ASCII case): a gate
    match never spans a place of a text where ``fragment`` does not stand, so a text may be searched
    in pieces cut there (:mod:`jobschema.report.anchors`). No anchor holds a line break."""
    exact, folded = _anchor_texts()
    return "\n" not in fragment and (fragment in exact or fragment.lower() in folded)


@cache
def _anchor_texts() -> tuple[str, str]:
    """The exact and the folded anchors' texts, each joined by line breaks (searched in one pass)."""
    anchors = _anchors()
    return "\n".join(a.text for a in anchors if not a.fold), "\n".join(a.text for a in anchors if a.fold)


def _lower(text: str) -> str:
    """``text`` in lowercase, position for position (``str.lower`` lengthens a dotted capital I)."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c.lower() if c.isascii() else "\0" for c in text)


def anchor_positions(text: str) -> list[int]:
    """Where the gates match in ``text``, sorted: the positions where an anchor may stand. Without
    any, :func:`token_spans` is empty.

    No anchor holds a line break, so in a text made of whole lines (each ending in one) the
    positions are each line's own, moved by the line's offset, whenever the text is ASCII (the
    lowercase of a line is then its part of the lowercase of the text). A text with characters
    beyond ASCII may lowercase differently as a whole, but never to more ASCII: each of its
    anchors is found in a line too. The lines of a report rendered in several processes are
    searched where they are rendered (:func:`jobschema.report.render_section`)."""
    exact, folded = _gates()
    found = [m.start() for m in exact.finditer(text)]
    found += [m.start() for m in folded.finditer(_lower(text))]
    return sorted(set(found))


def _hits(text: str, positions: Iterable[int]) -> Iterator[tuple[int, Anchor]]:
    """Every anchor standing at one of ``positions`` of ``text`` (several may start at one position).

    Each gate is a trie: a match starting inside another of the same gate is never an anchor the
    other does not already cover (``auth`` in ``bce-auth-v1/`` leads to no shape of its own there)."""
    first = _by_first()
    for at in positions:
        for anchor in first.get(text[at], ()):
            if anchor.at(text, at):
                yield at, anchor


def token_spans(text: str, positions: Sequence[int] | None = None) -> list[tuple[int, int, bool]]:
    """The parts of ``text`` that have a secret shape: ``(start, end, quoted)`` spans, unsorted.

    ``positions``: :func:`anchor_positions` of ``text`` when the caller has them already."""
    positions = anchor_positions(text) if positions is None else positions
    if not positions:
        return []
    done: dict[str, int] = {}
    spans = []
    own_shapes, plugin_anchors = _own_by_anchor(), _plugin_anchors()
    for at, anchor in _hits(text, positions):
        candidates = own_shapes.get(anchor, ())
        if anchor in plugin_anchors:  # detect-secrets is imported on the first of these
            candidates += _plugin_by_anchor().get(anchor, ())
        for shape, match in _around(text, at, anchor, candidates, done):
            span = _span(text, shape, match)
            if span is not None:
                spans.append(span)
    return spans


def _around(
    text: str, at: int, anchor: Anchor, candidates: Iterable[Shape], done: dict[str, int]
) -> Iterator[tuple[Shape, re.Match[str]]]:
    """The match of each shape that covers the anchor at ``at``."""
    for shape in candidates:
        if done.get(shape.name, -1) > at:
            continue
        # (one character more: a lookahead after the longest match sees the text, not its end)
        end = min(len(text), at + len(anchor.text) + shape.after + 1)
        for tried in _tried(text, at, end, shape, anchor):
            if tried.end() > at and (shape.accept is None or shape.accept(text, tried)):
                match = _grown(text, shape, tried)
                done[shape.name] = match.end()
                yield shape, match
                break


def _grown(text: str, shape: Shape, match: re.Match[str]) -> re.Match[str]:
    """``match``, or the longer match of the shape's :attr:`~Shape.grown` expression from the same
    start: a token longer than its format's maximum is taken whole (tried only where a match was
    found and accepted, so only secrets pay for it)."""
    if shape.grown is None:
        return match
    longer = shape.grown.match(text, match.start())
    return longer if longer is not None and longer.end() > match.end() else match


def _tried(text: str, at: int, end: int, shape: Shape, anchor: Anchor) -> Iterator[re.Match[str]]:
    """The matches of ``shape`` that may cover the anchor at ``at``, from the shape's start rule."""
    if shape.start == "search":  # a literal-led pattern starting anywhere in its window
        position = _search_from(text, at, shape, anchor)
        while (match := shape.pattern.search(text, position, end)) is not None and match.start() <= at:
            yield match
            position = match.start() + 1
        return
    for start in _starts(text, at, shape):
        match = shape.pattern.match(text, start, end)
        if match is not None:
            yield match


def _search_from(text: str, at: int, shape: Shape, anchor: Anchor) -> int:
    """Where the search for a match covering the anchor at ``at`` starts: the start of the shape's
    window, or just after the anchor's first character last stands before ``at`` when the shape's
    expression consumes that character at most once a match. A match starting earlier and covering
    ``at`` would consume it twice, so the matches skipped are those that end before the anchor:
    packed credentials (``a://u:p@h a://u:p@h …``) cost the same per anchor, however many precede."""
    low = max(0, at - shape.before)
    if anchor.fold or not _consumed_once(shape.pattern, anchor.text[0]):
        return low
    return max(low, text.rfind(anchor.text[0], low, at) + 1)


@cache
def _consumed_once(pattern: re.Pattern[str], char: str) -> bool:
    return most_consumed(pattern, char) <= 1


def _starts(text: str, at: int, shape: Shape) -> Iterable[int]:
    return range(at, max(0, at - shape.before) - 1, -1)


def _span(text: str, shape: Shape, match: re.Match[str]) -> tuple[int, int, bool] | None:
    for group in shape.groups:
        if match[group]:
            start, end = match.span(group)
            return _trimmed(text, start, end, group in shape.quote)
    start, end = match.span()
    return _trimmed(text, *_whole_token(text, start, end), False)


def _whole_token(text: str, start: int, end: int) -> tuple[int, int]:
    """A key matched by its fixed-length shape, grown to the whole token around it: a longer
    token keeps no visible tail (``AIza…`` plus characters the pattern does not count)."""
    if end - start < 12 or not (text[start].isalnum() and text[end - 1].isalnum()):
        return start, end
    after = _pattern("token").match(text, end)
    before = _pattern("token").match(text[max(0, start - 64) : start][::-1])
    grown = start - (before.end() if before else 0)
    # (never into an escape's digits before the token: ``%22sk-…``, ``\x22sk-…``, ``\u0022sk-…`` --
    # the mask would leave the ``%`` of ``%22`` behind, and a second reading decode it)
    escape = _pattern("escape-digits").match(text, grown, start) if grown > 0 else None
    if escape is not None and text[grown - 1] in "%\\":
        grown = escape.end()
    return grown, after.end() if after else end


def _trimmed(text: str, start: int, end: int, quoted: bool) -> tuple[int, int, bool] | None:
    """The span without surrounding space or quotes (detect-secrets' whole matches take a boundary
    character) and never ending inside a backslash escape (the text may be JSON)."""
    while start < end and text[start] in " \t\r\n\"'=:":
        start += 1
    while start < end and text[end - 1] in " \t\r\n\"'":
        end -= 1
    while start < end and text[end - 1] == "\\":
        end -= 1
    return (start, end, quoted) if start < end else None


def printable(text: str) -> str:
    """``text`` with lone surrogates (which UTF-8 cannot encode) written as ``\\udXXX`` escapes: the
    form JSON gives them, and readable in text. The last step of a report, after :func:`scrub`."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
