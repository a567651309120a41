"""Credential forms of a ninth round, and the output channels an input value reaches.

DOCSTRING

Each form is held to the checks of tests/secret_forms.py (scrub, every container, payload places,
``redact --check``/``redact``, every validate, diff and timeline output) and composed with every
holder and encoding (``held_test``); the hypothesis tests below try each class beyond its rows, and
near misses must stay as they are.
"""

from __future__ import annotations

import copy
import json
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from jobschema.secrets import mask_url
from jobschema.serve.app import shown_path
from tests.secret_forms import b64, shown
from tests.support import REPO

R = "Qz7vK2mX9pL4wR8tNb3YcD6fHj"  # random-looking, 26 characters
V = "Vb8nQ3xZ7kLp2Wd9Ty5Hc4Mf"  # another, 24
K = "J5KxM2NyP6Q8wS9Tz3"  # a key id's random part (another, 18)
W = "sunshine42"  # a wordy password
P = "Tr0ub4dor&3x!Q"  # punctuation
H32 = "9f86d081884c7d659a2feaa0c55ad015"
H40 = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"
H64 = H32 + H32[::-1]
UUID = "3f2b8c1e-7d4a-4e9b-a1c2-5d6e7f8a9b0c"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJRejd2SzJtWDlwTDR3UjgiLCJpYXQiOjE1MTYyMzkwMjJ9."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


# --- output channels: every place an input value reaches an output ---------------------------------

#: Forms every reader masks (a command's option, a document in base64, a URL's password, a token):
#: planted where an input value is printed but not judged at a secret place.
PLANTED = [
    (f"sshpass -p {W} ssh bob@h", W),
    (b64(f"db:\n  password: {W}x\n"), b64(f"db:\n  password: {W}x\n")),
    (f"postgresql://bob:{W}y@db/app", f"{W}y"),
    (f"hf_{R}{V[:8]}", f"hf_{R}"),
]
AIHC_SEED = json.loads((REPO / "schemas/examples/aihc-job-detail/seed.json").read_text("utf-8"))
RUNAI_SEED = json.loads((REPO / "schemas/examples/runai-distributed-workload/seed.json").read_text("utf-8"))


def _aihc_with_key(key: str) -> dict[str, Any]:
    """The AIHC seed with ``key`` as a pod annotation's and label's key, given a number (a map of
    strings: the finding's pointer names the key)."""
    job = copy.deepcopy(AIHC_SEED)
    meta = job["result"]["podList"]["pods"][0]["objectMeta"]
    meta["annotations"] = {key: 1}
    meta["labels"] = {key: 1}
    return job


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
def test_validate_masks_a_key_in_a_findings_pointer(run_cli: Any, tmp_path: Path, fmt: str) -> None:
    capture = tmp_path / "keys.ndjson"
    capture.write_text("".join(json.dumps(_aihc_with_key(form)) + "\n" for form, _ in PLANTED), "utf-8")
    result = run_cli(["validate", "-f", fmt, str(capture)], code=1)
    assert "annotations" in result.stdout
    assert [secret for _, secret in PLANTED if shown(secret, result.stdout, result.stderr)] == []


def test_diff_history_masks_a_jobs_id(run_cli: Any, tmp_path: Path) -> None:
    capture = tmp_path / "history.ndjson"
    lines = []
    for form, _ in PLANTED:
        job = copy.deepcopy(RUNAI_SEED)
        job["workloadId"] = form
        lines.append(json.dumps(job))
    capture.write_text("\n".join(lines) + "\n", "utf-8")
    for fmt in ("text", "json", "markdown"):
        result = run_cli(["diff", "--history", "-f", fmt, str(capture)])
        assert result.exit_code in (0, 1)
        assert fmt == "markdown" or result.stdout.count("<secret:") >= len(PLANTED)
        assert [secret for _, secret in PLANTED if shown(secret, result.stdout, result.stderr)] == []


@pytest.mark.parametrize(("form", "secret"), PLANTED)
def test_a_urls_path_segment_is_read_on_its_own(form: str, secret: str) -> None:
    # (serve's access log, record's HAR and redact's URLs: a segment is read as a value of its own)
    for url in (f"/api/v1/workloads/{form}", f"https://x.com/a/{urllib.parse.quote(form)}/b?x=1"):
        assert not shown(secret, mask_url(url)), mask_url(url)
        assert mask_url(mask_url(url)) == mask_url(url)
    assert not shown(secret, shown_path({"path": f"/api/v1/workloads/{form}", "query_string": b""}))


def test_a_urls_ordinary_segments_stay() -> None:
    for url in (
        "/api/v1/workloads/6dce772a-33c1-473b-b21b-000000000001",
        "https://registry.x.com/v2/library/python/manifests/sha256:" + H64,
        "/api/v1/org-unit/projects/4/nodepools?limit=10",
        "https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json",
    ):
        assert mask_url(url) == url
