"""pytest plugin: every recorded payload becomes a test item, and a fixture validates payloads in tests.

Registered under the ``pytest11`` entry point ``jobschema`` (``-p jobschema`` loads it explicitly when
plugin autoloading is off). Without ``--jobschema-payloads`` it adds nothing to a test run.

``pytest --jobschema-payloads captures/ [--jobschema-strict]`` (repeatable; files, folders, quoted
globs, NDJSON and HAR files, as ``jobschema validate`` reads them) collects one item per payload,
named after its source (``captures/job.json``, ``caps.ndjson:3``, ``session.har#2 GET https://…``),
from any directory and without a conftest. A failing item shows the findings as the text format of
``jobschema validate`` does; skipped HAR entries are not items; an unparsable payload fails. Given in
``addopts`` (or ``PYTEST_ADDOPTS``), the payloads are a default collection, as ``testpaths`` are: a
command line that names tests runs only those unless it gives ``--jobschema-payloads`` itself. In
``--junitxml`` a payload item's classname is its file, dotted (``captures.jobs.ndjson``), and its
name its node id.

The ``jobschema_validate`` fixture is ``check(payload, schema=None, *, strict=False)``: it returns the
:class:`~jobschema.findings.PayloadResult`, or fails the test with the findings when the payload has
errors (or, with ``strict``, warnings).

The ``jobschema_server`` fixture starts ``jobschema serve`` for a test (needs the ``serve`` extra):
``start(captures=(), *, config=None, lifecycle=None, faults=None, seed=None, generate=False, ...)``
returns a :class:`~jobschema.serve.RunningServer` on a free loopback port (``url``, ``credentials``;
``credentials.as_env()`` gives the variables a client reads), stopped when the test ends.

This module imports only pytest; the rest of jobschema loads when payloads are collected or validated,
or a server is started.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from jobschema.findings import PayloadResult
    from jobschema.inputs.payload import Payload
    from jobschema.serve import RunningServer
    from jobschema.validate.session import Session

Validate = Callable[..., "PayloadResult"]

_FILES = pytest.StashKey[Sequence[str]]()
_LEFT_OUT = pytest.StashKey[bool]()
_COLLECTOR = "jobschema-payloads"
_WORKER_KEY = "jobschema_mask_key"  # (the run's mask key, in each xdist worker's workerinput)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jobschema", "recorded job API payloads (jobschema)")
    group.addoption(
        "--jobschema-payloads",
        action="append",
        default=[],
        metavar="PATH",
        dest="jobschema_payloads",
        help="Collect every payload under PATH (file, folder, quoted glob, NDJSON, HAR) as a test "
        "item validated against the bundled schemas. Repeatable.",
    )
    group.addoption(
        "--jobschema-strict",
        action="store_true",
        dest="jobschema_strict",
        help="With --jobschema-payloads: report undeclared properties and fail on warnings.",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Payloads given in ``addopts`` (or ``PYTEST_ADDOPTS``) are a default collection, as ``testpaths``
    are: a command line that names tests (a file, a folder, a node id) without giving
    ``--jobschema-payloads`` itself runs only those. Decided once, where the command line was read
    (an xdist worker gets the options as decided here)."""
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        _use_controller_mask_key(worker)
        return
    if not config.getoption("jobschema_payloads"):
        return
    if _tests_named_without_payloads(config):
        config.option.jobschema_payloads = []
        config.stash[_LEFT_OUT] = True
    else:
        config.pluginmanager.register(_JUnitClassnames(config), "jobschema-junit-classnames")


@pytest.hookimpl(optionalhook=True)  # (pytest-xdist's hook: without xdist, never called)
def pytest_configure_node(node: Any) -> None:
    """Every xdist worker masks with this run's key: "within a run the same secret gets the same
    mask everywhere", and a key drawn per process would give each worker masks of its own."""
    from jobschema.secrets.mask import mask_key

    node.workerinput[_WORKER_KEY] = mask_key().hex()


def _use_controller_mask_key(workerinput: dict[str, Any]) -> None:
    """In an xdist worker: mask with the key the controller gave it (:func:`pytest_configure_node`)."""
    key = workerinput.get(_WORKER_KEY)
    if isinstance(key, str):
        from jobschema.secrets.mask import use_mask_key

        use_mask_key(bytes.fromhex(key))


def _tests_named_without_payloads(config: pytest.Config) -> bool:
    """True when the command line itself (not ``addopts``, not ``PYTEST_ADDOPTS``) names tests and does
    not give ``--jobschema-payloads``."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return False
    try:
        given = config._parser.parse_known_args([str(arg) for arg in config.invocation_params.args])
    except (pytest.UsageError, SystemExit, AttributeError):  # (read as given, then: payloads run)
        return False
    return bool(getattr(given, "file_or_dir", None)) and not getattr(given, "jobschema_payloads", None)


def pytest_report_header(config: pytest.Config) -> str | None:
    if config.stash.get(_LEFT_OUT, False):
        return (
            "jobschema: payloads of --jobschema-payloads (from addopts or PYTEST_ADDOPTS) not collected: "
            "tests are named on the command line; give the option there to run them too"
        )
    return None


def pytest_sessionstart(session: pytest.Session) -> None:
    """Expand the payload paths before collection: a path that names nothing is a usage error."""
    inputs: list[str] = session.config.getoption("jobschema_payloads") or []
    if not inputs:
        return
    from jobschema.errors import InputNotFound
    from jobschema.inputs.files import expand

    try:
        session.config.stash[_FILES] = expand(inputs).files
    except InputNotFound as err:
        raise pytest.UsageError(f"--jobschema-payloads {err}") from err


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Add the payload collector beside whatever the session collects from its arguments."""
    report = yield
    if isinstance(collector, pytest.Session) and report.passed and collector.config.stash.get(_FILES, None):
        strict = bool(collector.config.getoption("jobschema_strict"))
        report.result.append(
            Payloads.from_parent(collector, name=_COLLECTOR, nodeid=_COLLECTOR, strict=strict)
        )
    return report


class Payloads(pytest.Collector):
    """All recorded payloads of ``--jobschema-payloads``, one :class:`PayloadItem` each."""

    def __init__(self, *, strict: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.strict = strict

    def collect(self) -> Iterator[PayloadItem]:
        from jobschema.inputs.files import named
        from jobschema.inputs.payload import Skipped
        from jobschema.inputs.read import read_payloads
        from jobschema.validate.session import Session, Settings

        session = Session(Settings(strict=self.strict))
        files: Sequence[str] = self.config.stash[_FILES]
        taken: dict[str, int] = {}
        for payload in read_payloads(files):
            if isinstance(payload, Skipped):
                continue
            shown = named(node_id(payload.source, payload.path, self.config.rootpath))
            yield PayloadItem.from_parent(
                self,
                name=log_safe(named(payload.source)),  # (as validate shows a source: masked, escaped)
                nodeid=distinct(log_safe(stable(shown)), taken),
                path=Path(payload.path).absolute() if payload.path else self.path,
                payload=payload,
                checks=session,
                classname=classname(payload.path, self.config.rootpath),
            )


def classname(path: str | None, rootpath: Path) -> str:
    """A payload item's ``classname`` in JUnit XML (CI services group tests by it): its file as a node
    id reads it, dotted, as pytest writes the classname of any test in a file that is not Python
    (``data.yaml::case`` is ``data.yaml``): ``captures.nested.jobs.ndjson``; the items of one NDJSON
    or HAR file share it. Masked and the same in every run, as the node id is."""
    from jobschema.inputs.files import named

    if path is None:
        return _COLLECTOR
    return log_safe(stable(named(node_id(path, path, rootpath)))).replace("/", ".")


def log_safe(line: str) -> str:
    """A node id or an item's name as no CI runner reads a command in it (``pytest -v`` and
    ``--collect-only`` begin a line with it): a file named ``##vso[task.setvariable …].json`` or
    ``##[group]x.json`` is shown with its ``[`` or first ``#`` escaped, the same in every run."""
    from jobschema.text import log_safe as guarded

    return guarded(line)


def node_id(source: str, path: str | None, rootpath: Path) -> str:
    """A payload's source as a node id: its file relative to the root directory, as pytest's node ids
    are, whatever directory pytest runs in and however the path was spelled (``../x/./a.json``), then
    the entry (``:3``, ``#2 GET URL``); a file outside the root directory is relative to it
    (``../a.json``). ``::`` separates the parts of node ids, so it must not occur."""
    if path is not None and source.startswith(path):
        absolute = os.path.abspath(path)  # noqa: PTH100 - lexical, as pytest's own paths are
        try:
            relative = Path(absolute).relative_to(rootpath).as_posix()
        except ValueError:
            try:
                relative = Path(os.path.relpath(absolute, rootpath)).as_posix()
            except ValueError:  # (another drive)
                relative = Path(absolute).as_posix()
        source = relative + source[len(path) :]
    return source.replace("::", ": :")


def stable(shown: str) -> str:
    """A shown source as a node id that is the same in every run and every process (``--lf``, xdist
    workers comparing their collections): its masks when ``JOBSCHEMA_MASK_KEY`` makes them so (the
    source as ``jobschema validate`` shows it), else each mask ``<secret>`` (a random key's masks
    change from run to run)."""
    from jobschema.secrets.mask import KEY_VARIABLE, MASK_SHAPE

    return shown if os.environ.get(KEY_VARIABLE) else MASK_SHAPE.sub("<secret>", shown)


def distinct(nodeid: str, taken: dict[str, int]) -> str:
    """``nodeid``, or ``nodeid[N]`` for its N-th use in this collection (two files named alike but
    for their secret): node ids must be unique, and input order makes N the same in every run."""
    count = taken[nodeid] = taken.get(nodeid, 0) + 1
    shown = nodeid if count == 1 else f"{nodeid}[{count}]"
    while count > 1 and shown in taken:  # a file named like a numbered one (``a.json[2]``) took it
        count = taken[nodeid] = count + 1
        shown = f"{nodeid}[{count}]"
    if shown != nodeid:
        taken.setdefault(shown, 1)  # (so a later file named like it is numbered in turn)
    return shown


class PayloadInvalid(Exception):
    """A payload's findings made it invalid."""

    def __init__(self, result: PayloadResult) -> None:
        super().__init__(result.source)
        self.result = result


class PayloadItem(pytest.Item):
    """One recorded payload: passes when it is valid against its (detected) schema."""

    def __init__(
        self, *, payload: Payload, checks: Session, classname: str = _COLLECTOR, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.payload = payload
        self.checks = checks
        self.classname = classname

    def runtest(self) -> None:
        from jobschema.validate.session import check_payload

        result = check_payload(self.checks, self.payload)
        self.user_properties.append(("jobschema_schema", result.schema))
        if not result.valid:
            raise PayloadInvalid(result)
        if result.findings:
            self.add_report_section("call", "jobschema warnings", findings_text(result, self.config))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | Any:
        if isinstance(excinfo.value, PayloadInvalid):
            return findings_text(excinfo.value.result, self.config)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        # The domain heads a failure's report. pytest's verbose line rewrites "." as "::" in a domain
        # that ends the node id (made for ``Class.method``): the trailing space keeps it from doing so.
        return self.path, None, self.name + " "


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """A payload item's reports carry its classname (as an attribute of the report, it travels with it
    from an xdist worker to the process that writes the JUnit XML)."""
    report = yield
    if isinstance(item, PayloadItem):
        report.jobschema_classname = item.classname
    return report


class _JUnitClassnames:
    """Gives each payload item's testcase in ``--junitxml`` its classname (with ``--junit-prefix``
    first, as pytest writes it): pytest derives one from the part of the node id before ``::``,
    which a payload's node id (its source) does not have, so it was empty; and its node id as its
    name (pytest would write the whole node id with its slashes dotted, a URL's too)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)  # (before the JUnit XML plugin records the report)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = getattr(report, "jobschema_classname", None)
        if name is None:
            return
        try:  # (pytest's own key of its JUnit writer, as record_xml_attribute reads it; private)
            from _pytest.junitxml import xml_key

            xml = self.config.stash.get(xml_key, None)
            if xml is not None:
                reporter = xml.node_reporter(report)
                reporter.add_attribute("classname", f"{xml.prefix}.{name}" if xml.prefix else name)
                reporter.add_attribute("name", report.nodeid)
        except (ImportError, AttributeError, TypeError):  # another pytest: its default names stand
            return


def findings_text(result: PayloadResult, config: pytest.Config | None = None) -> str:
    """The findings as ``jobschema validate``'s text format prints them (``-v``: with their details)."""
    from jobschema.report.common import RenderOptions, scrubbed_result
    from jobschema.report.text import painter, result_lines

    verbose = 1 if config is not None and config.get_verbosity() > 0 else 0
    options = RenderOptions(verbose=verbose)
    return "\n".join(result_lines(scrubbed_result(result), options, painter(False)))


@pytest.fixture
def jobschema_validate(request: pytest.FixtureRequest) -> Validate:
    """``check(payload, schema=None, *, strict=False)``: the payload's result, or the test fails with
    its findings when it has errors (with ``strict``: also warnings and undeclared properties)."""
    config = request.config

    def check(payload: Any, schema: str | None = None, *, strict: bool = False) -> PayloadResult:
        from jobschema.errors import ToolkitError
        from jobschema.validate import validate_payload

        failure = _misused(payload, schema, strict)
        try:
            result = None if failure else validate_payload(payload, schema, strict=strict)
        except ToolkitError as err:  # an unknown schema name, an unreadable schema file: one line
            failure = f"jobschema_validate: {err}"
        if failure is not None or result is None:  # failed outside the handler: no "During handling"
            pytest.fail(failure or "jobschema_validate: no result", pytrace=False)  # chain is shown
        if not result.valid:
            shown = result.schema or "no schema"
            pytest.fail(f"payload is invalid ({shown}):\n{findings_text(result, config)}", pytrace=False)
        return result

    return check


def _misused(payload: Any, schema: Any, strict: Any) -> str | None:
    """The line naming an argument of ``jobschema_validate`` of the wrong type (None when all fit): a
    path for a payload (it would be validated as a value, not read), a schema or ``strict`` that
    :func:`~jobschema.validate.validate_payload` refuses."""
    if isinstance(payload, os.PathLike) or (
        isinstance(payload, str) and payload.strip() and payload.strip()[0] not in "{[" and _is_file(payload)
    ):
        from jobschema.inputs.files import named

        return (  # (the path as every line names a file: its parts read by the secret policy)
            f"jobschema_validate: {named(payload)} is a path, not a payload: pass its parsed value or "
            "its text (json.loads(path.read_text()) or path.read_text())"
        )
    if schema is not None and not isinstance(schema, str | os.PathLike):
        kind = type(schema).__name__
        return f"jobschema_validate: schema: expected a bundled schema name or a schema file path, not {kind}"
    if not isinstance(strict, bool):
        return f"jobschema_validate: strict: expected True or False, not {type(strict).__name__}"
    return None


def _is_file(text: str) -> bool:
    """True when ``text`` (JSON text, or the name of a file given by mistake) names a file."""
    try:
        return len(text) < 4096 and "\n" not in text and Path(text).is_file()
    except (OSError, ValueError):  # (a name too long, a NUL in it)
        return False


StartServer = Callable[..., "RunningServer"]


@pytest.fixture
def jobschema_server() -> Iterator[StartServer]:
    """``start(captures=(), *, config=None, lifecycle=None, faults=None, seed=None, generate=False,
    serve_invalid=False, credentials=None, clock=None, limits=None, api_versions=None)``: a stub of
    both job APIs on a free loopback port, stopped after the test; ``api_versions``
    (``{"runai": "2.19"}``) serves one version of an API, as ``serve --api-version`` does.
    ``config`` is a config file path, its content as a mapping, or a
    :class:`~jobschema.serve.ServeConfig`; ``lifecycle`` (``{"runai": [...], "aihc":
    [...]}``) and ``faults`` (a list of ``[[faults]]`` tables) use the file's keys. ``credentials``
    None: random ones. ``limits`` a :class:`~jobschema.serve.Limits` (None: the defaults). The access
    log goes to the test's captured stderr. Without the serve extra, the test fails with one line
    naming it."""
    _require_serve_extra()
    started: list[RunningServer] = []

    def start(captures: Any = (), **options: Any) -> RunningServer:
        import sys

        from jobschema.errors import ToolkitError
        from jobschema.serve.server import ServeOptions, start_server

        _require_serve_extra(bool(options.get("generate")))
        failure = _unknown_option(options)
        if failure is None:
            options.setdefault("log", sys.stderr)
            paths = [captures] if isinstance(captures, str | Path) else list(captures)
            try:
                server = start_server(
                    ServeOptions(captures=tuple(map(str, paths)), **_server_config(options))
                )
            except (ToolkitError, _Misused) as err:  # a config, a capture, an argument: one line
                failure = str(err) if str(err).startswith("jobschema_server") else f"jobschema_server: {err}"
                failure += _refused_findings(err)
        if failure is not None:  # failed outside the handler: no "During handling" chain is shown
            pytest.fail(failure, pytrace=False)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def _refused_findings(err: Exception) -> str:
    """The findings of each capture the server refused (``CapturesRefused``), below its line, as the
    command prints them before its ``Error:`` line ("" for any other failure)."""
    from jobschema.serve.server import CapturesRefused

    if not isinstance(err, CapturesRefused):
        return ""
    return "".join(f"\n{findings_text(result)}" for result in err.catalog.refused)


def _require_serve_extra(generate: bool = False) -> None:
    from jobschema.errors import MissingExtra
    from jobschema.serve.extra import require_serve_extra

    try:
        require_serve_extra("jobschema_server", generate)
    except MissingExtra as err:
        pytest.fail(str(err), pytrace=False)


class _Misused(TypeError):
    """An argument of ``jobschema_server`` that does not fit (the test fails with its line)."""


#: The keywords of ``jobschema_server`` folded into its ``ServeConfig``.
_FOLDED = frozenset({"lifecycle", "faults", "seed"})


def _unknown_option(options: dict[str, Any]) -> str | None:
    """The line naming a keyword ``jobschema_server`` does not take (None when all are known)."""
    from dataclasses import fields

    from jobschema.serve.server import ServeOptions

    known = {field.name for field in fields(ServeOptions)} - {"captures"} | _FOLDED
    unknown = sorted(set(options) - known)
    if unknown:
        listed = ", ".join(sorted(known))
        return f"jobschema_server: unexpected keyword argument {unknown[0]!r} (known: {listed})"
    return _wrong_type(options)


def _wrong_type(options: dict[str, Any]) -> str | None:
    """The line naming an argument of ``jobschema_server`` of a type it cannot take (None when all fit)."""
    from collections.abc import Mapping

    from jobschema.serve import Credentials, Limits, ServeConfig

    expected = {
        "limits": ((Limits,), "a jobschema.serve.Limits"),
        "credentials": ((Credentials,), "a jobschema.serve.Credentials"),
        "config": (
            (str, os.PathLike, Mapping, ServeConfig),
            "a config file path, a mapping or a ServeConfig",
        ),
    }
    for name, (types, spelled) in expected.items():
        value = options.get(name)
        if value is not None and not isinstance(value, types):
            return f"jobschema_server: {name}: expected {spelled} (or None), not {type(value).__name__}"
    return None


def _server_config(options: dict[str, Any]) -> dict[str, Any]:
    """Fold ``config``, ``lifecycle``, ``faults`` and ``seed`` into one ``ServeConfig``."""
    from dataclasses import replace

    from jobschema.serve.config import ServeConfig, parse_config, read_config

    config = options.pop("config", None)
    lifecycle, faults, seed = (
        options.pop("lifecycle", None),
        options.pop("faults", None),
        options.pop("seed", None),
    )
    if isinstance(config, ServeConfig):
        if lifecycle is not None or faults is not None:
            raise _Misused(
                "jobschema_server: give lifecycle and faults in the ServeConfig, or config as a mapping"
            )
        parsed = config
    else:
        data = dict(read_config(config) if isinstance(config, str | Path) else config or {})
        for api, steps in (lifecycle or {}).items():
            data[api] = {**data.get(api, {}), "lifecycle": list(steps)}
        if faults is not None:
            data["faults"] = list(faults)
        parsed = parse_config(data, str(config) if isinstance(config, str | Path) else "jobschema_server")
    options["config"] = parsed if seed is None else replace(parsed, seed=seed)
    return options
