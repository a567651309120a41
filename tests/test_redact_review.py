"""``jobschema redact`` as a CI job and a hostile input use it: what is written where, and what is
never touched; write failures named as writes; a rewritten file keeps its owner; a file changed
while it is redacted is not overwritten."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.inputs import base64text
from jobschema.redact import core, jsonedit
from jobschema.redact.core import Line, redact_text
from jobschema.secrets.policy import mask
from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures" / "redact"
SECRET = json.dumps(
    {"spec": {"environmentVariables": [{"name": "HF_TOKEN", "value": "hunter2-very-secret"}]}}
)
CLEAN = json.dumps({"spec": {"name": "train"}})


def _write(path: Path, *lines: str) -> Path:
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
    return path


def _inputs(folder: Path) -> list[Path]:
    """One input of each kind, each holding a secret."""
    return [
        _write(folder / "job.json", SECRET),
        _write(folder / "jobs.ndjson", SECRET, CLEAN),
        folder / "session.har",
    ]


def _state(paths: Iterable[Path]) -> list[tuple[bytes, int, int]]:
    return [(p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_ino) for p in paths]


# --- nothing is modified unless asked ------------------------------------------------------------


@pytest.mark.parametrize(
    "mode",
    [[], ["-o", "{out}"], ["--check"], ["--check", "-f", "json"], ["--check", "-f", "sarif"]],
)
def test_without_in_place_no_input_changes_at_all(run_cli, tmp_path: Path, mode: list[str]) -> None:
    (tmp_path / "session.har").write_bytes((FIXTURES / "session.har").read_bytes())
    inputs = _inputs(tmp_path)
    os.utime(inputs[0], ns=(1_000_000_000, 1_000_000_000))  # an mtime a rewrite could not keep by chance
    before = _state(inputs)
    for index, path in enumerate(inputs):
        args = [a.replace("{out}", str(tmp_path / f"out{index}{path.suffix}")) for a in mode]
        run_cli(["redact", *args, str(path)], code=1 if "--check" in mode else 0)
    assert _state(inputs) == before
    names = sorted(p.name for p in tmp_path.iterdir())
    outputs = [f"out{i}{p.suffix}" for i, p in enumerate(inputs)] if "-o" in mode else []
    assert names == sorted([p.name for p in inputs] + outputs)


def test_in_place_leaves_clean_files_untouched(run_cli, tmp_path: Path) -> None:
    clean = [_write(tmp_path / "a.json", CLEAN), _write(tmp_path / "b.ndjson", CLEAN, CLEAN)]
    before = _state(clean)
    assert run_cli(["redact", "--in-place", str(tmp_path)], code=0).stderr == ""
    assert _state(clean) == before


# --- a write that fails is named as a write ------------------------------------------------------


@pytest.mark.parametrize("kind", ["json", "ndjson"])
@pytest.mark.parametrize("step", ["mkstemp", "replace", "fsync"])
def test_in_place_write_failure_is_a_write_error(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, step: str
) -> None:
    target = _write(tmp_path / f"jobs.{kind}", SECRET)
    before = target.read_bytes()
    _fail(monkeypatch, step)
    result = run_cli(["redact", "--in-place", str(target)], code=1)
    assert result.stderr == f"Error: {target}: cannot write file: Permission denied\n"
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


@pytest.mark.parametrize("kind", ["json", "ndjson"])
@pytest.mark.parametrize("step", ["mkstemp", "replace", "fsync"])
def test_output_write_failure_is_an_output_error(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, step: str
) -> None:
    target = _write(tmp_path / f"jobs.{kind}", SECRET)
    output = tmp_path / f"out.{kind}"
    _fail(monkeypatch, step)
    result = run_cli(["redact", str(target), "-o", str(output)], code=2)
    assert result.stderr == f"Error: {output}: cannot write the report: Permission denied\n"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def _fail(monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    import tempfile

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile if step == "mkstemp" else os, step, refused)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("kind", ["json", "ndjson"])
@pytest.mark.parametrize("to", ["stdout", "-o"])
def test_a_full_disk_is_one_output_error_exit_2(tmp_path: Path, kind: str, to: str) -> None:
    target = _write(tmp_path / f"jobs.{kind}", SECRET, *([CLEAN] if kind == "ndjson" else []))
    where = ["-o", "/dev/full"] if to == "-o" else []
    with Path("/dev/full").open("wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "jobschema", "redact", str(target), *where],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "JOBSCHEMA_MASK_KEY": "k"},
        )
    name = "/dev/full" if to == "-o" else "standard output"
    assert (done.returncode, done.stderr) == (
        2,
        f"Error: {name}: cannot write the report: No space left on device\n",
    )


# --- in place: the owner is kept, a concurrent change is never overwritten -----------------------


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="giving a file away needs root")
@pytest.mark.parametrize("kind", ["json", "ndjson"])
def test_in_place_keeps_owner_group_and_special_bits(run_cli, tmp_path: Path, kind: str) -> None:
    target = _write(tmp_path / f"jobs.{kind}", SECRET)
    os.chown(target, 1234, 5678)
    target.chmod(0o2640)  # setgid: chown after chmod would clear it
    run_cli(["redact", "--in-place", str(target)], code=0)
    status = target.stat()
    assert (status.st_uid, status.st_gid, status.st_mode & 0o7777) == (1234, 5678, 0o2640)
    assert b"hunter2" not in target.read_bytes()


def _append_while_redacting(monkeypatch: pytest.MonkeyPatch, target: Path, how: str) -> bytes:
    """Another writer changes ``target`` after redact read it; returns what that writer left."""
    changed = target.read_bytes() + (CLEAN + "\n").encode()

    def writer() -> None:
        if how == "append":
            with target.open("ab") as stream:
                stream.write((CLEAN + "\n").encode())
        else:  # an editor's save: a new file renamed over it
            fresh = target.with_name("fresh")
            fresh.write_bytes(changed)
            fresh.replace(target)

    real_bytes, real_lines = core.redact_bytes, core.redact_ndjson

    def redact_bytes(data: bytes, kind: core.Kind = "json") -> core.Redacted:
        writer()
        return real_bytes(data, kind)

    def redact_ndjson(stream: Iterable[bytes]) -> Iterator[Line]:
        for index, line in enumerate(real_lines(stream)):
            if index == 0:
                writer()
            yield line

    monkeypatch.setattr(core, "redact_bytes", redact_bytes)
    monkeypatch.setattr(core, "redact_ndjson", redact_ndjson)
    return changed


@pytest.mark.parametrize("kind", ["json", "ndjson"])
@pytest.mark.parametrize("how", ["append", "replace"])
def test_a_file_changed_while_redacted_is_not_overwritten(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, how: str
) -> None:
    target = _write(tmp_path / f"jobs.{kind}", SECRET)
    changed = _append_while_redacting(monkeypatch, target, how)
    result = run_cli(["redact", "--in-place", str(target)], code=1)
    assert result.stderr == (
        f"Error: {target}: changed while it was being redacted; nothing written: run redact again\n"
    )
    assert target.read_bytes() == changed
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


# --- what redact says on stderr is one line, and shows no secret ---------------------------------


@pytest.mark.parametrize("kind", ["json", "ndjson"])
def test_the_masked_note_names_the_file_on_one_line_without_its_secret(
    run_cli, tmp_path: Path, kind: str
) -> None:
    token = "ghp_" + "a1B2" * 9
    target = _write(tmp_path / f"x\n\x1b[31mtoken={token}.{kind}", SECRET)
    result = run_cli(["redact", "--in-place", str(target)], code=0)
    assert result.stderr.count("\n") == 1 and result.stderr.endswith(": masked 1 secret\n")
    assert token not in result.stderr and "\x1b" not in result.stderr
    assert result.stderr.startswith(f"{tmp_path}/x\\n\\x1b[31mtoken=<secret:")


# --- HAR base64 bodies in every style captures write them ----------------------------------------

BODY = {"items": [{"id": 1, "note": "~~~???>>>"}], "password": "hunter2-very-secret", "pad": "abc"}


def _har(text: str, encoding: str | None = "base64") -> str:
    content = {"mimeType": "application/json", "text": text, **({"encoding": encoding} if encoding else {})}
    entry = {
        "request": {"method": "GET", "url": "https://api.example/v1/x", "headers": []},
        "response": {"status": 200, "headers": [], "content": content},
    }
    return json.dumps({"log": {"version": "1.2", "entries": [entry]}}, indent=2)


def _content(har_text: str) -> str:
    text: str = json.loads(har_text)["log"]["entries"][0]["response"]["content"]["text"]
    return text


STYLES = {
    "one line": base64text.Style(),
    "mime": base64text.Style(width=76, end="\r\n", ended=True),
    "pem": base64text.Style(width=64, ended=True),
    "wrapped, last line not ended": base64text.Style(width=16),
    "url-safe": base64text.Style(url_safe=True),
    "unpadded": base64text.Style(padded=False),
    "url-safe, unpadded, wrapped": base64text.Style(width=20, url_safe=True, padded=False, ended=True),
}


@pytest.mark.parametrize("style", STYLES.values(), ids=STYLES.keys())
def test_a_base64_body_is_decoded_masked_and_encoded_in_its_own_style(style: base64text.Style) -> None:
    body = json.dumps(BODY, indent=1)
    assert len(body) % 3  # (else unpadded base64 has no padding to leave out: padded is read)
    encoded = style.encode(body.encode())
    assert base64text.decode(encoded) == (body.encode(), style)
    redacted = redact_text(_har(encoded), "har")
    assert [s.pointer for s in redacted.secrets] == ["/log/entries/0/response/content/text/password"]
    expected = body.replace("hunter2-very-secret", mask("hunter2-very-secret"))
    assert _content(redacted.text) == style.encode(expected.encode())
    assert redact_text(redacted.text, "har") == core.Redacted(redacted.text)


@pytest.mark.parametrize(
    "text",
    ["not base64!", "a", "YWJj\nYW", "YW=j", "YWJj\nYWJjYWJj\n", "YWJj-+", "YWJjZA=\n", "Y\r\nW\nJj"],
)
def test_text_that_is_not_base64_in_one_style_is_not_decoded(text: str) -> None:
    assert base64text.decode(text) is None


@pytest.mark.parametrize("token", ["ghp_" + "a1B2" * 9, "glpat-" + "a1B2c3D4e5" * 2])
def test_a_token_in_a_body_said_to_be_base64_is_masked(token: str) -> None:
    redacted = redact_text(_har(token), "har")
    assert token not in redacted.text
    assert [s.pointer for s in redacted.secrets] == ["/log/entries/0/response/content/text"]


def test_a_binary_base64_body_is_left_as_it_is() -> None:
    image = (REPO / "docs" / "images" / "timeline.png").read_bytes()  # (scrubbed, it would be masked)
    for style in (style for style in STYLES.values() if not style.url_safe):
        text = _har(style.encode(image))
        assert redact_text(text, "har") == core.Redacted(text)


# --- a document written again (a repeated key hid a secret) keeps its numbers as written -----------

NUMBERS = (
    '"a": 1.50, "e": 1E2, "f": 1.0e-0, "z": -0, "p": 1.00000000000000000001, "big": 12345678901234567890123'
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            f'{{{NUMBERS}, "l": [0.10, 2e-7], "password": "hunter2-hidden", "password": "zzzzzzzz"}}',
            f'{{{NUMBERS}, "l": [0.10, 2e-7], "password": "MASK"}}',
        ),
        (
            '{\n  "n": [1.50, -0.0, 1E+2],\n  "TOKEN": "hunter2-hidden",\n  "TOKEN": "zzzzzzzz"\n}\n',
            '{\n  "n": [\n    1.50,\n    -0.0,\n    1E+2\n  ],\n  "TOKEN": "MASK"\n}\n',
        ),
    ],
)
def test_numbers_keep_their_text_when_the_document_is_written_again(text: str, expected: str) -> None:
    redacted = redact_text(text)
    assert redacted.text == expected.replace("MASK", mask("zzzzzzzz"))
    assert redact_text(redacted.text) == core.Redacted(redacted.text)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


@settings(database=None, deadline=None, max_examples=200)
@given(
    value=JSON_VALUES,
    indent=st.sampled_from([None, 0, 2, 4, "\t"]),
    compact=st.booleans(),
    ascii=st.booleans(),
)
def test_writing_a_document_again_in_its_own_style_gives_its_text(
    value: Any, indent: int | str | None, compact: bool, ascii: bool
) -> None:
    """What ``json.dumps`` wrote, :func:`jsonedit.dump_like` writes again byte for byte."""
    separators = (",", ":") if compact else ((",", ": ") if indent is not None else (", ", ": "))
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ascii)
    assert jsonedit.dump_like(jsonedit.load_numbers(text), text) == text


# --- compositions: random documents, planted secrets, every container -----------------------------

PLANTED = st.sampled_from(
    [
        ("password", "hunter2-very-secret"),
        ("note", "Bearer abcdef123456ghijkl7890"),
        ("dsn", "postgres://app:Sup3rS3cretPw@db/train"),
        ("HF_TOKEN", "hf_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7"),
        ("note", "é Bearer abcdef123456ghijkl7890 \ud800"),
    ]
)
SAFE_TEXT = st.text(alphabet="abcdefgh .-é\udfff", max_size=8)
SAFE_KEYS = st.sampled_from(["a", "b", "items", "name", "count"])
SAFE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | SAFE_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(SAFE_KEYS, inner, max_size=3),
    max_leaves=12,
)


@st.composite
def _planted(draw: st.DrawFn) -> tuple[Any, list[str]]:
    """A document with secrets planted in objects at random depths; the secret values."""
    secrets: list[str] = []

    def plant(value: Any) -> Any:
        if isinstance(value, list):
            return [plant(item) for item in value]
        if not isinstance(value, dict):
            return value
        planted = {key: plant(item) for key, item in value.items()}
        if draw(st.booleans()):
            key, secret = draw(PLANTED)
            planted[key] = secret
            secrets.append(secret)
        return planted

    document = plant(draw(st.dictionaries(SAFE_KEYS, SAFE, max_size=4)))
    key, secret = draw(PLANTED)
    document[key] = secret  # (at least one)
    return document, [*secrets, secret]


def _same_but_masked(before: Any, after: Any, secrets: list[str]) -> None:
    """``after`` is ``before`` with only strings holding a planted secret changed, each to a mask."""
    assert type(before) is type(after)
    if isinstance(before, dict):
        assert list(before) == list(after)
        for key in before:
            _same_but_masked(before[key], after[key], secrets)
    elif isinstance(before, list):
        assert len(before) == len(after)
        for one, other in zip(before, after, strict=True):
            _same_but_masked(one, other, secrets)
    elif before != after:
        assert any(secret in before for secret in secrets) and "<secret:" in after
        assert not any(secret in after for secret in secrets)


#: The part of each planted value a mask replaces.
MASKED_PARTS = re.compile(
    r"<secret:[0-9a-f]{8}>|hunter2-very-secret|abcdef123456ghijkl7890|Sup3rS3cretPw|hf_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7"
)


def _unmasked(text: str) -> str:
    return MASKED_PARTS.sub("M", text)


def _body(har_text: str) -> str:
    content = json.loads(har_text)["log"]["entries"][0]["response"]["content"]
    decoded = base64text.decode(content["text"]) if content.get("encoding") else None
    return decoded[0].decode() if decoded is not None else str(content["text"])


@settings(database=None, deadline=None, max_examples=50)
@given(
    documents=st.lists(_planted(), min_size=1, max_size=3),
    container=st.sampled_from(["json", "ndjson", "har", *(f"har base64 {name}" for name in STYLES)]),
    indent=st.sampled_from([None, 2, "\t"]),
    crlf=st.booleans(),
    ascii=st.booleans(),
)
def test_planted_secrets_are_masked_and_nothing_else_changes(
    documents: list[tuple[Any, list[str]]],
    container: str,
    indent: int | str | None,
    crlf: bool,
    ascii: bool,
) -> None:
    secrets = [secret for _, found in documents for secret in found]
    end = "\r\n" if crlf else "\n"

    def dumps(value: Any, indent: int | str | None = None) -> str:
        """As a file holds it: ``é`` or ``\\u00e9``, a lone surrogate only as its escape."""
        text = json.dumps(value, indent=indent, ensure_ascii=ascii).replace("\n", end)
        return re.sub("[\ud800-\udfff]", lambda found: f"\\u{ord(found[0]):04x}", text)

    texts = [dumps(document, indent) for document, _ in documents]
    if container == "ndjson":
        blank = [end if index % 2 else "" for index in range(len(documents))]  # (blank lines kept)
        text = "".join(dumps(d) + end + b for (d, _), b in zip(documents, blank, strict=True))
        redacted = redact_text(text, "ndjson")
        outputs = [line for line in redacted.text.split(end) if line]
    elif container == "json":
        redacted = redact_text(texts[0] + end)
        outputs = [redacted.text]
    else:
        style = STYLES[container.removeprefix("har base64 ")] if "base64" in container else None
        body = style.encode(texts[0].encode()) if style else texts[0]
        redacted = redact_text(_har(body, "base64" if style else None), "har")
        outputs = [_body(redacted.text)]
    assert redacted.problems == ()
    assert not any(secret in redacted.text for secret in secrets)
    redacted.text.encode("utf-8")  # (what a file can hold: no lone surrogate written raw)
    if not container.startswith("har"):  # every other byte kept
        assert _unmasked(redacted.text) == _unmasked(text if container == "ndjson" else texts[0] + end)
    for (document, found), output in zip(documents, outputs, strict=False):
        _same_but_masked(document, json.loads(output), found)
    kind = container.split(maxsplit=1)[0]
    assert redact_text(redacted.text, kind) == core.Redacted(redacted.text)  # type: ignore[arg-type]


# --- names: the same file twice, a link beside its file, -o beside the input ----------------------


def test_a_file_named_twice_and_through_a_link_is_rewritten_once(run_cli, tmp_path: Path) -> None:
    target = _write(tmp_path / "job.json", SECRET)
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    result = run_cli(["redact", "--in-place", str(target), str(link), str(target)], code=0)
    assert result.stderr == f"{target}: masked 1 secret\n"
    assert link.is_symlink() and b"hunter2" not in target.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.json", "link.json"]


def test_output_to_a_hard_link_of_the_input_leaves_the_input_alone(run_cli, tmp_path: Path) -> None:
    target = _write(tmp_path / "job.json", SECRET)
    other = tmp_path / "other.json"
    other.hardlink_to(target)
    before = target.read_bytes()
    run_cli(["redact", str(target), "-o", str(other)], code=0)
    assert target.read_bytes() == before
    assert b"hunter2" not in other.read_bytes()


def test_a_read_only_file_is_rewritten_and_stays_read_only(run_cli, tmp_path: Path) -> None:
    target = _write(tmp_path / "job.json", SECRET)
    target.chmod(0o444)
    run_cli(["redact", "--in-place", str(target)], code=0)
    assert target.stat().st_mode & 0o777 == 0o444
    assert b"hunter2" not in target.read_bytes()


def test_masks_are_the_same_bytes_in_every_run_with_a_key(tmp_path: Path) -> None:
    target = _write(tmp_path / "job.json", SECRET)
    runs = [
        subprocess.run(
            [sys.executable, "-m", "jobschema", "redact", str(target)],
            capture_output=True,
            timeout=120,
            check=True,
            env={**os.environ, "JOBSCHEMA_MASK_KEY": "ci-key"},
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    assert runs[0] == SECRET.replace("hunter2-very-secret", _mask_with("ci-key")).encode() + b"\n"


def _mask_with(key: str) -> str:
    import hashlib
    import hmac

    digest = hmac.new(key.encode(), b"hunter2-very-secret", hashlib.sha256).hexdigest()
    return f"<secret:{digest[:8]}>"


@pytest.mark.parametrize("failing", ["a.json", "b.ndjson"])
def test_one_file_that_cannot_be_rewritten_never_stops_the_others(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    files = [_write(tmp_path / name, SECRET) for name in ("a.json", "b.ndjson", "c.json")]
    real_replace = os.replace

    def replace(source: str, target: str | Path) -> None:
        if Path(target).name == failing:
            raise PermissionError(13, "Permission denied")
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    result = run_cli(["redact", "--in-place", *map(str, files)], code=1)
    assert f"Error: {tmp_path / failing}: cannot write file: Permission denied\n" in result.stderr
    for path in files:
        assert (b"hunter2" in path.read_bytes()) == (path.name == failing)


# --- a lone surrogate (a \ud800 escape) in a changed value stays an escape: the output is UTF-8 ----

SURROGATES = [
    '{"note": "é Bearer abcdef123456ghijkl7890 \\ud800"}',  # spliced, non-ASCII value
    '{"é": "\\udfff", "TOKEN": "a", "TOKEN": "b"}',  # written again, non-ASCII document
    '{"raw": "{\\"é\\": \\"\\\\ud800 Bearer abcdef123456ghijkl7890\\"}"}',  # embedded in a string
]


@pytest.mark.parametrize("text", SURROGATES)
@pytest.mark.parametrize("kind", ["json", "ndjson"])
def test_a_lone_surrogate_in_a_masked_value_is_written_as_an_escape(
    run_cli, tmp_path: Path, text: str, kind: str
) -> None:
    target = _write(tmp_path / f"doc.{kind}", text)
    run_cli(["redact", "--in-place", str(target)], code=0)
    written = target.read_bytes().decode("utf-8")  # (raises when a surrogate was written raw)
    assert "Bearer abcdef" not in written and '"a"' not in written
    run_cli(["redact", "--check", str(target)], code=0)
    run_cli(["redact", str(target)], code=0)
    assert core.redact_bytes(target.read_bytes(), kind).changed is False  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["token=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "AKIAIOSFODNN7EXAMPLE"])
def test_a_check_line_masks_a_file_name_on_its_own(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A secret in a file's name is masked as itself, not with what the line puts after it (the
    ``.json:`` after ``token=ghp_…`` was swallowed into its mask), and every format masks it alike."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / f"{name}.json").write_text('{"password": "hunter2hunter2"}')
    (tmp_path / f"{name}.bad.json").write_text('{"a": ')
    result = run_cli(["redact", "--check", "."], code=1)
    sources = [
        s["source"]
        for s in json.loads(run_cli(["redact", "--check", "-f", "json", "."], code=1).stdout)["secrets"]
    ]
    problems = [
        p["source"]
        for p in json.loads(run_cli(["redact", "--check", "-f", "json", "."], code=1).stdout)["problems"]
    ]
    assert len(sources) == 1 and re.fullmatch(r"\./(token=)?<secret:[0-9a-f]{8}>\.json", sources[0])
    assert result.stdout == f"{sources[0]}: /password: unmasked secret [redact]\n"
    assert "ghp_" not in result.stdout + result.stderr and "AKIA" not in result.stdout + result.stderr
    assert result.stderr.startswith(f"Error: {problems[0]}:1:7: invalid JSON")
