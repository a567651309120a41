"""jobschema on Dask (:mod:`jobschema.validate.parallel.dask`, ``validate --dask``): on a loopback
``distributed.LocalCluster`` of two worker processes, every result and every report format is the
one a local run gives for the same inputs, masks included (under a key the workers' own environment
does not hold), and each way the Dask path can fail is one line and exit 2."""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import dask
import dask.bag as db
import pytest
from distributed import LocalCluster

from jobschema.errors import SchemaInvalid
from jobschema.report import FORMATS, RenderOptions, render
from jobschema.secrets.mask import scoped_mask_key
from jobschema.validate import validate_paths
from jobschema.validate.parallel import dask as on_dask
from jobschema.validate.payloads import validate_payloads
from jobschema.validate.session import Settings
from tests.support import CAPTURES, EXAMPLES, REPO

T = TypeVar("T")
#: Seconds any one Dask call may take here before the test fails (the cluster is local and small).
LIMIT = 120.0
FIXTURES = REPO / "tests" / "fixtures"
#: A key no worker holds: the workers' environment has the suite's (tests/conftest.py).
CLIENT_KEY = b"a key only the client holds"


def within(call: Callable[[], T], seconds: float = LIMIT) -> T:
    """``call()`` (in another thread, in this one's context: its mask key), failing the test when it
    takes longer than ``seconds``."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        return pool.submit(contextvars.copy_context().run, call).result(timeout=seconds)
    finally:
        pool.shutdown(wait=False)


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
        worker_dashboard_address=":0",
    ) as running:
        yield running


@pytest.fixture(scope="module")
def client(cluster: LocalCluster) -> Iterator[Any]:
    connected = on_dask.connect(cluster.scheduler_address, timeout=LIMIT)
    yield connected
    connected.close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Good files, invalid ones, a HAR, secrets, an NDJSON with bad lines between good ones, and files
    that do not parse, are not UTF-8 or are empty, among good ones."""
    root = tmp_path_factory.mktemp("corpus")
    shutil.copytree(EXAMPLES, root / "examples", ignore=shutil.ignore_patterns("*.expect.json"))
    shutil.copytree(FIXTURES / "captures", root / "captures")
    shutil.copytree(FIXTURES / "secrets", root / "secrets")
    good = sorted((CAPTURES / "runai-error").glob("*.json"))[0]
    line = json.dumps(json.loads(good.read_text(encoding="utf-8")))
    lines = [line, '{"code": 404, "message": 1}', "", "{not json", line, '{"a": 1, "a": 2}']
    (root / "mixed.ndjson").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "bad").mkdir()
    (root / "bad" / "a-good.json").write_text(line, encoding="utf-8")
    (root / "bad" / "b-truncated.json").write_text(line[:40], encoding="utf-8")
    (root / "bad" / "c-latin1.json").write_bytes(b'{"message": "caf\xe9"}')
    (root / "bad" / "d-empty.json").write_text("", encoding="utf-8")
    (root / "bad" / "e-good.json").write_text(line, encoding="utf-8")
    return root


def _local_and_dask(client: Any, inputs: list[str], **options: Any) -> tuple[Any, Any]:
    local = validate_paths(inputs, **options)
    remote = within(lambda: on_dask.validate_files(inputs, client=client, files_per_task=3, **options))
    return local, remote


def _rendered(report: Any, fmt: str, verbose: int = 0) -> str:
    return render(report, fmt, RenderOptions(verbose=verbose))


# --- the library ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{}, {"strict": True, "skip_unknown": True}, {"keep_clean": False, "schema": "runai-error"}],
    ids=["default", "strict-skip-unknown", "findings-only-forced-schema"],
)
def test_files_on_dask_give_the_local_results_and_reports(client, corpus, options) -> None:
    local, remote = _local_and_dask(client, [str(corpus)], **options)
    assert remote.results == local.results
    assert (remote.skipped, remote.clean) == (local.skipped, local.clean)
    assert remote.summary() == local.summary()
    assert not local.ok and local.summary()["invalid"] > 10  # the corpus has findings to compare
    for fmt in FORMATS:
        assert _rendered(remote, fmt, verbose=1) == _rendered(local, fmt, verbose=1)


def test_ndjson_lines_keep_their_sources_and_line_numbers(client, corpus) -> None:
    path = str(corpus / "mixed.ndjson")
    local, remote = _local_and_dask(client, [path])
    assert remote == local
    places = [(r.source, f.line, f.rule) for r in remote.results for f in r.findings]
    assert places == [
        (f"{path}:2", 2, "type"),
        (f"{path}:4", 4, "parse-error"),
        (f"{path}:6", 6, "no-schema"),
        (f"{path}:6", 6, "duplicate-key"),  # (at /a, after the root's finding)
    ]
    assert [r.source for r in remote.results] == [f"{path}:{n}" for n in (1, 2, 4, 5, 6)]


def test_a_large_ndjson_file_is_cut_into_tasks_of_its_parts(client, tmp_path, monkeypatch) -> None:
    from jobschema.inputs import split
    from jobschema.validate.parallel.tickets import batches
    from tests.test_ndjson_split import _corpus

    path = tmp_path / "big.ndjson"
    _corpus(path, 40)
    monkeypatch.setattr(split, "SMALLEST_PART", 4096)
    work = list(batches([str(path)], 2, 3))
    assert len(work) >= 4
    assert all(len(batch) == 1 and isinstance(batch[0], split.Part) for batch in work)
    local, remote = _local_and_dask(client, [str(path)])
    assert remote == local
    assert sum(1 for result in local.results if not result.valid) == 40 + 6


def test_a_bad_file_among_good_ones_is_a_finding_and_the_others_go_on(client, corpus) -> None:
    names = sorted(str(p) for p in (corpus / "bad").iterdir())
    missing = str(corpus / "bad" / "f-deleted.json")
    settings = Settings()
    local = validate_paths(names)
    remote = within(lambda: on_dask.validate_expanded([*names, missing], settings, client, files_per_task=2))
    assert remote.results[:-1] == local.results
    rules = {r.source.rsplit("/", 1)[-1]: [f.rule for f in r.findings] for r in remote.results}
    assert rules == {
        "a-good.json": [],
        "b-truncated.json": ["parse-error"],
        "c-latin1.json": ["encoding"],
        "d-empty.json": ["encoding"],
        "e-good.json": [],
        "f-deleted.json": ["read-error"],
    }


def test_masks_are_made_with_the_clients_key_not_the_workers(client, corpus) -> None:
    inputs = [str(corpus / "secrets"), str(corpus / "captures")]
    with scoped_mask_key(CLIENT_KEY):
        local, remote = _local_and_dask(client, inputs)
        text = _rendered(remote, "text")
        assert text == _rendered(local, "text")
    suite_key = _rendered(validate_paths(inputs), "text")
    masks = set(re.findall(r"<secret:[0-9a-f]{8}>", text))
    assert len(masks) >= 3
    assert masks.isdisjoint(re.findall(r"<secret:[0-9a-f]{8}>", suite_key))
    assert text != suite_key  # the workers hold the suite's key: they did not use it
    assert remote.results == local.results


def test_a_bag_of_payloads_is_checked_as_the_same_items_locally(client, corpus) -> None:
    texts = [(str(p), p.read_text(encoding="utf-8")) for p in sorted((corpus / "bad").glob("*good.json"))]
    items: list[Any] = [*texts, json.loads(texts[0][1]), {"code": "x"}, b'{"a": 1, "a": 2}', "{"]
    items += [(f"row-{n}", text) for n, (_, text) in enumerate(texts)]
    bag = db.from_sequence(items, npartitions=3)
    local = validate_payloads(items, name="captured")
    remote = within(lambda: on_dask.validate_bag(bag, client=client, name="captured"))
    assert remote == local
    assert [r.source for r in remote.results][2:6] == ["captured"] * 4


def test_a_bag_of_named_texts_reports_as_the_cli_does_on_those_files(client, corpus) -> None:
    files = sorted(str(p) for p in (corpus / "bad").glob("*.json"))
    files += sorted(str(p) for p in (corpus / "examples" / "invalid").rglob("*.json"))[:20]
    bag = db.from_sequence([(name, Path(name).read_bytes()) for name in files], npartitions=4)
    remote = within(lambda: on_dask.validate_bag(bag, client=client))
    local = validate_paths(files)
    for fmt in ("text", "json"):
        assert _rendered(remote, fmt, verbose=1) == _rendered(local, fmt, verbose=1)


def test_a_bag_of_paths_is_the_local_run_of_those_files(client, corpus) -> None:
    files = sorted(str(p) for p in corpus.rglob("*") if p.is_file())
    remote = within(lambda: on_dask.validate_path_bag(db.from_sequence(files, npartitions=5), client=client))
    assert remote == validate_paths(files)


def _dataframe() -> Any:
    """``dask.dataframe``, or a skip naming the extra that brings it (pandas and pyarrow, ~250 MB)."""
    reason = "the dataframe extra is not installed: pip install -e '.[dataframe]' (.ci/run installs it)"
    pytest.importorskip("pandas", reason=reason)
    pytest.importorskip("pyarrow", reason=reason)
    import dask.dataframe

    return dask.dataframe


def test_a_dataframe_column_of_texts_named_by_a_column(client) -> None:
    dataframe = _dataframe()
    import pandas as pd

    texts = [p.read_text(encoding="utf-8") for p in sorted((CAPTURES / "aihc-error").glob("*.json"))]
    rows = pd.DataFrame({"capture": [f"cap-{n}" for n in range(len(texts))], "body": texts})
    rows.loc[len(rows)] = ["cap-broken", '{"code": 5, "requestId": 1}']
    frame = dataframe.from_pandas(rows, npartitions=2)
    remote = within(lambda: on_dask.validate_dataframe(frame, "body", "capture", client=client))
    assert remote == validate_payloads(list(zip(rows["capture"], rows["body"], strict=True)))
    assert [r.source for r in remote.results if not r.valid] == ["cap-broken"]
    by_index = within(lambda: on_dask.validate_dataframe(frame, "body", client=client))
    assert [r.source for r in by_index.results] == [str(n) for n in range(len(rows))]


def test_a_dataframe_column_of_parsed_payloads() -> None:
    dataframe = _dataframe()
    import pandas as pd

    values = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((CAPTURES / "runai-error").glob("*"))]
    with dask.config.set({"dataframe.convert-string": False, "scheduler": "sync"}):
        frame = dataframe.from_pandas(pd.DataFrame({"body": [*values, {"code": "1"}]}), npartitions=2)
        report = on_dask.validate_dataframe(frame, "body")
    items = [(str(n), value) for n, value in enumerate([*values, {"code": "1"}])]
    assert report == validate_payloads(items)
    assert [r.valid for r in report.results] == [True] * len(values) + [False]


def test_threads_of_one_worker_keep_their_own_checkers(corpus) -> None:
    """Dask's thread scheduler (no cluster): four threads, each with its own sessions and the key."""
    files = sorted(str(p) for p in corpus.rglob("*") if p.is_file())
    with scoped_mask_key(CLIENT_KEY):
        local = validate_paths(files)
        with dask.config.set(scheduler="threads", num_workers=4):
            remote = within(lambda: on_dask.validate_path_bag(db.from_sequence(files, partition_size=2)))
    assert remote == local


def test_a_worker_thread_keeps_a_few_sessions_newest_last() -> None:
    sessions = [on_dask._session(Settings(strict=n % 2 == 0), bytes([n])) for n in range(6)]
    assert on_dask._session(Settings(strict=True), bytes([4])) is sessions[4]
    assert on_dask._session(Settings(strict=True), bytes([0])) is not sessions[0]  # dropped, made anew


def test_a_bad_forced_schema_fails_before_any_task(client, tmp_path) -> None:
    schema = tmp_path / "bad.schema.json"
    schema.write_text('{"type": 12}', encoding="utf-8")
    with pytest.raises(SchemaInvalid):
        on_dask.validate_files([str(CAPTURES)], str(schema), client=client)


def test_no_files_is_an_empty_report(client) -> None:
    report = on_dask.validate_expanded([], Settings(), client)
    assert (report.results, report.skipped, report.clean) == ((), 0, 0)


def test_a_worker_of_another_version_fails_the_run(client, monkeypatch) -> None:
    monkeypatch.setattr(on_dask, "__version__", "9.9.9")  # the client's; the workers still run 0.1.0
    with pytest.raises(on_dask.DaskError, match=r"a Dask worker runs jobschema 0\.1\.0, this client 9\.9\.9"):
        within(lambda: on_dask.validate_files([str(CAPTURES)], client=client))


def _lost_connection() -> list[str]:
    raise ConnectionResetError("connection reset by peer")


def test_a_run_the_cluster_fails_is_one_line() -> None:
    bag = db.from_delayed([dask.delayed(_lost_connection)()])
    with dask.config.set(scheduler="sync"), pytest.raises(on_dask.DaskError) as raised:
        on_dask.validate_path_bag(bag)
    assert str(raised.value) == "the Dask run failed: ConnectionResetError: connection reset by peer"


def test_a_scheduler_without_workers_is_an_error(monkeypatch) -> None:
    import distributed

    class Patient(distributed.Client):
        """A client that waits as long as it takes for the scheduler itself: the timeout given to
        ``connect`` bounds the wait for a worker here (none comes), and a busy machine could take
        longer than that to reach a scheduler that is there."""

        def __init__(self, *args: Any, timeout: Any = None, **kwargs: Any) -> None:
            super().__init__(*args, timeout=LIMIT, **kwargs)

    monkeypatch.setattr(distributed, "Client", Patient)
    with (
        LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=":0") as empty,
        pytest.raises(on_dask.DaskError) as raised,
    ):
        on_dask.connect(empty.scheduler_address, timeout=0.5)
    assert str(raised.value).startswith(f"the Dask scheduler at {empty.scheduler_address} has no worker: ")


# --- the command line ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_validate_dask_prints_the_local_report(run_cli, cluster, corpus, fmt) -> None:
    address = cluster.scheduler_address
    local = run_cli(["validate", "--format", fmt, str(corpus)], code=1)
    remote = within(lambda: run_cli(["validate", "--dask", address, "--format", fmt, str(corpus)], code=1))
    assert remote.stdout == local.stdout
    assert remote.stderr == local.stderr


def test_validate_dask_of_valid_files_exits_0(run_cli, cluster) -> None:
    args = ["validate", "-v", "--dask", cluster.scheduler_address, str(CAPTURES)]
    remote = within(lambda: run_cli(args, code=0))
    assert remote.stdout == run_cli(["validate", "-v", str(CAPTURES)], code=0).stdout


def test_validate_dask_without_a_scheduler_is_one_line_and_exit_2(run_cli) -> None:
    with _unused_port() as free:
        result = run_cli(
            ["validate", "--dask", f"tcp://127.0.0.1:{free}", "--dask-timeout", "0.5", str(CAPTURES)]
        )
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"Error: cannot reach the Dask scheduler at tcp://127.0.0.1:{free}: "
        f"Timed out trying to connect to tcp://127.0.0.1:{free} after 0.5 s\n"
    )


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        (
            "127.0.0.1:8786",
            "Invalid url scheme. Must include protocol like tcp://localhost:8000. Got 127.0.0.1:8786",
        ),
        ("tcp://127.0.0.1", "missing port number in address '127.0.0.1'"),
    ],
)
def test_validate_dask_with_a_bad_address_is_exit_2(run_cli, address, reason) -> None:
    result = run_cli(["validate", "--dask", address, str(CAPTURES)], code=2)
    assert (
        result.stderr == f"Error: {address!r} is not a Dask scheduler address (tcp://HOST:PORT): {reason}\n"
    )


def test_validate_dask_without_dask_installed_says_how_to_install_it(run_cli, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    result = run_cli(["validate", "--dask", "tcp://127.0.0.1:8786", str(CAPTURES)], code=2)
    assert result.stderr == (
        "Error: Dask is not installed (import of distributed halted; None in sys.modules); "
        "install jobschema[dask]: pip install 'jobschema[dask]'\n"
    )


def test_validate_dask_refuses_stdin(run_cli) -> None:
    result = run_cli(["validate", "--dask", "tcp://127.0.0.1:8786", "-"], code=2, input="{}")
    assert result.stderr.endswith(
        "Error: --dask: standard input (-) cannot be sent to Dask workers; name files\n"
    )


def test_validate_help_mentions_dask(run_cli) -> None:
    text = run_cli(["validate", "--help"], code=0).stdout
    assert "--dask ADDRESS" in text
    assert "--dask-timeout SECONDS" in text
    assert "(pip install 'jobschema[dask]')" in " ".join(text.split())


def test_plain_validate_does_not_import_dask() -> None:
    import subprocess

    code = (
        "import sys; from jobschema.cli import main\n"
        "try:\n    main(['validate', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'tornado')))"
    )
    capture = next(iter(sorted((CAPTURES / "runai-error").glob("*.json"))))
    done = subprocess.run(
        [sys.executable, "-c", code, str(capture)], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]"


@contextlib.contextmanager
def _unused_port() -> Iterator[int]:
    """A loopback port nothing listens on while the block runs: bound here and never listened on,
    so connecting to it is refused, and no other process (another test run) can take it meanwhile."""
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield int(holder.getsockname()[1])
