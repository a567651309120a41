"""A planted secret in random compositions of the containers the secret policy must see through: a
credential context (``password: S``, ``--api-key S``, a ``{name, value}`` pair, a Kubernetes Secret,
``mysql -pS``, …) wrapped in up to four layers of documents, commands and encodings (a YAML inside
base64 inside an env value inside a command). Carried in a payload, the secret is masked by redact,
``redact --check`` fails on the original, and it is absent from every output format of validate,
diff and coverage.
"""

from __future__ import annotations

import base64
import copy
import gzip
import html
import json
import shlex
import textwrap
import urllib.parse
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.coverage import coverage_payloads
from jobschema.coverage.report import FORMATS as COVERAGE_FORMATS
from jobschema.coverage.report import render as render_coverage
from jobschema.diff import diff_documents
from jobschema.diff.render import FORMATS as DIFF_FORMATS
from jobschema.diff.render import render as render_diff
from jobschema.findings import Report
from jobschema.redact import redact_payload, unmasked_secrets
from jobschema.report import FORMATS as VALIDATE_FORMATS
from jobschema.report import RenderOptions
from jobschema.report import render as render_validate
from jobschema.validate import validate_payload
from tests.support import REPO
from tests.test_secrets_forms import revealed

SEED = json.loads(
    (REPO / "schemas" / "examples" / "aihc-job-detail" / "seed.json").read_text(encoding="utf-8")
)

Wrap = Callable[[str], str]

#: Where a credential stands, by each principle of the policy.
CONTEXTS: dict[str, Wrap] = {
    "yaml": lambda s: f"database:\n  password: {s}\n",
    "flag": lambda s: f"python train.py --api-key {s} --epochs 3",
    "export": lambda s: f"export DB_TOKEN={s}",
    "json": lambda s: json.dumps({"clientSecret": s}),
    "bearer": lambda s: f"Authorization: Bearer {s}",
    "mysql": lambda s: f"mysql -uroot -p{s} training",
    "netrc": lambda s: f"machine hub.example.com login bot password {s}",
    "xml": lambda s: f"<settings><password>{s}</password></settings>",
    "ini": lambda s: f"[db]\nhost = db\npassword = {s}\n",
    "env-pair": lambda s: f"env:\n- name: HF_TOKEN\n  value: {s}\n",
    "k8s-secret": lambda s: f"kind: Secret\ndata:\n  conn: {s}\n",
    "stdin": lambda s: f"echo {s} | docker login -u bot --password-stdin reg.example.com",
    "prose": lambda s: f"the password is {s}",
}


def _indent(text: str) -> str:
    return textwrap.indent(text, "  ", lambda line: True)


#: Containers that hold any text.
CONTAINERS: dict[str, Wrap] = {
    "base64": lambda t: base64.b64encode(t.encode()).decode(),
    "base64url": lambda t: base64.urlsafe_b64encode(t.encode()).decode().rstrip("="),
    "gzip-base64": lambda t: base64.b64encode(gzip.compress(t.encode(), mtime=0)).decode(),
    "percent": lambda t: "data=" + urllib.parse.quote(t, safe=""),
    "json-string": lambda t: json.dumps({"config": t}),
    "escaped": lambda t: json.dumps(t)[1:-1],
    "html": lambda t: f"<pre>{html.escape(t)}</pre>",
    "yaml-block": lambda t: f"setup:\n  script: |\n{_indent(_indent(t))}\n  retries: 2\n",
    "yaml-env": lambda t: f"env:\n- name: STARTUP\n  value: {json.dumps(t)}\n",
    "bash-c": lambda t: f"bash -c {shlex.quote(t)}",
    "heredoc": lambda t: f"cat > /etc/app.conf <<'EOF'\n{t}\nEOF\npython serve.py",
    "annotation": lambda t: json.dumps({"metadata": {"annotations": {"example.com/config": t}}}),
}

SECRETS = st.from_regex(r"PLNT[A-Za-z0-9]{8,16}", fullmatch=True)


def _job(value: str, status: str = "Running") -> dict[str, Any]:
    job = copy.deepcopy(SEED)
    result = job["result"]
    result["envs"] = [{"name": "STARTUP", "value": value}]
    result["command"] = value
    result["createdAt"] = value  # a format error: validate shows the value
    result["status"] = status
    return job


def _leak(secret: str, *texts: str) -> bool:
    return any(secret in revealed(text) for text in texts)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    secret=SECRETS,
    context=st.sampled_from(sorted(CONTEXTS)),
    layers=st.lists(st.sampled_from(sorted(CONTAINERS)), max_size=4),
)
def test_a_secret_in_any_composition_is_masked_everywhere(
    secret: str, context: str, layers: list[str]
) -> None:
    text = CONTEXTS[context](secret)
    for layer in layers:
        text = CONTAINERS[layer](text)
    assert secret in revealed(text)  # planted: the oracle sees it
    job = _job(text)

    assert unmasked_secrets(job) != []  # redact --check fails on the original
    redacted, _ = redact_payload(job)
    assert not _leak(secret, json.dumps(redacted))
    assert unmasked_secrets(redacted) == []

    result = validate_payload(job)
    assert result.findings
    report = Report((result,))
    for fmt in VALIDATE_FORMATS:
        for verbose in (0, 1):
            assert not _leak(secret, render_validate(report, fmt, RenderOptions(verbose=verbose))), fmt

    changed = diff_documents(_job("x", "Pending"), job)
    for fmt in DIFF_FORMATS:
        assert not _leak(secret, render_diff(changed, fmt)), fmt

    coverage = coverage_payloads([(None, job), (None, _job(text, text))])
    for fmt in COVERAGE_FORMATS:
        assert not _leak(secret, render_coverage(coverage, fmt, 1)), fmt
