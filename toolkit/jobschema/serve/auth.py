"""Authentication as the real APIs do it: Run:ai access tokens (JWTs) and BCE v1 request signatures.

Credentials come from options or from the environment, the same variables a recorder reads, so one
test sets both sides (:data:`ENV`). They are never printed, logged, or put in an answer.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jwt.types import Options

#: Environment variables of the credentials, as option -> variable.
ENV = {
    "runai_client_id": "RUNAI_CLIENT_ID",
    "runai_client_secret": "RUNAI_CLIENT_SECRET",
    "runai_app_id": "RUNAI_APP_ID",
    "runai_app_secret": "RUNAI_APP_SECRET",
    "bce_access_key_id": "BCE_ACCESS_KEY_ID",
    "bce_secret_access_key": "BCE_SECRET_ACCESS_KEY",
}


@dataclass(frozen=True)
class Credentials:
    """What clients must present: a Run:ai client id and secret (grant ``client_credentials``), an app
    id and secret (the legacy grant ``app_token``, which runapy sends; the client pair when unset),
    and AIHC access key pairs (access key id -> secret access key)."""

    runai_client_id: str | None = None
    runai_client_secret: str | None = field(default=None, repr=False)
    runai_app_id: str | None = None
    runai_app_secret: str | None = field(default=None, repr=False)
    bce_keys: Mapping[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str], **given: str | None) -> Credentials:
        """Options in ``given`` (by :data:`ENV` key) win over the environment's variables."""
        value = {key: given.get(key) or env.get(name) or None for key, name in ENV.items()}
        keys = {}
        if value["bce_access_key_id"] and value["bce_secret_access_key"]:
            keys[value["bce_access_key_id"]] = value["bce_secret_access_key"]
        return cls(
            value["runai_client_id"],
            value["runai_client_secret"],
            value["runai_app_id"],
            value["runai_app_secret"],
            keys,
        )

    @classmethod
    def random(cls) -> Credentials:
        """Fresh credentials for one test run (the fixture's default)."""
        access_key = secrets.token_hex(16)
        return cls(
            f"client-{secrets.token_hex(4)}",
            secrets.token_urlsafe(24),
            None,
            None,
            {access_key: secrets.token_hex(16)},
        )

    @property
    def bce_access_key_id(self) -> str | None:
        """The first AIHC access key id (the one a fixture hands to a client)."""
        return next(iter(self.bce_keys), None)

    @property
    def bce_secret_access_key(self) -> str | None:
        """The secret access key of :attr:`bce_access_key_id`."""
        key = self.bce_access_key_id
        return None if key is None else self.bce_keys[key]

    def as_env(self) -> dict[str, str]:
        """The :data:`ENV` variables a client (or recorder) reads, for the configured credentials."""
        values = {
            "runai_client_id": self.runai_client_id,
            "runai_client_secret": self.runai_client_secret,
            "runai_app_id": self.runai_app_id,
            "runai_app_secret": self.runai_app_secret,
            "bce_access_key_id": self.bce_access_key_id,
            "bce_secret_access_key": self.bce_secret_access_key,
        }
        return {ENV[key]: value for key, value in values.items() if value}

    def runai_grant(self, body: Mapping[str, Any]) -> str | None:
        """Who a token request authenticates (its id), or None. Keys match case-insensitively, as the
        real server's Go decoding matches them (``clientID``, ``clientId``, ``AppId``)."""
        fields = {str(key).lower(): value for key, value in body.items()}
        grant = fields.get("granttype")
        if grant == "client_credentials":
            pair = (self.runai_client_id, self.runai_client_secret)
            given = (fields.get("clientid"), fields.get("clientsecret"))
        elif grant == "app_token":
            pair = (
                self.runai_app_id or self.runai_client_id,
                self.runai_app_secret or self.runai_client_secret,
            )
            given = (fields.get("appid"), fields.get("appsecret"))
        else:
            return None
        if None in pair or not all(isinstance(part, str) for part in given):
            return None
        same = [  # a lone surrogate (JSON's "\\ud800") is a string too: compared, never raised on
            hmac.compare_digest(_utf8(a), _utf8(b)) for a, b in zip(pair, given, strict=True)
        ]
        return pair[0] if all(same) else None


GRANTS = ("client_credentials", "app_token")


def _utf8(text: object) -> bytes:
    """The bytes of a string to compare, lone surrogates kept (a secret never holds one)."""
    return str(text).encode("utf-8", "surrogatepass")


#: Verified tokens remembered (their claims), so a token's signature is checked once; forgotten all
#: at once when full. Only tokens this server signed get in: a peer's junk never does.
VERIFIED_KEPT = 1024
#: The ``typ`` claim of each kind of token, as Keycloak (which issues Run:ai's tokens) writes it.
ACCESS, ID, REFRESH = "Bearer", "ID", "Refresh"


class Tokens:
    """Issues and checks Run:ai tokens: HS256 JWTs signed with a key made at start-up.

    Every token says what it is in its ``typ`` claim (:data:`ACCESS`, :data:`ID`, :data:`REFRESH`);
    only an access token opens the API, as ``Authorization: Bearer``. A token is checked by its
    signature (the key never leaves the server), so nothing is kept per token issued (only the
    claims of the last :data:`VERIFIED_KEPT` tokens presented, not to check a signature twice).

    runapy reads ``exp`` by decoding the payload with standard (not URL-safe) base64, which garbles a
    payload whose encoding holds ``-`` or ``_``; a real token can, so the ``jti`` claim is chosen to
    keep the payload's encoding free of both, and runapy schedules its refresh from the right ``exp``.
    """

    def __init__(self, issuer: str, lifetime: Callable[[], float], clock: Callable[[], float]) -> None:
        self.issuer = issuer
        self.lifetime = lifetime
        self.clock = clock
        self._key = secrets.token_bytes(32)
        self._issued = 0
        self._verified: dict[str, dict[str, Any]] = {}  # token -> claims: signatures checked once

    def issue(self, subject: str, kind: str = ACCESS) -> str:
        """A token of ``kind`` for ``subject`` that expires :attr:`lifetime` seconds from now."""
        import jwt

        now = int(self.clock())
        exp = now + max(1, round(self.lifetime()))
        while True:
            self._issued += 1
            claims = {
                "iss": self.issuer,
                "sub": subject,
                "aud": "runai" if kind == ACCESS else subject,
                "typ": kind,
                "iat": now,
                "exp": exp,
                "jti": f"{self._issued:08d}",
            }
            token = jwt.encode(claims, self._key, algorithm="HS256")
            if not set(token.split(".")[1]) & {"-", "_"}:
                return token

    def claims(self, token: str) -> dict[str, Any] | None:
        """The claims of a token this server signed (for this issuer), else None. Time is not checked."""
        import jwt

        known = self._verified.get(token)
        if known is not None:
            return known if known.get("iss") == self.issuer else None
        try:
            claims = jwt.decode(token, self._key, algorithms=["HS256"], options=_UNCHECKED)
        except jwt.InvalidTokenError:
            return None
        if claims.get("iss") != self.issuer or not isinstance(claims.get("exp"), int):
            return None
        if len(self._verified) >= VERIFIED_KEPT:
            self._verified.clear()
        self._verified[token] = claims
        return claims

    def check(self, authorization: str | None) -> str | None:
        """None when the ``Authorization`` header carries a live access token; else the 401 message."""
        if not authorization:
            return "Authorization header is missing."
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return "Authorization header is not a Bearer token."
        claims = self.claims(token.strip())
        if claims is None:
            return "Issuer is not familiar."
        if claims.get("typ") != ACCESS:
            return "Token is not an access token."
        return "Token is expired." if self.clock() >= claims["exp"] else None

    def subject(self, authorization: str) -> str:
        """Who the (checked) bearer token of ``authorization`` was issued to."""
        claims = self.claims(authorization.partition(" ")[2].strip())
        return str(claims.get("sub", "")) if claims else ""


#: PyJWT checks nothing but the signature and the algorithm: the server's clock (a test's clock)
#: decides expiry, and the issuer, audience and kind are read by :meth:`Tokens.check`.
_UNCHECKED: Options = {"verify_exp": False, "verify_iat": False, "verify_nbf": False, "verify_aud": False}


def token_payload(token: str) -> dict[str, Any]:
    """The claims of a JWT, decoded the way runapy decodes them (standard base64; for tests)."""
    try:
        return dict(json.loads(base64.b64decode(token.split(".")[1] + "==")))
    except (IndexError, ValueError, binascii.Error) as err:
        raise ValueError("not a JWT") from err


# ---------------------------------------------------------------------------------------- BCE v1


@dataclass(frozen=True)
class BceAuth:
    """The parts of ``Authorization: bce-auth-v1/{ak}/{timestamp}/{expiration}/{signed headers}/{sig}``."""

    access_key_id: str
    timestamp: str
    expiration: int
    signed_headers: tuple[str, ...]
    signature: str

    @classmethod
    def parse(cls, header: str) -> BceAuth | None:
        parts = header.strip().split("/")
        if len(parts) != 6 or parts[0] != "bce-auth-v1" or not parts[1] or not parts[5]:
            return None
        if not (parts[3].isascii() and parts[3].isdigit()) or len(parts[3]) > _MOST_DIGITS:
            return None
        names = tuple(name.strip().lower() for name in parts[4].split(";") if name.strip())
        return cls(parts[1], parts[2], int(parts[3]), names, parts[5])

    def epoch(self) -> int | None:
        """The signing time as seconds since the epoch, or None when it is not ``YYYY-MM-DDTHH:MM:SSZ``."""
        try:
            moment = datetime.strptime(self.timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        except ValueError:
            return None
        return int(moment.timestamp())


@dataclass(frozen=True)
class BceRequest:
    """What a BCE v1 signature covers: method, path (as received, still percent-encoded: the
    signature covers its canonical form, :func:`jobschema.apis.aihc.canonical_uri`), query (every
    pair, a repeated key each time), headers; and the body, which a signed digest header vouches for."""

    method: str
    raw_path: str
    query: list[tuple[str, str]]
    headers: Mapping[str, str]
    body: bytes = b""


#: The error answered when a request's signature does not hold: (HTTP status, code, message).
BceFailure = tuple[int, str, str]
#: How far ahead of the server's clock a signing time may be (seconds), as BCE tolerates clock skew.
CLOCK_SKEW = 900
#: The longest ``expirationPeriodInSeconds`` accepted. BCE documents 1800 as the default and no
#: maximum for a signature in the Authorization header; its own examples use 1800 and 3600, and the
#: Baidu SDKs sign with 1800. A longer-lived signature is a replayable credential: refused.
MAX_EXPIRATION = 3600
#: Digits an expiration may have (more is a malformed header, not a number to convert).
_MOST_DIGITS = 12


def verify_bce(request: BceRequest, keys: Mapping[str, str], now: float) -> BceFailure | None:
    """None when the request is signed by one of ``keys`` and not expired; else the error to answer.

    The signature is recomputed with the Baidu SDK's signer (``baidubce.auth.bce_v1_signer.sign``)
    over the headers the client says it signed, and compared in constant time.
    """
    header = request.headers.get("authorization")
    if not header:
        return 403, "AccessDenied", "Access denied: the request carries no Authorization header."
    auth = BceAuth.parse(header)
    epoch = auth.epoch() if auth else None
    malformed = _auth_problem(auth, request) if auth else None
    if auth is None or epoch is None or malformed is not None:
        shown = f": {malformed}" if malformed else ""
        return 400, "InvalidHTTPAuthHeader", f"The Authorization header you provided is not valid{shown}."
    secret = keys.get(auth.access_key_id)
    if secret is None:
        return 403, "InvalidAccessKeyId", "The Access Key ID you provided does not exist in our records."
    if now > epoch + auth.expiration or epoch > now + CLOCK_SKEW:
        return 400, "RequestExpired", "The request has expired or its time is too far from the server's."
    expected = _bce_signature(request, auth, secret, epoch)
    if not hmac.compare_digest(expected.encode(), auth.signature.encode()):
        return (
            400,
            "SignatureDoesNotMatch",
            ("The request signature we calculated does not match the signature you provided."),
        )
    return _digest_problem(request, auth)


#: The digest headers a signature may cover, and how each says the body: ``(name, digest)``.
DIGESTS = (
    ("content-md5", lambda body: base64.b64encode(hashlib.md5(body).digest()).decode("ascii")),
    ("x-bce-content-sha256", lambda body: hashlib.sha256(body).hexdigest()),
)


def _digest_problem(request: BceRequest, auth: BceAuth) -> BceFailure | None:
    """A signed digest header that does not match the body: the signature vouches for the header, so
    without this check a signed request's body could be swapped. A header is signed when listed, or
    by BCE's defaults (``content-md5`` when no list is given; every ``x-bce-*`` header always)."""
    for name, digest in DIGESTS:
        given = request.headers.get(name, "").strip()
        signed = name in auth.signed_headers or not auth.signed_headers or name.startswith("x-bce-")
        if given and signed and not hmac.compare_digest(given.lower(), digest(request.body).lower()):
            return 400, "BadDigest", f"The {name} you specified did not match what was received."
    return None


def _auth_problem(auth: BceAuth, request: BceRequest) -> str | None:
    """Why a well-formed authorization is not acceptable: a signature living longer than
    :data:`MAX_EXPIRATION`, or one that does not cover the Host header (an empty list of signed
    headers means BCE's defaults, which include ``host``), or a request with no Host to check."""
    if auth.expiration > MAX_EXPIRATION:
        return f"expirationPeriodInSeconds {auth.expiration} is above {MAX_EXPIRATION}"
    if auth.signed_headers and "host" not in auth.signed_headers:
        return "host must be among the signed headers"
    if not request.headers.get("host"):
        return "the request has no Host header to check the signature against"
    return None


def _bce_signature(request: BceRequest, auth: BceAuth, secret: str, epoch: int) -> str:
    from baidubce.auth import bce_v1_signer
    from baidubce.auth.bce_credentials import BceCredentials

    from jobschema.apis.aihc import canonical_uri

    names = set(auth.signed_headers)
    headers = {
        name.encode(): value.encode("latin-1")
        for name, value in request.headers.items()
        if name != "authorization" and (not names or name in names or _always_signed(name))
    }
    params = _Pairs([(key.encode(), value.encode()) for key, value in request.query])
    signed = bce_v1_signer.sign(
        BceCredentials(auth.access_key_id, secret),
        request.method.upper().encode(),
        canonical_uri(request.raw_path),
        headers,
        params,
        epoch,
        auth.expiration,
        [name.encode() for name in auth.signed_headers] or None,
    )
    return signed.decode().rsplit("/", 1)[1]


def _always_signed(name: str) -> bool:
    """An ``x-bce-*`` header a signature covers though its list does not name it, as the Baidu SDKs
    sign: bce-python-sdk signs every ``x-bce-*`` header, listed or not (so one added after signing
    breaks the signature); the Go SDK lists each it signs, and leaves ``x-bce-request-id`` out."""
    return name.startswith("x-bce-") and name != "x-bce-request-id"


class _Pairs:
    """A query as the SDK's signer reads its ``params`` (``items()``), with every pair: a dict would
    keep one value of a repeated key, so ``?id=evil&id=good`` would verify against a signature made
    for ``id=good`` alone. BCE signs each encoded ``key=value`` pair, sorted, repeats included."""

    def __init__(self, pairs: list[tuple[bytes, bytes]]) -> None:
        self._pairs = pairs

    def items(self) -> list[tuple[bytes, bytes]]:
        return list(self._pairs)
