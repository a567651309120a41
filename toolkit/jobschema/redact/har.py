"""Where a HAR holds secrets, whatever its endpoints: each entry's URL and redirect, its request body
(JSON, a form or text) and its response body (JSON, with the route's schema when jobschema knows it,
or text), base64 ones decoded first. Said as :data:`Spec` values that :mod:`.places` turns into ways
of redacting."""

from __future__ import annotations

from typing import Any

from jobschema.inputs.har import route

#: How a HAR place is redacted: ``("url",)``, ``("query",)`` (a form body), ``("body", schema or
#: None)`` (JSON, else text scrubbed), ``("base64", spec)`` (decoded, then as ``spec``).
Spec = tuple[Any, ...]


def har_entries(value: Any) -> list[Any] | None:
    """The entries of a HAR document (``log.entries``), or None when ``value`` is not one."""
    log = value.get("log") if isinstance(value, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    return entries if isinstance(entries, list) else None


def har_places(entries: list[Any]) -> dict[str, Spec]:
    """Pointer -> spec, for every place of every entry that may hold a secret."""
    places: dict[str, Spec] = {}
    for index, entry in enumerate(entries):
        request, response = _member(entry, "request"), _member(entry, "response")
        base = f"/log/entries/{index}"
        places[f"{base}/request/url"] = ("url",)
        places[f"{base}/response/redirectURL"] = ("url",)
        post = _member(request, "postData")
        mime = post.get("mimeType")
        form = isinstance(mime, str) and "x-www-form-urlencoded" in mime
        body: Spec = ("query",) if form else ("body", None)
        encoded = post.get("encoding") == "base64"
        places[f"{base}/request/postData/text"] = ("base64", body) if encoded else body
        status = response.get("status")
        schema = route(str(request.get("url", "")), status if isinstance(status, int) else 0)
        answer: Spec = ("body", schema)
        encoded = _member(response, "content").get("encoding") == "base64"  # (the response's)
        places[f"{base}/response/content/text"] = ("base64", answer) if encoded else answer
    return places


def _member(value: Any, key: str) -> dict[str, Any]:
    item = value.get(key) if isinstance(value, dict) else None
    return item if isinstance(item, dict) else {}
