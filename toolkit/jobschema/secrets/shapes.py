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
  account keys, ``user:password@`` in URLs, GitHub, GitLab, Slack, Stripe, OpenAI (legacy), PyPI,
  npm, SendGrid, Twilio, Square, Artifactory and Mailchimp tokens; its JWT validity check;
- added here (:func:`own`; add a shape there, with its anchors): ``Bearer``/``Basic``/``bce-auth-v1/``
  authorization values, whole JWTs, private key blocks, Hugging Face, GitHub fine-grained, OpenAI
  project and Anthropic keys, Google API keys, OAuth client secrets and access tokens, Azure AD
  client secrets, ``docker login -p X``, ``user:password@`` with any password, and credential-like
  names given a value in text: ``NAME=VALUE`` (query strings, form bodies, shell), ``--flag VALUE``
  and ``--flag=VALUE``, ``"name": "value"`` (JSON, also escaped inside JSON text, and JavaScript)
  and ``Authorization:``/``Cookie:`` header lines.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from jobschema.secrets.mask import mask
from jobschema.secrets.names import is_secret_name, is_secret_parameter

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
    reach: int = 8192
    groups: tuple[str | int, ...] = ()
    quote: tuple[str, ...] = ()
    accept: Accept | None = None
    start: str = "scan"

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """The compiled expression (compiled on first use: start-up stays light)."""
        return self.source if isinstance(self.source, re.Pattern) else re.compile(self.source)


#: Small expressions of the scan, compiled on first use (importing this module compiles nothing).
_PATTERNS = {
    "hex": r"[0-9A-Fa-f]{2}",
    # masks already in a text (also XML-escaped): never scanned again, so scrubbing twice is once
    "masks": r"(?:<|&lt;)secret:[0-9a-f]{8}(?:>|&gt;)",
    "name": r"[\w.$-]*",
    "after-name": r"[\w.$-]*(?:(?:\\?[\"'])?[ \t]*[:=]|(?P<space>[ \t]))",
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


def _named(text: str, match: re.Match[str]) -> bool:
    name = match["name"]
    if is_secret_name(name):
        return True
    start = match.start("name")
    return start > 0 and text[start - 1] in "?&" and is_secret_parameter(name)


def _secret_name(text: str, match: re.Match[str]) -> bool:
    return is_secret_name(match["name"])


def _jwt(text: str, match: re.Match[str]) -> bool:
    from detect_secrets.plugins.jwt import JwtTokenDetector

    return _boundary(text, match) and bool(JwtTokenDetector.is_formally_valid(match.group()))


def _fold(*words: str, word: bool = False) -> tuple[Anchor, ...]:
    return tuple(Anchor(w, fold=True, word=word) for w in words)


def _exact(*words: str) -> tuple[Anchor, ...]:
    return tuple(Anchor(w) for w in words)


#: The credential words whose occurrence starts a look for ``NAME=VALUE``-like text.
STEMS = (
    *_fold("pass", "pwd", "secret", "token", "credential", "cookie", "sig", "key", "auth", "session"),
    *_fold("dockercfg", "dockerconfigjson", "contrasena"),
    *_fold("ak", "sk", "psk", "otp", "pat", word=True),
)
_VALUE = (
    r"(?:\"(?P<dq>[^\"\n]{1,4096})\"|'(?P<sq>[^'\n]{1,4096})'"
    r"|(?P<bare>[^\s&\"'<>;,`)\]}|\\]{1,4096}))"
)
_QUOTED = r"(?P<q>\\?[\"'])"
_TEMPERED = r"(?:(?!(?P=q))[^\n]){1,4096}"
_VALUE_GROUPS = ("dq", "sq", "bare")


@cache
def own() -> tuple[Shape, ...]:
    """The shapes added here (detect-secrets lacks them)."""
    return (
        Shape(
            "authorization",
            (r"(?i:bearer|basic)[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{8,4096}=*)"),
            _fold("bearer", "basic"),
            reach=4200,
            groups=("secret",),
            accept=_credential_like,
        ),
        Shape(
            "bce-authorization",
            (r"(?i:bce-auth-v1)/(?P<secret>[^\s\"'<>,;\\]{8,4096})"),
            _fold("bce-auth-v1/"),
            reach=4200,
            groups=("secret",),
        ),
        Shape(
            "jwt",
            (r"eyJ[A-Za-z0-9_-]{2,4096}\.[A-Za-z0-9_-]{2,8192}\.[A-Za-z0-9_-]{0,4096}"),
            _exact("eyJ"),
            reach=16400,
            accept=_jwt,
        ),
        Shape(
            "private-key",
            (
                r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
                r"(?P<secret>(?:(?!-----END)[\s\S]){1,16384})"
            ),
            _exact("PRIVATE KEY"),
            before=60,
            reach=16500,
            groups=("secret",),
        ),
        Shape(
            "url-password",
            (r"[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s/?#@:\"'<>]{0,256}:(?P<secret>[^\s/?#@\"'<>]{1,1024})@"),
            _exact("@"),
            before=1320,
            reach=1,
            start="search",
            groups=("secret",),
        ),
        Shape("huggingface", (r"hf_[A-Za-z0-9]{30,64}"), _exact("hf_"), reach=70, accept=_boundary),
        Shape("github-fine-grained", (r"github_pat_[A-Za-z0-9_]{22,255}"), _exact("github_pat_"), reach=270),
        Shape(
            "openai-anthropic",
            (r"sk-(?:proj|svcacct|admin|ant)-[A-Za-z0-9_-]{20,512}"),
            _exact("sk-"),
            reach=530,
            accept=_boundary,
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
        Shape(
            "registry-login",
            (
                r"(?i:(?:docker|podman|nerdctl|buildah|skopeo|helm(?:[ \t]{1,16}registry)?)"
                r"[ \t]{1,16}login)\b"
                r"[^\n|;&]{0,256}?[ \t]-p[ \t]+(?P<secret>[^\s\"'`]{1,4096})"
            ),
            _fold("login"),
            before=48,
            start="search",
            reach=4400,
            groups=("secret",),
        ),
        Shape(
            "assignment",
            (r"(?<![\w.-])(?P<name>[A-Za-z_][\w.-]{0,127})=(?!=)" + _VALUE),
            STEMS,
            before=130,
            reach=4240,
            groups=_VALUE_GROUPS,
            accept=_named,
            start="name",
        ),
        Shape(
            "flag",
            (r"(?<![\w-])--?(?P<name>[A-Za-z][\w-]{0,127})(?:=|[ \t]+)(?!-)" + _VALUE),
            STEMS,
            before=132,
            reach=4240,
            groups=_VALUE_GROUPS,
            accept=_secret_name,
            start="name",
        ),
        Shape(
            "member",
            (
                _QUOTED + r"(?P<name>[^\"'\\\n]{1,128})(?P=q)[ \t]*:[ \t]*"
                r"(?:(?P=q)(?P<val>" + _TEMPERED + r")(?P=q)|(?P<num>-?\d[\d.eE+-]{0,64}))"
            ),
            STEMS,
            before=132,
            reach=4240,
            groups=("val", "num"),
            quote=("num",),
            accept=_secret_name,
            start="quote",
        ),
        Shape(
            "script-member",
            (
                r"(?<![\w.$-])(?P<name>[A-Za-z_$][\w$.-]{0,127})[ \t]*[:=][ \t]*(?P<q>[\"'`])"
                r"(?P<val>" + _TEMPERED + r")(?P=q)"
            ),
            STEMS,
            before=130,
            reach=4240,
            groups=("val",),
            accept=_secret_name,
            start="name",
        ),
        Shape(
            "header-line",
            (
                r"(?im)^(?P<name>(?:proxy-)?authorization|(?:set-)?cookie|x-[\w-]{1,64})"
                r"[ \t]*:[ \t]*(?P<val>[^\r\n]{1,8192})"
            ),
            (*_fold("authorization", "cookie"), *STEMS),
            before=80,
            reach=8300,
            groups=("val",),
            accept=_secret_name,
            start="line",
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
    "NpmDetector": ((_exact("_authToken"), 4096),),
    "OpenAIDetector": ((_exact("T3BlbkFJ"), 600),),
    "PypiTokenDetector": ((_exact("pypi-AgEIcHlwaS5vcmc"), 0), (_exact("pypi-AgENdGVzdC5weXBpLm9yZw"), 0)),
    "SendGridDetector": ((_exact("SG."), 0),),
    "SlackDetector": ((_fold("xox"), 0), (_fold("https://hooks.slack.com/"), 0)),
    "SquareOAuthDetector": ((_exact("sq0csp-"), 0),),
    "StripeDetector": ((_exact("k_live_"), 1),),
}


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
            yield Shape(label, pattern, anchors, before=before, start=start, groups=groups)


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
    """Plain alternations (fast to search): exact anchors in the text, folded ones in its lowercase."""
    anchors = _anchors()
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


def _lower(text: str) -> str:
    """``text`` in lowercase, position for position (``str.lower`` lengthens a dotted capital I)."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c.lower() if c.isascii() else "\0" for c in text)


def _hits(text: str) -> Iterator[tuple[int, Anchor]]:
    """Every anchor in ``text``, in order of position (several may start at one position)."""
    exact, folded = _gates()
    # Each gate is a trie: a match starting inside another of the same gate is never an anchor the
    # other does not already cover (``auth`` in ``bce-auth-v1/`` leads to no shape of its own there).
    found = [m.start() for m in exact.finditer(text)]
    found += [m.start() for m in folded.finditer(_lower(text))]
    first = _by_first()
    for at in sorted(set(found)):
        for anchor in first.get(text[at], ()):
            if anchor.at(text, at):
                yield at, anchor


def may_hold_secret(text: str) -> bool:
    """False when ``text`` holds no secret shape; cheap (a short text is looked up, a long one has
    its anchors searched)."""
    if len(text) <= SHORT:
        return bool(find(text))
    exact, folded = _gates()
    if exact.search(text) is None and folded.search(text.lower()) is None:
        return False
    return next(_hits(text), None) is not None


#: Texts up to this length have their spans remembered (keys, names and values repeat in captures).
SHORT = 256
_REMEMBERED: dict[str, tuple[tuple[int, int, bool], ...]] = {}
_REMEMBER_AT_MOST = 65536


_END = 2**63


def find(text: str) -> tuple[tuple[int, int, bool], ...]:
    """The secret parts of ``text``: ``(start, end, quoted)`` spans, sorted, not overlapping."""
    if len(text) > SHORT:
        return _find(text)
    found = _REMEMBERED.get(text)
    if found is None:
        if len(_REMEMBERED) >= _REMEMBER_AT_MOST:
            _REMEMBERED.clear()
        found = _REMEMBERED[text] = _find(text)
    return found


def _find(text: str) -> tuple[tuple[int, int, bool], ...]:
    exact, folded = _gates()
    if exact.search(text) is None and folded.search(text.lower()) is None:
        return ()
    hits = _hits(text)
    first = next(hits, None)
    if first is None:
        return ()
    done: dict[str, int] = {}
    spans = []
    own_shapes, plugin_anchors = _own_by_anchor(), _plugin_anchors()
    for at, anchor in itertools.chain((first,), hits):
        candidates = own_shapes.get(anchor, ())
        if anchor in plugin_anchors:  # detect-secrets is imported on the first of these
            candidates += _plugin_by_anchor().get(anchor, ())
        for shape, match in _around(text, at, anchor, candidates, done):
            span = _span(text, shape, match)
            if span is not None:
                spans.append(span)
    return tuple(_merge(spans, [m.span() for m in _pattern("masks").finditer(text)]))


def _around(
    text: str, at: int, anchor: Anchor, candidates: Iterable[Shape], done: dict[str, int]
) -> Iterator[tuple[Shape, re.Match[str]]]:
    """The match of each shape that covers the anchor at ``at``."""
    follower: str | None = ""
    for shape in candidates:
        if done.get(shape.name, -1) > at:
            continue
        if shape.start in ("name", "quote", "line"):
            follower = _follower(text, at) if follower == "" else follower
            if follower is None or (follower == "space" and shape.name not in ("flag", "member")):
                continue
        end = min(len(text), at + len(anchor.text) + shape.reach)
        for match in _tried(text, at, end, shape):
            if match.end() > at and (shape.accept is None or shape.accept(text, match)):
                done[shape.name] = match.end()
                yield shape, match
                break


def _tried(text: str, at: int, end: int, shape: Shape) -> Iterator[re.Match[str]]:
    """The matches of ``shape`` that may cover the anchor at ``at``, from the shape's start rule."""
    if shape.start == "search":  # a literal-led pattern starting anywhere in its window
        position = max(0, at - shape.before)
        while (match := shape.pattern.search(text, position, end)) is not None and match.start() <= at:
            yield match
            position = match.start() + 1
        return
    for start in _starts(text, at, shape):
        match = shape.pattern.match(text, start, end)
        if match is not None:
            yield match


def _follower(text: str, at: int) -> str | None:
    """What follows the name holding the anchor at ``at``: ``value`` (``=``, ``:``, after a quote
    maybe), ``space`` (a flag's value, or more words of a quoted key) or ``None`` (nothing a name
    shape could take): the name shapes are only tried where one may match."""
    match = _pattern("after-name").match(text, at)
    if match is None:
        return None
    return "space" if match["space"] else "value"


def _starts(text: str, at: int, shape: Shape) -> Iterable[int]:
    low = max(0, at - shape.before)
    if shape.start == "scan":
        return range(at, low - 1, -1)
    if shape.start == "name":
        run = _pattern("name").match(text[low:at][::-1])
        return (at - (run.end() if run else 0),)
    if shape.start == "quote":
        quote = max(text.rfind('"', low, at), text.rfind("'", low, at))
        if quote < 0:
            return ()
        return (quote - 1,) if quote > 0 and text[quote - 1] == "\\" else (quote,)
    line = text.rfind("\n", low, at) + 1
    return (line,) if line or low == 0 else ()


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
    return start - (before.end() if before else 0), after.end() if after else end


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


def _merge(spans: list[tuple[int, int, bool]], masks: list[tuple[int, int]]) -> list[tuple[int, int, bool]]:
    """``spans`` sorted, overlapping ones joined, those touching a mask dropped (``masks`` is sorted)."""
    merged: list[tuple[int, int, bool]] = []
    for start, end, quoted in sorted(spans):
        if _touches(masks, start, end):
            continue
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2] and quoted)
        else:
            merged.append((start, end, quoted))
    return merged


def _touches(masks: list[tuple[int, int]], start: int, end: int) -> bool:
    index = max(0, bisect_right(masks, (start, _END)) - 1)
    while index < len(masks) and masks[index][0] < end:
        if masks[index][1] > start:
            return True
        index += 1
    return False


def scrub(text: str, escape: Callable[[str], str] | None = None) -> str:
    """``text`` with every secret-shaped part masked; every other character kept.

    ``escape`` is applied to each mask inserted (``xml.sax.saxutils.escape`` for XML text).
    """
    spans = find(text)
    if not spans:
        return text
    pieces, at = [], 0
    for start, end, quoted in spans:
        shown = mask(text[start:end])
        shown = f'"{shown}"' if quoted else shown
        pieces += [text[at:start], escape(shown) if escape else shown]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


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
