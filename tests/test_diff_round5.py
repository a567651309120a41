"""``jobschema diff`` on what the other diff tests do not reach: every format carries every change
(a v1 against a v2 AIHC answer in markdown), the patch format names its inputs in its errors, and
the report of a history of many jobs is linear in them (work counted, never timed)."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.diff.render import render
from jobschema.diff.result import Change, DiffResult, Pair
from tests.support import CAPTURES, EXAMPLES, REPO

DIFF = EXAMPLES / "diff"
V1 = CAPTURES / "aihc-job-detail"
V2 = CAPTURES / "aihc-v2-job"


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("JOBSCHEMA_MASK_KEY", "jobschema-example")


def _rel(path: Path) -> str:
    return str(path.relative_to(REPO))


def _case_args(case: Path) -> list[str]:
    if (case / "input.json").is_file():
        return ["--roles", _rel(case / "input.json")]
    if (case / "history.ndjson").is_file():
        return ["--history", _rel(case / "history.ndjson")]
    return [_rel(case / "left.json"), _rel(case / "right.json")]


def _runs() -> list[list[str]]:
    """Every example case, and v1 against v2 answers both ways (mode across)."""
    runs = [_case_args(case) for case in sorted(DIFF.iterdir()) if case.is_dir()]
    for v1 in sorted(V1.glob("*.json")):
        for v2 in sorted(V2.glob("*.json"))[:2]:
            runs += [[_rel(v1), _rel(v2)], [_rel(v2), _rel(v1)]]
    return runs


_CHANGE_LINE = ("  + ", "  - ", "  ± ")


# ------------------------------------------------------------------ every format, every change


@pytest.mark.parametrize("args", _runs(), ids=" ".join)
def test_text_and_markdown_show_every_change_the_json_report_holds(run_cli, args: list[str]) -> None:
    report = json.loads(run_cli(["diff", "-f", "json", *args]).stdout)
    text = run_cli(["diff", "-f", "text", *args]).stdout.splitlines()
    markdown = run_cli(["diff", "-f", "markdown", *args]).stdout.splitlines()
    count = len(report["changes"])
    assert sum(line.startswith(_CHANGE_LINE) for line in text) == count
    rows = [
        line
        for line in markdown
        if line.startswith("| ") and not line.startswith(("| op ", "| between ", "| --- "))
    ]
    assert len(rows) == count
    if report["mode"] == "across":  # what only one API has is listed in every format
        for side in ("left", "right"):
            names = report[f"only_{side}"]
            assert (f"only in {side} (not compared): {', '.join(names)}" in text) == bool(names)
            shown = ", ".join(f"`{name}`" for name in names)
            assert (f"Only in {side} (not compared): {shown}" in markdown) == bool(names)


def test_markdown_of_a_v1_and_a_v2_answer_is_the_table_of_its_changes(run_cli) -> None:
    case = DIFF / "across-v2-v1-one-real-change"
    result = run_cli(["diff", "-f", "markdown", *_case_args(case)], code=1)
    assert result.stdout.splitlines() == [
        "### jobschema diff: different (aihc-v2-job ~ aihc-job-detail, across): "
        "2 changed, 0 added, 0 removed",
        "",
        "| op | path | old | new |",
        "| --- | --- | --- | --- |",
        "| changed | `pods[name=llama2-7b-sft-worker-0].restartCount` | `2` | `0` |",
        '| changed | `status` | `"Restarting"` | `"Running"` |',
        "",
        "Only in left (not compared): `job.historyPods`, `job.jobTimeLine`, `job.jobType`",
        "",
        "Only in right (not compared): `result.command`, `result.customFaultTolerancePattern`, "
        "`result.jobFramework`, `result.k8sNamespace`, `result.k8sUID`, `result.runningAt`, "
        "`result.scheduledAt`",
    ]


def test_markdown_of_a_v1_and_a_v2_answer_that_agree_says_so_and_lists_the_rest(run_cli) -> None:
    case = DIFF / "across-v1-v2-same-job"
    lines = run_cli(["diff", "-f", "markdown", *_case_args(case)], code=0).stdout.splitlines()
    assert lines[:3] == [
        "### jobschema diff: same (aihc-job-detail ~ aihc-v2-job, across)",
        "",
        "No differences.",
    ]
    assert [line.split(":", 1)[0] for line in lines[3:] if line] == [
        "Only in left (not compared)",
        "Only in right (not compared)",
    ]


# ------------------------------------------------------------------ the patch names its inputs


@pytest.mark.parametrize(
    ("left", "right", "problem"),
    [
        (
            V1 / "seed.json",
            CAPTURES / "runai-error" / "not-found.json",
            "is aihc-job-detail but {right} is runai-error",
        ),
        (
            CAPTURES / "runai-distributed-workload" / "seed.json",
            V1 / "seed.json",
            "is runai-distributed-workload but {right} is aihc-job-detail",
        ),
        (V1 / "seed.json", V2 / "sdk-running-4-pods.json", "is aihc-job-detail but {right} is aihc-v2-job"),
    ],
)
def test_a_patch_between_two_apis_names_both_files(run_cli, left: Path, right: Path, problem: str) -> None:
    result = run_cli(["diff", "-f", "patch", _rel(left), _rel(right)], code=2)
    assert result.stdout == ""
    line = result.stderr.removesuffix("\n")
    assert "\n" not in line
    assert line.startswith(f"Error: {_rel(left)} " + problem.format(right=_rel(right)) + ": ")


@pytest.mark.parametrize("side", [0, 1])
def test_a_patch_of_a_document_no_schema_fits_names_that_file(run_cli, tmp_path: Path, side: int) -> None:
    odd = tmp_path / "odd.json"
    odd.write_text('{"kind": "something else"}', encoding="utf-8")
    files = [_rel(V1 / "seed.json"), _rel(V1 / "seed.json")]
    files[side] = str(odd)
    result = run_cli(["diff", "-f", "patch", *files], code=2)
    assert result.stderr.startswith(f"Error: {odd}: no bundled schema fits (")
    assert result.stderr.count("\n") == 1


# ------------------------------------------------------------------ linear in the jobs of a history


class _Counted(str):
    """A job id that counts the comparisons and hashes made of it."""

    calls = 0

    def __eq__(self, other: object) -> bool:
        _Counted.calls += 1
        return str.__eq__(self, other)

    def __hash__(self) -> int:
        _Counted.calls += 1
        return str.__hash__(self)


def _history_of(jobs: int) -> DiffResult:
    pairs, listed = [], []
    for number in range(jobs):
        job = _Counted(f"job-{number:06d}")
        change = Change("changed", "actualPhase", "/actualPhase", "/actualPhase", "Running", "Completed")
        pairs.append(Pair(f"h:{2 * number + 1}", f"h:{2 * number + 2}", (change,), job=job))
        listed.append({"job": job, "schema": "runai-distributed-workload", "snapshots": 2})
    changes = tuple(change for pair in pairs for change in pair.changes)
    return DiffResult("runai-distributed-workload", changes, "history", tuple(pairs), extra={"jobs": listed})


def _work(jobs: int, fmt: str) -> int:
    result = _history_of(jobs)
    _Counted.calls = 0
    render(result, fmt)
    return _Counted.calls


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_the_report_of_a_history_of_many_jobs_is_linear_in_them(fmt: str) -> None:
    """Each job's comparisons are found once, not by reading every comparison for every job."""
    small, large = _work(250, fmt), _work(1000, fmt)
    assert large <= 4 * small + 8, (small, large)


def test_the_report_of_a_history_of_many_jobs_lists_each_job_with_its_comparisons() -> None:
    lines = render(_history_of(3), "text").splitlines()
    assert lines == [
        "job job-000000 (runai-distributed-workload)",
        "h:1 → h:2",
        '  ± actualPhase: "Running" → "Completed"',
        "job job-000001 (runai-distributed-workload)",
        "h:3 → h:4",
        '  ± actualPhase: "Running" → "Completed"',
        "job job-000002 (runai-distributed-workload)",
        "h:5 → h:6",
        '  ± actualPhase: "Running" → "Completed"',
        "different (runai-distributed-workload, history): 3 changed, 0 added, 0 removed",
    ]


# ------------------------------------------------------------------ a history's lines no schema fits

_NO_FIT = {
    "[1, 2]": "top level is an array, not a JSON object; no schema fits",
    "42": "top level is an integer, not a JSON object; no schema fits",
    '"job"': "top level is a string, not a JSON object; no schema fits",
    "null": "top level is null, not a JSON object; no schema fits",
}


@settings(database=None, max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(sorted(_NO_FIT)), max_size=3), st.integers(0, 3), st.integers(0, 3))
def test_a_history_line_no_schema_fits_is_named_and_the_others_compared(
    run_cli, odd: list[str], first: int, second: int
) -> None:
    """As a line that is not JSON: named on stderr and among the warnings, the others compared, exit 2."""
    seed = json.dumps(json.loads((V1 / "seed.json").read_text(encoding="utf-8")))
    lines = [*odd]
    lines.insert(min(first, len(lines)), seed)
    lines.insert(min(second, len(lines)), seed)
    with tempfile.TemporaryDirectory() as folder:
        history = Path(folder) / "h.ndjson"
        history.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = run_cli(["diff", "--history", str(history)], code=2 if odd else 0)
    numbers = [number for number, line in enumerate(lines, start=1) if line == seed]
    problems = [f"{history}:{n}: {_NO_FIT[line]}" for n, line in enumerate(lines, start=1) if line != seed]
    assert result.stderr.splitlines() == [f"Error: {problem}" for problem in problems]
    assert result.stdout.splitlines() == [
        f"{history}:{numbers[0]} → {history}:{numbers[1]}: same",
        *(f"warning: {problem}" for problem in problems),
        "same (aihc-job-detail, history)",
    ]


def test_a_history_with_one_line_a_schema_fits_is_that_one_line_and_exit_2(run_cli, tmp_path: Path) -> None:
    history = tmp_path / "h.ndjson"
    seed = json.dumps(json.loads((V1 / "seed.json").read_text(encoding="utf-8")))
    history.write_text(f"[1, 2]\n{seed}\n", encoding="utf-8")
    result = run_cli(["diff", "--history", str(history)], code=2)
    assert result.stdout == ""
    assert result.stderr == f"Error: {history}:1: {_NO_FIT['[1, 2]']}\n"


# ------------------------------------------------------------------ --ignore/--only patterns: linear


@pytest.mark.parametrize(
    "pattern", ["/**/**/**/**/x", "/**/a/**/a/**/x", "/**/*/**/*/**", "/a/**/**/a/*/**/y"]
)
def test_a_pattern_of_several_double_stars_is_matched_in_linear_work(
    monkeypatch: pytest.MonkeyPatch, pattern: str
) -> None:
    """Token comparisons grow with the depth of the pointer, not with its power (``**`` each)."""
    from jobschema.diff import select

    calls = [0]
    matcher = select.fnmatchcase

    def counted(name: str, pat: str) -> bool:
        calls[0] += 1
        return matcher(name, pat)

    monkeypatch.setattr(select, "fnmatchcase", counted)

    def work(depth: int) -> tuple[int, bool]:
        calls[0] = 0
        found = select.selects([pattern], "/" + "/".join(["a"] * depth) + "/y")
        return calls[0], found

    (small, found_small), (large, found_large) = work(10), work(40)
    assert found_small == found_large
    assert large <= 4 * small + 16, (small, large)


_TOKENS = st.sampled_from(["a", "b", "*", "**", "?", "[ab]", "a*"])


@settings(database=None, max_examples=200)
@given(st.lists(_TOKENS, max_size=6), st.lists(st.sampled_from(["a", "b", "ab", "ba"]), max_size=7))
def test_a_pattern_matches_as_the_glob_of_its_tokens_says(tokens: list[str], path: list[str]) -> None:
    """Against a plain recursive reading of the documented rule: ``*``, ``?``, ``[...]`` within one
    token, ``**`` any number of tokens, and a match covers everything below it."""
    from fnmatch import fnmatchcase

    from jobschema.diff.select import selects

    def reference(pattern: list[str], rest: list[str]) -> bool:
        if not pattern:
            return True
        if pattern[0] == "**":
            return any(reference(pattern[1:], rest[i:]) for i in range(len(rest) + 1))
        return bool(rest) and fnmatchcase(rest[0], pattern[0]) and reference(pattern[1:], rest[1:])

    pointer = "".join("/" + token for token in path)
    assert selects(["/" + "/".join(tokens)], pointer) == reference(tokens, path)


# ------------------------------------------------------------------ --history of one JSON document

_PRETTY_OBJECT = "is one JSON document written over several lines, not NDJSON (one snapshot a line)"
_PRETTY_ARRAY = "is a JSON array written over several lines, not NDJSON (one snapshot a line): jq -c '.[]'"


@pytest.mark.parametrize("indent", [1, 2, 4, "\t"])
@pytest.mark.parametrize("shape", ["object", "array", "array of one"])
def test_a_history_that_is_one_pretty_printed_document_says_so(
    run_cli, tmp_path: Path, indent: Any, shape: str
) -> None:
    seed = json.loads((V1 / "seed.json").read_text(encoding="utf-8"))
    value = seed if shape == "object" else [seed, seed] if shape == "array" else [seed]
    history = tmp_path / "h.json"
    history.write_text(json.dumps(value, indent=indent), encoding="utf-8")
    result = run_cli(["diff", "--history", str(history)], code=2)
    assert result.stdout == ""
    problem = _PRETTY_OBJECT if shape == "object" else f"{_PRETTY_ARRAY} {history} writes it so"
    assert result.stderr == f"Error: {history}: {problem}\n"


def test_a_history_of_one_compact_line_still_says_it_holds_one_snapshot(run_cli, tmp_path: Path) -> None:
    history = tmp_path / "h.ndjson"
    history.write_text(
        (V1 / "seed.json").read_text(encoding="utf-8").replace("\n", "") + "\n", encoding="utf-8"
    )
    result = run_cli(["diff", "--history", str(history)], code=2)
    assert (
        result.stderr
        == f"Error: {history}: file holds one snapshot; --history needs at least two snapshots\n"
    )


# ------------------------------------------------------------------ keys that look alike


_ALIKE = [
    "caf\u00e9",  # NFC
    "cafe\u0301",  # NFD: the same text to the eye
    "caf\u00e9\u200b",  # a zero-width space after it
    "\ufeffcaf\u00e9",  # a byte-order mark before it
    "caf\u00e9\u00a0",  # a no-break space after it
    "caf\u00e9 ",  # a space after it
]


def _with_annotation(key: str) -> dict[str, Any]:
    document = json.loads((V1 / "seed.json").read_text(encoding="utf-8"))
    pod = document["result"]["podList"]["pods"][0]
    pod["objectMeta"]["annotations"][key] = "1"
    pod["envs"] = [*pod["envs"], {"name": key, "value": "1"}]
    return document


@settings(database=None, max_examples=100)
@given(st.lists(st.sampled_from(_ALIKE), min_size=2, max_size=4, unique=True))
def test_keys_that_look_alike_are_shown_apart(keys: list[str]) -> None:
    """Keys that differ only by normalisation or by an invisible character are distinct keys (as in
    JSON), and the paths that name them read apart: the odd one is written with its escapes."""
    from jobschema.diff import diff_documents

    base = json.loads((V1 / "seed.json").read_text(encoding="utf-8"))
    shown: set[str] = set()
    for key in keys:
        text = render(diff_documents(base, _with_annotation(key)), "text")
        lines = [line for line in text.splitlines() if line.startswith("  + ")]
        assert len(lines) == 2, text  # the annotation, and the env var keyed by it
        shown.update(_to_the_eye(line.split(": ", 1)[0]) for line in lines)
    assert len(shown) == 2 * len(keys)


def _to_the_eye(text: str) -> str:
    """``text`` as it reads: one normal form, no invisible characters, every space alike."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")


def test_a_key_in_another_normal_form_is_written_with_its_escapes() -> None:
    from jobschema.diff import diff_documents

    lines = render(diff_documents(_with_annotation("caf\u00e9"), _with_annotation("cafe\u0301")), "text")
    pod = "result.podList.pods[objectMeta.name=job-test-3-master-0]"
    assert [line for line in lines.splitlines() if line.startswith(("  + ", "  - "))] == [
        f'  + {pod}.envs[name="cafe\\u0301"]: {{"name": "cafe\u0301", "value": "1"}}',
        f'  - {pod}.envs[name="café"]: {{"name": "café", "value": "1"}}',
        f'  + {pod}.objectMeta.annotations["cafe\\u0301"]: "1"',
        f'  - {pod}.objectMeta.annotations["café"]: "1"',
    ]


# ------------------------------------------------------------------ file names holding a secret

_SECRET_NAME = "password=Hunter2SecretName"


def _secret_named_runs(folder: Path) -> list[tuple[list[str], int]]:
    """Runs whose every line names a file called ``password=…``: errors (no schema fits, two APIs, a
    history of two APIs, a line that cannot be read) and reports (history labels)."""
    seed = (V1 / "seed.json").read_text(encoding="utf-8")
    error = (CAPTURES / "runai-error" / "not-found.json").read_text(encoding="utf-8")
    one = json.dumps(json.loads(seed))
    files = {
        "job": seed,
        "error": error,
        "empty-object": "{}",
        "array": "[1]",
        "history.ndjson": f"{one}\n{one}\n[1]\n{{bad\n",
        "two-apis.ndjson": f"{one}\n{json.dumps(json.loads(error))}\n",
        "nothing-fits.ndjson": "{}\n{}\n",
    }
    paths = {}
    for key, text in files.items():
        path = folder / f"{_SECRET_NAME}-{key}"
        path.write_text(text, encoding="utf-8")
        paths[key] = str(path)
    seed_path = _rel(V1 / "seed.json")
    return [
        ([paths["error"], seed_path], 2),
        ([seed_path, paths["error"]], 2),
        ([paths["empty-object"], seed_path], 2),
        ([paths["array"], seed_path], 2),
        (["--roles", paths["empty-object"]], 2),
        (["--history", paths["history.ndjson"]], 2),
        (["--history", paths["two-apis.ndjson"]], 2),
        (["--history", paths["nothing-fits.ndjson"]], 2),
        (["-f", "patch", paths["error"], seed_path], 2),
        (["-f", "patch", paths["empty-object"], seed_path], 2),
    ]


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_a_file_named_after_a_secret_is_masked_in_every_line(run_cli, tmp_path: Path, fmt: str) -> None:
    for run, code in _secret_named_runs(tmp_path):
        args = run if "patch" in run else ["-f", fmt, *run]
        result = run_cli(["diff", *args], code=code)
        output = result.stdout + result.stderr
        assert "Hunter2SecretName" not in output, (args, output)
        assert "password=<secret:" in output, (args, output)


def test_a_history_label_keeps_its_line_number_when_its_file_name_is_masked(run_cli, tmp_path: Path) -> None:
    history = next(args for args, _ in _secret_named_runs(tmp_path) if args[0] == "--history")
    result = run_cli(["diff", *history], code=2)
    lines = result.stdout.splitlines() + result.stderr.splitlines()
    masked = [line for line in lines if "password=<secret:" in line]
    assert masked and all(re.search(r"password=<secret:[0-9a-f]{8}>:\d", line) for line in masked)


# ------------------------------------------------------------------ an empty --ignore/--only


@pytest.mark.parametrize("option", ["--ignore", "--only"])
@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
@pytest.mark.parametrize("pattern", [""])
def test_an_empty_pattern_is_a_usage_error_not_everything(
    run_cli, option: str, fmt: str, pattern: str
) -> None:
    """``--ignore "$UNSET"`` would ignore the whole document and pass every CI run: exit 2, one line."""
    case = DIFF / "runai-env-added-whole-item"
    result = run_cli(["diff", "-f", fmt, *_case_args(case), option, "/spec/x", option, pattern], code=2)
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        f"Error: {option} {json.dumps(pattern)}: an empty pattern would select the whole document "
        "(an unset variable?); give a pointer such as /result/podList/pods/*/PodIP, or / for everything"
    )


# ------------------------------------------------------------------ numbers in a set


_NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from([2**53, 2**53 + 1, 2**63, 2**63 + 1, 10**30, 10**30 + 1, 1e30, 0, 0.0, -0.0, 1, 1.0]),
)


@settings(database=None, max_examples=200)
@given(_NUMBERS, _NUMBERS)
def test_a_number_in_a_set_is_the_member_it_equals(left: float, right: float) -> None:
    """A set member changes exactly when its value does, as a scalar compares (1 == 1.0, but 10**30 and
    10**30 + 1 are two numbers, not one float)."""
    from jobschema.diff import diff_documents

    base = json.loads((CAPTURES / "runai-distributed-workload" / "seed.json").read_text(encoding="utf-8"))
    before, after = json.loads(json.dumps(base)), json.loads(json.dumps(base))
    before.setdefault("spec", {}).setdefault("security", {})["capabilities"] = [left]
    after["spec"].setdefault("security", {})["capabilities"] = [right]
    changes = diff_documents(before, after).changes
    assert bool(changes) == (left != right), changes


# ------------------------------------------------------------------ --history of a folder


def _snapshot(phase: str) -> str:
    document = json.loads((CAPTURES / "runai-distributed-workload" / "seed.json").read_text(encoding="utf-8"))
    document["actualPhase"] = phase
    return json.dumps(document, indent=2)


def test_a_folder_is_a_history_of_its_files_in_natural_name_order(run_cli, tmp_path: Path) -> None:
    """snap-2 comes before snap-10 (numbers in names read as numbers), each file one snapshot; a file
    that cannot be read is named and the others compared (exit 2), as a line of an NDJSON file is."""
    folder = tmp_path / "job"
    folder.mkdir()
    for number, phase in ((1, "Pending"), (2, "Running"), (10, "Completed")):
        (folder / f"snap-{number}.json").write_text(_snapshot(phase), encoding="utf-8")
    (folder / "notes.txt").write_text("not a snapshot", encoding="utf-8")
    result = run_cli(["diff", "--history", "--only", "/actualPhase", str(folder)], code=1)
    assert result.stdout.splitlines() == [
        f"{folder}/snap-1.json → {folder}/snap-2.json",
        '  ± actualPhase: "Pending" → "Running"',
        f"{folder}/snap-2.json → {folder}/snap-10.json",
        '  ± actualPhase: "Running" → "Completed"',
        "different (runai-distributed-workload, history): 2 changed, 0 added, 0 removed",
    ]
    (folder / "snap-3.json").write_text('{"cut off', encoding="utf-8")
    result = run_cli(["diff", "--history", "--only", "/actualPhase", str(folder)], code=2)
    assert result.stderr.splitlines() == [
        f"Error: {folder}/snap-3.json:1:2: invalid JSON: Unterminated string starting at"
    ]
    assert (
        result.stdout.splitlines()[-1]
        == "different (runai-distributed-workload, history): 2 changed, 0 added, 0 removed"
    )


def test_a_folder_of_ndjson_and_har_files_reads_their_snapshots_in_turn(run_cli, tmp_path: Path) -> None:
    folder = tmp_path / "job"
    folder.mkdir()
    one = lambda phase: json.dumps(json.loads(_snapshot(phase)))  # noqa: E731
    (folder / "a.ndjson").write_text(f"{one('Pending')}\n{one('Running')}\n", encoding="utf-8")
    (folder / "b.json").write_text(_snapshot("Completed"), encoding="utf-8")
    result = run_cli(["diff", "--history", "--only", "/actualPhase", "-f", "json", str(folder)], code=1)
    pairs = [(pair["left"], pair["right"]) for pair in json.loads(result.stdout)["pairs"]]
    assert pairs == [
        (f"{folder}/a.ndjson:1", f"{folder}/a.ndjson:2"),
        (f"{folder}/a.ndjson:2", f"{folder}/b.json"),
    ]


@pytest.mark.parametrize("files", [0, 1])
def test_a_folder_with_fewer_than_two_snapshots_is_one_line(run_cli, tmp_path: Path, files: int) -> None:
    folder = tmp_path / "job"
    folder.mkdir()
    if files:
        (folder / "a.json").write_text(_snapshot("Running"), encoding="utf-8")
    result = run_cli(["diff", "--history", str(folder)], code=2)
    assert result.stdout == ""
    assert result.stderr == (
        f"Error: {folder}: folder holds no *.json, *.ndjson, *.jsonl or *.har files\n"
        if not files
        else f"Error: {folder}: folder holds one snapshot; --history needs at least two snapshots\n"
    )


# ------------------------------------------------------------------ both sides unreadable


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "patch"])
@pytest.mark.parametrize(
    ("left", "right", "problems"),
    [
        ("nope-1.json", "nope-2.json", ["{left}: no such file", "{right}: no such file"]),
        ("empty.json", "nope-2.json", ["{left}: file is empty", "{right}: no such file"]),
        (
            "broken.json",
            "empty.json",
            ["{left}:1:2: invalid JSON: Expecting value", "{right}: file is empty"],
        ),
    ],
)
def test_each_side_that_cannot_be_read_is_named(
    run_cli, tmp_path: Path, fmt: str, left: str, right: str, problems: list[str]
) -> None:
    """One bad input does not hide the other: a line each, in order, exit 2."""
    (tmp_path / "empty.json").write_text("", encoding="utf-8")
    (tmp_path / "broken.json").write_text("[}", encoding="utf-8")
    left_path, right_path = str(tmp_path / left), str(tmp_path / right)
    result = run_cli(["diff", "-f", fmt, left_path, right_path], code=2)
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "Error: " + problem.format(left=left_path, right=right_path) for problem in problems
    ]


# ------------------------------------------------------------------ a HAR as Windows tools write it


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("lead", ["", "\n  "])
def test_a_har_with_a_byte_order_mark_or_crlf_is_a_history(
    run_cli, tmp_path: Path, bom: bytes, newline: str, lead: str
) -> None:
    recording = REPO / "tests" / "fixtures" / "record" / "two-jobs.ndjson"
    entries = []
    for line in recording.read_text(encoding="utf-8").splitlines():
        url = f"https://tenant.example.run.ai/api/v1/workloads/distributed/{json.loads(line)['workloadId']}"
        request = {"method": "GET", "url": url, "headers": [], "httpVersion": "HTTP/1.1"}
        content = {"mimeType": "application/json", "size": len(line), "text": line}
        response = {"status": 200, "statusText": "", "headers": [], "content": content}
        entries.append(
            {
                "startedDateTime": "2025-11-29T17:03:00.000Z",
                "time": 1,
                "request": request,
                "response": response,
            }
        )
    text = lead + json.dumps(
        {"log": {"version": "1.2", "creator": {"name": "t"}, "entries": entries}}, indent=2
    )
    har = tmp_path / "h.har"
    har.write_bytes(bom + text.replace("\n", newline).encode("utf-8"))
    expected = run_cli(["diff", "--history", "--stat", str(recording)], code=1).stdout
    assert run_cli(["diff", "--history", "--stat", str(har)], code=1).stdout == expected


@pytest.mark.parametrize("fmt", ["text", "patch"])
def test_each_side_no_schema_fits_is_named(run_cli, tmp_path: Path, fmt: str) -> None:
    left, right = tmp_path / "left.json", tmp_path / "right.json"
    left.write_text("[1]", encoding="utf-8")
    right.write_text('"job"', encoding="utf-8")
    result = run_cli(["diff", "-f", fmt, str(left), str(right)], code=2)
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"Error: {left}: top level is an array, not a JSON object; no schema fits",
        f"Error: {right}: top level is a string, not a JSON object; no schema fits",
    ]


@pytest.mark.parametrize("text", ["", "[1]", "{}"])
def test_one_file_given_as_both_sides_is_named_once(run_cli, tmp_path: Path, text: str) -> None:
    odd = tmp_path / "odd.json"
    odd.write_text(text, encoding="utf-8")
    result = run_cli(["diff", str(odd), str(odd)], code=2)
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"Error: {odd}: ")
