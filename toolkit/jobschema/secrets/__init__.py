"""The secret policy: what counts as a credential in a capture, and how it is shown (masked).

Every path that prints or writes a value asks this package. The stable entry points:

- :func:`mask` -- the mask shown in place of a secret value (``<secret:xxxxxxxx>``, a keyed hash:
  ``JOBSCHEMA_MASK_KEY``, see :mod:`jobschema.secrets.mask`);
- :func:`is_mask` -- whether a value already is one;
- :func:`is_secret_name` -- whether a key, env var, header, cookie, query parameter or flag name labels a
  credential (``DB_PASSWORD``, ``Authorization``, ``X-Amz-Signature``, ``accessToken``);
- :func:`is_secret_place` -- whether a member of an object holds one (by name, ``{name, value}`` pairs,
  cookies, registry logins);
- :func:`mask_url` -- a URL with its credential-like query values and ``user:password@`` masked;
- :func:`scrub` -- any text with every secret-shaped part masked (bearer values, JWTs, cloud keys,
  private keys, ``--token X``, ``password=X``, ...);
- :func:`masked` -- a parsed value with all of the above applied.
"""

from __future__ import annotations

from jobschema.secrets.policy import (
    is_mask,
    is_secret_name,
    is_secret_place,
    mask,
    mask_url,
    masked,
    scrub,
)

__all__ = ["is_mask", "is_secret_name", "is_secret_place", "mask", "mask_url", "masked", "scrub"]
