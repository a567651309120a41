"""Validating on the fly: each recorded payload is checked as ``jobschema validate`` checks it.

A snapshot written to the NDJSON file is checked as that file's line (source ``FILE:LINE``, findings
at ``FILE:LINE:COL``), so what is printed while recording is what ``jobschema validate FILE`` prints
afterwards (``jobschema validate --api-version runai=V FILE`` when the cluster named version V: the
NDJSON lines do not carry it; the HAR holds the cluster's answer); without ``-o`` the source is the
request (``GET URL``). Error answers are checked against
their API's error schema (source ``GET URL (STATUS)``). A finding line already printed is not
printed again (the same invalid error body on every poll). Only results with findings are kept; the
clean ones are counted, so memory does not grow with the length of the recording.
"""

from __future__ import annotations

from collections.abc import Callable

from jobschema.findings import PayloadResult, Report
from jobschema.inputs.read import document
from jobschema.report.common import RenderOptions, ordered
from jobschema.report.text import finding_lines
from jobschema.text import painter
from jobschema.validate.session import Session, Settings, check_payload

Emit = Callable[[str], None]


class LiveValidator:
    """Checks payloads one by one, prints new finding lines through ``emit``, and keeps the report."""

    def __init__(self, strict: bool, emit: Emit, color: bool = False) -> None:
        self.session = Session(Settings(None, strict))
        self.emit = emit
        self.options = RenderOptions(color=color)
        self.paint = painter(color)
        self.kept: list[PayloadResult] = []
        self.clean = 0
        self._shown: set[str] = set()

    def check(
        self,
        source: str,
        path: str | None,
        raw: bytes,
        line: int = 1,
        schema: str | None = None,
        version: str | None = None,
    ) -> PayloadResult:
        """Check one payload's bytes (``line``: its line in ``path``; ``schema``: instead of detecting;
        ``version``: of the API that answered it, ``2.19.3``, as a cluster says it)."""
        payload = document(source, path, raw)
        payload.first_line = line
        payload.schema = schema
        payload.api_version = version
        result = check_payload(self.session, payload)
        if not result.findings:
            self.clean += 1
            return result
        self.kept.append(result)
        for finding in ordered(result):
            for text in finding_lines(finding, self.options, self.paint):
                if text not in self._shown:
                    self._shown.add(text)
                    self.emit(text)
        return result

    def report(self) -> Report:
        """Every result with findings, and the count of clean ones."""
        return Report(tuple(self.kept), clean=self.clean)
