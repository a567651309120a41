"""The tests every table of credential forms gets (tests/test_secrets_unlisted.py,
tests/test_secrets_round3.py): a table is rows ``(id, text, secret)`` and the ids of the forms still
shown (strict xfails: a fix must move them); :func:`form_tests` gives the test functions a table's
module takes into its globals, so every table is held to the same checks.

Each form is masked by ``scrub``; masked in every container the policy must see through (base64,
gzip, percent-encoding, JSON strings, HTML, YAML blocks, ``bash -c``, here-documents); in a Run:ai
workload's command, args, annotations and labels and an AIHC job's command and labels, flagged by
``redact --check`` and gone after ``redact`` (and ``redact --check`` of that finds nothing); absent from
every output of validate (every format), diff and timeline; and in random compositions of forms,
containers and payload places (hypothesis).
"""

from __future__ import annotations

import base64
import copy
import gzip
import html
import json
import re
import shlex
import textwrap
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.redact import redact_payload, unmasked_secrets
from jobschema.secrets import masked, scrub
from tests.support import REPO
from tests.test_secrets_compose import CONTAINERS
from tests.test_secrets_forms import revealed

Form = tuple[str, str, str]

#: The Run:ai seed without its ``masterSpec`` (the seed says ``masterSpecSameAsWorker: true``, so a
#: workload may well have none): the forms are planted in ``spec``, and the 5 KB master copy beside
#: them only doubled each check's walk (half of the harness's per-form time), holding no form.
RUNAI = {
    key: value
    for key, value in json.loads(
        (REPO / "schemas/examples/runai-distributed-workload/seed.json").read_text("utf-8")
    ).items()
    if key != "masterSpec"
}
AIHC = json.loads((REPO / "schemas/examples/aihc-job-detail/seed.json").read_text("utf-8"))
RUNAI_PLACES = {"/spec/command", "/spec/args", "/spec/annotations/0/value", "/spec/labels/0/value"}
AIHC_PLACES = {"/result/command", "/result/labels/0/value", "/result/labels/1/value"}


def runai_with(text: str, index: int = 0) -> dict[str, Any]:
    """The Run:ai seed with ``text`` as its command, args, an annotation and a label's JSON."""
    workload = copy.deepcopy(RUNAI)
    workload["workloadId"] = f"6dce772a-33c1-473b-b21b-{index:012d}"
    spec = workload["spec"]
    spec["command"] = spec["args"] = text
    spec["annotations"] = [{"name": "note", "value": text, "exclude": False}]
    spec["labels"] = [{"name": "startup", "value": json.dumps({"script": text}), "exclude": False}]
    return workload


def aihc_with(text: str, index: int = 0) -> dict[str, Any]:
    """The AIHC seed with ``text`` as its command, a label and a script label."""
    job = copy.deepcopy(AIHC)
    result = job["result"]
    result["jobId"] = f"pytorchjob-{index:08d}-3e04-49ef-8428-d792881fc5fa"
    result["command"] = text
    result["labels"] = [{"key": "note", "value": text}, {"key": "script", "value": f"#!/bin/sh\n{text}\n"}]
    return job


def b64(text: str) -> str:
    """``text`` in standard base64 (how the rounds' tables hide a form in an encoding)."""
    return base64.b64encode(text.encode()).decode()


def pct(text: str) -> str:
    """``text`` percent-encoded, every reserved character too."""
    return urllib.parse.quote(text, safe="")


def pieces(secret: str) -> list[str]:
    """The secret, and every 16 characters of it: a part shown is a leak."""
    if len(secret) <= 16:
        return [secret]
    return [secret[i : i + 16] for i in range(len(secret) - 15)]


def shown(secret: str, *outputs: str) -> bool:
    """True when a piece of ``secret`` shows in any of ``outputs`` (read as a person would: decoded)."""
    seen = "\n".join(revealed(output) for output in outputs)
    return any(piece in seen for piece in pieces(secret))


#: Gaps of earlier tables closed by a later round (each table's ``KNOWN_GAPS`` and ``CONTAINER_GAPS``
#: still list them): the form is tested as masked, in every container, and its strict xfail is
#: dropped. (Closed by the fifth round, tests/test_secrets_round5.py: a command printing the password
#: under a fused name, ``--extpass``; ``user:password`` values of ``user``/``--user``; ``.pgpass``
#: lines indented, as in a YAML block. Closed by the ninth, tests/test_secrets_round9.py: 15 of the
#: eighth round's.)
CLOSED_GAPS: frozenset[str] = frozenset(
    {"encfs-extpass-echo", "curlrc-user", "curlrc-user-bare"}
    # closed by the ninth round (tests/test_secrets_round9.py): round 8's network devices' key and
    # community lines, Consul's and Nomad's gossip keys, passwords given by position, a plist's value,
    # user:password literals about to be encoded
    | {
        "cisco-radius-key",
        "cisco-snmp-community",
        "cisco-tacacs-key",
        "consul-encrypt",
        "consul-encrypt-json",
    }
    | {
        "csharp-auth-header",
        "node-buffer-basic",
        "nomad-encrypt-cmd",
        "php-mysql-connect",
        "php-mysqli-connect",
    }
    | {"php-pdo", "plist-key-string", "python-b64encode-basic", "python-ftplib", "rust-basic-auth"}
    | {"airtable-pat"}  # (Airtable's ``pat…`` token: a provider's structure, PROVIDER_TOKENS)
    # closed by the twelfth round (tests/test_secrets_round12.py): ``-p`` after ``-u`` of a tool whose
    # row reads ``-p`` elsewhere, a setter of options given a credential's constant, a call's
    # arguments without brackets, a format's conversion given its value by position, what a group of
    # commands writes to a pipe, PHP's ``var_dump``, ``BEARER=`` as an env var
    | {"az-sql-admin-password", "php-curlopt-userpwd", "ruby-basic-auth", "shell-printf-env-file"}
    | {"doc-samba-smbpasswd-stdin", "log-var-dump", "bearer-env"}
    # (and a Redis client's prompt line, a literal converted as it is given, the variable a command
    # names as holding its password, a literal in an f-string's braces, a credential file option
    # given a process substitution printing a literal)
    | {"redis-auth-cmd-lower", "java-passwordauthentication", "openssl-passin-env", "split-fstring"}
    | {"ansible-vault-pass-echo", "rsyncd-secrets"}  # (and a file of credentials named by its format)
    | {"java-properties-escaped"}  # (a Java properties key's escapes, ``\ ``, ``\:``, ``\=``)
    | {"az-keyvault-output"}  # (a secret store's answer: the value beside its secret's identifier)
)
#: Gaps closed (``CLOSED_GAPS``) but in one container, where they are strict xfails still.
#: (None left: round 8's ``python-b64encode-basic`` in ``bash -c '…'`` was closed by the twelfth round.)
CLOSED_BUT_IN: dict[tuple[str, str], str] = {}
CLOSED_CONTAINER_GAPS: frozenset[tuple[str, str]] = frozenset(
    {("pgpass-line", "yaml-block"), ("pgpass-escaped-colon", "yaml-block")}
    # closed by the twelfth round (tests/test_secrets_round12.py): a script's own quotes left inside
    # ``bash -c '…'`` by the shell's (``'"'"'``), and a YAML document in a block of markup (``<pre>``)
    | {
        ("hf-login-positional-noprefix", "bash-c"),
        ("cls-call-put-secret", "bash-c"),
        ("ansi-c-hex", "bash-c"),
        ("ansi-c-octal", "bash-c"),
        ("cls-node-buffer-from-single", "bash-c"),
        ("code-py-fernet", "bash-c"),
        ("cls-concat-hf", "bash-c"),
    }
    | {
        ("k8s-secret-yaml-stringdata", "html"),
        ("k8s-secret-yaml-data-any", "html"),
        ("kubeconfig-exec-token", "html"),
        ("doc-k8s-secret-stringdata-conf", "html"),
    }
)


def form_tests(
    forms: list[Form],
    known_gaps: dict[str, str],
    at_least: int,
    container_gaps: dict[tuple[str, str], str] | None = None,
    clean: list[str] | None = None,
) -> dict[str, Any]:
    """The tests of the table ``forms`` (at least ``at_least`` rows) whose ``known_gaps`` are shown,
    and whose ``container_gaps`` (form, container) are shown in that container only; the texts of
    ``clean`` (near misses of its forms) stay as they are."""
    near_misses = clean or []
    known_gaps = {name: why for name, why in known_gaps.items() if name not in CLOSED_GAPS}
    wrapped_gaps = {
        key: why for key, why in (container_gaps or {}).items() if key not in CLOSED_CONTAINER_GAPS
    }
    by_id = {name: (text, secret) for name, text, secret in forms}
    wrapped_gaps.update({key: why for key, why in CLOSED_BUT_IN.items() if key[0] in by_id})
    kept = [form for form in forms if form[0] not in known_gaps]
    ids = [form[0] for form in kept]
    own = _own_pieces(kept)

    def cli_shown(*outputs: str) -> list[str]:
        """The forms a piece only a leak can put there shows of, in all ``outputs`` at once."""
        seen = "\n".join(revealed(output) for output in outputs)
        found = occurring([part for parts in own.values() for part in parts], seen)
        return [name for name, parts in own.items() if any(part in found for part in parts)]

    def shown_by_line(by_line: dict[int, str], rest: str) -> list[str]:
        """The forms whose secret shows in what an output says of their own line of the captures
        (forms share tokens, so each line is searched for its own form's secret), or anywhere in
        ``rest``: for the forms :func:`cli_shown` cannot tell apart."""
        leaks = [
            name for line, (name, _, secret) in enumerate(kept, 1) if shown(secret, by_line.get(line, ""))
        ]
        return leaks + [name for name, _, secret in kept if shown(secret, rest)]

    def test_the_table() -> None:
        assert len(forms) >= at_least and len(by_id) == len(forms)
        assert set(known_gaps) <= set(by_id)
        for _, text, secret in forms:  # every secret stands in its form, so a leak would show
            assert shown(secret, text)

    @pytest.mark.parametrize(("name", "text", "secret"), kept, ids=ids)
    def test_scrub_masks_the_form(name: str, text: str, secret: str) -> None:
        scrubbed = scrub(text)
        assert not shown(secret, scrubbed), scrubbed
        assert scrub(scrubbed) == scrubbed

    @pytest.mark.parametrize("name", sorted(known_gaps))
    @pytest.mark.xfail(strict=True, reason="a known gap (KNOWN_GAPS)")
    def test_known_gaps_are_still_shown(name: str) -> None:
        text, secret = by_id[name]
        assert not shown(secret, scrub(text))

    @pytest.mark.parametrize("container", sorted(CONTAINERS))
    def test_every_form_in_every_container(container: str) -> None:
        leaks = [
            name
            for name, text, secret in kept
            if (name, container) not in wrapped_gaps and shown(secret, scrub(CONTAINERS[container](text)))
        ]
        assert leaks == []

    @pytest.mark.parametrize(("name", "container"), sorted(wrapped_gaps))
    @pytest.mark.xfail(strict=True, reason="a known gap in one container (CONTAINER_GAPS)")
    def test_container_gaps_are_still_shown(name: str, container: str) -> None:
        text, secret = by_id[name]
        assert not shown(secret, scrub(CONTAINERS[container](text)))

    @pytest.mark.parametrize(("name", "text", "secret"), kept, ids=ids)
    def test_every_payload_place_is_flagged_and_masked(name: str, text: str, secret: str) -> None:
        for payload, places in ((runai_with(text), RUNAI_PLACES), (aihc_with(text), AIHC_PLACES)):
            assert places <= set(unmasked_secrets(payload))
            redacted, _ = redact_payload(payload)
            assert not shown(secret, json.dumps(redacted))
            assert unmasked_secrets(redacted) == []
            assert not shown(secret, json.dumps(masked(payload)))

    @settings(
        max_examples=150,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        form=st.sampled_from(kept),
        layers=st.lists(st.sampled_from(sorted(CONTAINERS)), max_size=3),
        place=st.sampled_from(["runai", "aihc"]),
    )
    def test_random_compositions_of_forms_containers_and_places(
        form: Form, layers: list[str], place: str
    ) -> None:
        _, text, secret = form
        for layer in layers:
            text = CONTAINERS[layer](text)
        payload = runai_with(text) if place == "runai" else aihc_with(text)
        assert unmasked_secrets(payload) != []
        redacted, _ = redact_payload(payload)
        assert not shown(secret, json.dumps(redacted))
        assert not shown(secret, json.dumps(masked(payload)))

    @pytest.fixture(scope="module")
    def captures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
        return _captures(tmp_path_factory.mktemp("forms"), kept)

    @pytest.mark.parametrize("kind", ["runai", "aihc"])
    def test_redact_flags_every_line_and_leaves_no_form(
        run_cli: Callable[..., Any], captures: dict[str, Path], kind: str, tmp_path: Path
    ) -> None:
        check = run_cli(["redact", "--check", str(captures[kind])], code=1).stdout
        flagged = {int(line) for line in re.findall(r":(\d+): \S+: unmasked secret \[redact\]", check)}
        assert flagged == set(range(1, len(kept) + 1))
        out = run_cli(["redact", str(captures[kind])], code=0).stdout
        assert len(out.splitlines()) == len(kept)
        assert cli_shown(out) == []
        assert shown_by_line(dict(enumerate(out.splitlines(), 1)), "") == []
        again = tmp_path / "redacted.ndjson"
        again.write_text(out, encoding="utf-8")
        assert run_cli(["redact", "--check", str(again)], code=0).stdout == ""

    @pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
    @pytest.mark.parametrize("kind", ["runai", "aihc"])
    def test_validate_shows_no_form(
        run_cli: Callable[..., Any], captures: dict[str, Path], kind: str, fmt: str
    ) -> None:
        result = run_cli(["validate", "-v", "--strict", "-f", fmt, str(captures[kind])])
        assert result.exit_code in (0, 1)
        assert cli_shown(result.stdout, result.stderr) == []
        if fmt in ("text", "json"):
            by_line, rest = _by_line(fmt, str(captures[kind]), result.stdout)
            assert shown_by_line(by_line, rest + result.stderr) == []

    @pytest.mark.parametrize("fmt", ["text", "json", "markdown", "patch"])
    def test_diff_shows_no_form(run_cli: Callable[..., Any], captures: dict[str, Path], fmt: str) -> None:
        result = run_cli(["diff", "-f", fmt, str(captures["left"]), str(captures["right"])], code=1)
        assert cli_shown(result.stdout, result.stderr) == []
        assert "secret:" in result.stdout

    @pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
    def test_timeline_shows_no_form(run_cli: Callable[..., Any], captures: dict[str, Path], fmt: str) -> None:
        result = run_cli(["timeline", "-f", fmt, str(captures["runai"]), str(captures["aihc"])], code=0)
        assert cli_shown(result.stdout, result.stderr) == []

    @pytest.mark.parametrize("text", near_misses, ids=range(len(near_misses)))
    def test_near_misses_stay_as_they_are(text: str) -> None:
        assert scrub(text) == text
        assert masked(aihc_with(text)) == aihc_with(text)

    tests = {
        name: value for name, value in locals().items() if name.startswith("test_") or name == "captures"
    }
    if not wrapped_gaps:  # (no empty parameter set: it would be a skipped test)
        del tests["test_container_gaps_are_still_shown"]
    if not known_gaps:
        del tests["test_known_gaps_are_still_shown"]
    if not near_misses:
        del tests["test_near_misses_stay_as_they_are"]
    return tests


def _by_line(fmt: str, source: str, out: str) -> tuple[dict[int, str], str]:
    """What validate's ``text`` or ``json`` report ``out`` says of each line of ``source``, and the rest."""
    by_line: dict[int, str] = {}
    if fmt == "json":
        report = json.loads(out)
        for item in report["results"]:
            by_line[int(item["source"].rsplit(":", 1)[1])] = json.dumps(item)
        return by_line, json.dumps({key: value for key, value in report.items() if key != "results"})
    rest = []
    for line in out.splitlines():
        found = re.match(rf"{re.escape(source)}:(\d+)\b", line)
        if found:
            by_line[int(found[1])] = by_line.get(int(found[1]), "") + line + "\n"
        else:
            rest.append(line)
    return by_line, "\n".join(rest)


def occurring(parts: list[str], text: str) -> set[str]:
    """The ``parts`` that occur in ``text``: ``part in text`` for every part, without searching the
    whole text once per part (quadratic: 27 s of a 40 s test at 568 forms). A part without a
    double quote cannot span one, so it occurs in ``text`` exactly when it occurs in one of the
    text's distinct pieces between double quotes (joined by double quotes again: no new occurrence
    is made); a report repeats its pieces, so those are few. The parts with a quote search the text."""
    wanted = {part for part in parts if part}
    quoted = {part for part in wanted if '"' in part}
    pieces = '"'.join(set(text.split('"')))
    return {part for part in quoted if part in text} | {part for part in wanted - quoted if part in pieces}


def _own_pieces(kept: list[Form]) -> dict[str, list[str]]:
    """Each form's pieces that no other form shows: the forms share tokens (a random string, a JWT,
    hex digests) and some show them beside their secret (a PuTTY file's MAC), so a report of all
    forms at once is searched for what only a leak can put there."""
    visible = "\n".join(revealed(text.replace(secret, " ")) for _, text, secret in kept)
    return {name: [p for p in pieces(secret) if p not in visible] for name, _, secret in kept}


def _captures(folder: Path, kept: list[Form]) -> dict[str, Path]:
    """Every form as a line of a Run:ai and of an AIHC NDJSON file, and in two workloads to diff."""
    paths = {"runai": folder / "runai.ndjson", "aihc": folder / "aihc.ndjson"}
    for kind, build in (("runai", runai_with), ("aihc", aihc_with)):
        lines = [json.dumps(build(text, index)) for index, (_, text, _) in enumerate(kept)]
        paths[kind].write_text("\n".join(lines) + "\n", encoding="utf-8")
    left, right = runai_with("x"), runai_with("x")
    left["spec"]["annotations"] = [{"name": f"n{i}", "value": "x"} for i in range(len(kept))]
    right["spec"]["annotations"] = [{"name": f"n{i}", "value": text} for i, (_, text, _) in enumerate(kept)]
    right["spec"]["args"] = "\n".join(text for _, text, _ in kept)
    for name, doc in (("left", left), ("right", right)):
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return paths


# --- every form in every holder and encoding (the rounds' shared composition test) -------------------


def _indent(text: str) -> str:
    return textwrap.indent(text, "    ", lambda line: True)


#: What holds a form: nothing, a JSON string, a command, a YAML, an INI or an HTML document in a string.
HOLDERS: dict[str, Callable[[str], str]] = {
    "bare": lambda t: t,
    "json-string": lambda t: json.dumps({"startup": t}),
    "command": lambda t: f"bash -c {shlex.quote(t)} && python train.py",
    "yaml-doc": lambda t: json.dumps({"values": f"app:\n  init: |\n{_indent(t)}\n  replicas: 2\n"}),
    "ini-doc": lambda t: json.dumps({"conf": "[run]\nscript = " + json.dumps(t) + "\nretries = 2\n"}),
    "html": lambda t: f"<html><body><pre>{html.escape(t)}</pre></body></html>",
}
#: How the holder is written.
ENCODINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda t: t,
    "base64": b64,
    "base64url": lambda t: base64.urlsafe_b64encode(t.encode()).decode().rstrip("="),
    "gzip-base64": lambda t: base64.b64encode(gzip.compress(t.encode(), mtime=0)).decode(),
    "percent": lambda t: "cfg=" + urllib.parse.quote(t, safe=""),
    "escaped-json": lambda t: json.dumps(t)[1:-1],
}


def held_test(kept: list[Form], max_examples: int = 300) -> Callable[..., None]:
    """The test that any form of ``kept`` written in any holder and any encoding is masked, in a text
    and in a payload's env value, and that masking twice is masking once."""

    @settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        form=st.sampled_from(kept),
        holder=st.sampled_from(sorted(HOLDERS)),
        encoding=st.sampled_from(sorted(ENCODINGS)),
    )
    def test_every_form_in_every_holder_and_encoding(form: Form, holder: str, encoding: str) -> None:
        _, text, secret = form
        written = ENCODINGS[encoding](HOLDERS[holder](text))
        scrubbed = scrub(written)
        assert not shown(secret, scrubbed), scrubbed[:400]
        assert scrub(scrubbed) == scrubbed
        assert not shown(secret, json.dumps(masked({"env": [{"name": "STARTUP", "value": written}]})))

    return test_every_form_in_every_holder_and_encoding
