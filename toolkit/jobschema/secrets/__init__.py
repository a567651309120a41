"""The secret policy: what counts as a credential in a capture, and how it is shown (masked).

Every path that prints or writes a value asks this package. The stable entry points:

- :func:`mask` -- the mask shown in place of a secret value (``<secret:xxxxxxxx>``);
- :func:`is_mask` -- whether a value already is one;
- :func:`is_secret_name` -- whether a key, env var, header, cookie or query parameter name labels a
  credential (``DB_PASSWORD``, ``Authorization``, ``X-Amz-Signature``);
- :func:`mask_url` -- a URL with its credential-like query values and ``user:password@`` masked;
- :func:`scrub` -- any text with every secret-shaped part masked (bearer values, JWTs, cloud keys, ...).
"""

from __future__ import annotations

from jobschema.secrets.policy import is_mask, is_secret_name, mask, mask_url, scrub

__all__ = ["is_mask", "is_secret_name", "mask", "mask_url", "scrub"]
