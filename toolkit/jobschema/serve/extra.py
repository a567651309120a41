"""What a server needs of the ``serve`` extra, checked before it starts (``jobschema serve`` and the
``jobschema_server`` pytest fixture): a missing package is one line naming the extra, never an
internal error, nor a server that fails at its first token request or AIHC signature."""

from __future__ import annotations

from jobschema.errors import require_extra


def modules(generate: bool) -> tuple[str, ...]:
    """The HTTP stack, the token and signature checks (imported at the first request that needs
    them) and, to generate jobs for unknown ids, hypothesis."""
    return ("starlette", "uvicorn", "jwt", "baidubce", *(("hypothesis",) if generate else ()))


def require_serve_extra(what: str, generate: bool = False) -> None:
    """:func:`~jobschema.errors.require_extra` of the serve extra; ``what`` names the caller."""
    require_extra("serve", f"{what}: the serve extra", modules(generate))
