"""Running the stub: uvicorn in a background thread, for tests and the library, and in the foreground.

:func:`start` loads and checks the captures, binds the port (``0``: a free one), serves in a daemon
thread and returns a :class:`RunningServer` once it accepts connections; ``stop()`` (or leaving the
``with`` block) shuts it down. :func:`run_foreground` is ``jobschema serve``: the same server, the
``listening on`` line, and a clean exit on SIGINT or SIGTERM. Both listen on a loopback address only,
unless ``allow_remote`` (:func:`listen_address`), and run uvicorn with the limits' protocol and
server (:mod:`jobschema.serve.protocol`).
"""

from __future__ import annotations

import contextlib
import ipaddress
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType, TracebackType
from typing import Any, TextIO

from jobschema.errors import ToolkitError
from jobschema.schemas.versions import Pins, as_pins, label
from jobschema.serve.auth import Credentials
from jobschema.serve.config import ServeConfig
from jobschema.serve.limits import Limits, Warnings
from jobschema.serve.sources import Catalog, load_captures
from jobschema.text import log_safe, visible

#: How long start() waits for the server to accept connections, and stop() for it to finish.
START_TIMEOUT = 60.0  # (an upper bound: start() returns once the server is up or its thread ends)
STOP_TIMEOUT = 5.0


class CapturesRefused(ToolkitError):
    """Captures that are not valid against their schemas (for the pinned API versions, which they then
    cannot have produced): the server does not start (exit 1)."""

    exit_code = 1

    def __init__(self, catalog: Catalog, api_versions: tuple[tuple[str, str], ...] = ()) -> None:
        count = len(catalog.refused)
        pinned = ", ".join(f"{label(api)} {version}" for api, version in api_versions)
        why = f"not valid for {pinned}" if pinned else "not valid"
        super().__init__(
            f"{count} capture{'s' if count != 1 else ''} refused ({why}); "
            "--serve-invalid serves invalid captures as they are, as faults"
        )
        self.catalog = catalog


class ServeFailed(ToolkitError):
    """The server cannot listen (the port is taken, the host is not local) or did not start."""


#: What a refused non-loopback ``--host`` says, after the host.
REMOTE_REFUSED = (
    "not a loopback address: anyone who can reach it could use the stub; "
    "--allow-remote (allow_remote=True) listens there anyway"
)


@dataclass(frozen=True)
class ServeOptions:
    """What to serve and how. ``credentials`` None: fresh random ones (read them from the result).
    ``host`` must be a loopback address (or a name resolving only to loopback ones) unless
    ``allow_remote``; ``limits`` bound what every peer may send and hold."""

    captures: Sequence[str] = ()
    config: ServeConfig = field(default_factory=ServeConfig)
    credentials: Credentials | None = None
    generate: bool = False
    serve_invalid: bool = False
    host: str = "127.0.0.1"
    port: int = 0
    clock: Callable[[], float] = time.time
    log: TextIO | None = None
    limits: Limits = field(default_factory=Limits)
    allow_remote: bool = False
    #: Serve one version of an API: ``{"runai": "2.19"}`` (or ``("runai=2.19",)``): only what it may
    #: send is served and generated, a capture it cannot have produced is refused at start-up, and
    #: ``GET /api/v1/clusters/ID`` answers that version.
    api_versions: Pins = ()


class RunningServer:
    """A server serving in a background thread: its ``url``, ``credentials`` and ``state``."""

    def __init__(self, server: Any, thread: threading.Thread, host: str, port: int, state: Any) -> None:
        self._server = server
        self._thread = thread
        self.host = host
        self.port = port
        self.state = state

    @property
    def url(self) -> str:
        """``http://HOST:PORT``, the base URL clients take (no trailing slash)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def credentials(self) -> Credentials:
        """The credentials the server accepts."""
        return self.state.credentials

    @property
    def alive(self) -> bool:
        """True while the server thread runs."""
        return self._thread.is_alive()

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Shut down: finish open requests (up to ``timeout``), close the socket, end the thread."""
        self._server.should_exit = True
        self._thread.join(timeout)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(timeout)
        self.state.generator.stop()

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def load(options: ServeOptions) -> Any:
    """The server state of ``options``: captures loaded and checked (raises :class:`CapturesRefused`)."""
    from jobschema.serve.state import ServerState

    pins = as_pins(options.api_versions)
    catalog = load_captures(options.captures, options.serve_invalid, pins)
    if not catalog.ok:
        raise CapturesRefused(catalog, pins)
    credentials = options.credentials if options.credentials is not None else Credentials.random()
    state = ServerState.from_catalog(
        catalog,
        options.config,
        credentials,
        generate=options.generate,
        clock=options.clock,
        api_versions=pins,
        max_jobs=options.limits.max_jobs,
        max_kept=options.limits.max_kept,
    )
    return state


def start(options: ServeOptions | None = None, **given: Any) -> RunningServer:
    """Serve in a background thread: ``start(captures=[...])`` or ``start(ServeOptions(...))``."""
    return start_server(options or ServeOptions(**given))


def start_server(options: ServeOptions) -> RunningServer:
    """:func:`start` of a built :class:`ServeOptions`."""
    host = listen_address(options.host, options.allow_remote)
    state = load(options)
    return serve_state(state, host, options.port, options.log, options.limits)


def serve_state(
    state: Any, host: str, port: int, log: TextIO | None, limits: Limits | None = None
) -> RunningServer:
    """Serve an already loaded state in a background thread, once it accepts connections."""
    import uvicorn

    from jobschema.serve.app import Log, build_app
    from jobschema.serve.protocol import LimitedServer, LoopErrors, protocol_class

    limits = limits or Limits()
    sock = _bind(host, port)
    bound = sock.getsockname()[1]
    state.tokens.issuer = state.issuer = f"http://{host}:{bound}"
    warn = Warnings(Log(log if log is not None else sys.stderr))
    access = Log(log)
    config = uvicorn.Config(
        build_app(state, access, limits),
        http=protocol_class(limits, warn, state.new_id, access),
        h11_max_incomplete_event_size=limits.max_headers,
        log_config=None,
        access_log=False,
        lifespan="off",
        ws="none",  # no upgrade ever switches protocols: a WebSocket would leave the limits behind
        log_level="warning",
        timeout_graceful_shutdown=int(STOP_TIMEOUT),
    )
    errors = LoopErrors(sock, limits, warn, access)
    server = LimitedServer(config, errors)
    thread = threading.Thread(target=_run, args=(server, sock, errors), daemon=True, name="jobschema-serve")
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    if not server.started:
        server.should_exit = True
        thread.join(STOP_TIMEOUT)
        sock.close()
        raise ServeFailed(f"{host}:{bound}: the server did not start")
    if getattr(state, "generate", False):  # (its process started beside the server: ready now)
        state.generator.ready()
    return RunningServer(server, thread, host, bound, state)


def _run(server: Any, sock: socket.socket, errors: Any) -> None:
    """The server thread: serve on ``sock`` until told to stop, then give back the reserve descriptor."""
    try:
        server.run(sockets=[sock])
    finally:
        errors.close()


def listen_address(host: str, allow_remote: bool = False) -> str:
    """The IP address to listen on for ``host`` (an address, or a name: its first address).

    An IPv6 address may be in brackets (``[::1]``). Raises :class:`ServeFailed` for a name that does
    not resolve, and for an address that is not loopback (or a name with any such address) unless
    ``allow_remote``.
    """
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") and ":" in host else host
    try:  # (an IPv6 address may come as a URL writes it, in brackets: [::1])
        addresses = [ipaddress.ip_address(bare)]
    except ValueError:
        addresses = _resolve(host)
    if not allow_remote and not all(address.is_loopback for address in addresses):
        resolved = "" if str(addresses[0]) == host else f" ({', '.join(map(str, addresses))})"
        raise ServeFailed(f"--host {host}{resolved}: {REMOTE_REFUSED}")
    return str(addresses[0])


def _resolve(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as err:
        raise ServeFailed(
            f"--host {host}: cannot resolve the name: {getattr(err, 'strerror', None) or err}"
        ) from err
    found: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if address not in found:
            found.append(address)
    if not found:
        raise ServeFailed(f"--host {host}: cannot resolve the name: no address")
    return found


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on accepted sockets that say they are TCP, and
    # without it a response written in two parts waits for the client's delayed ACK (about 40 ms).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise ServeFailed(f"{host}:{port}: cannot listen: {err.strerror or err}") from err
    return sock


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8 and ::1."""
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host).is_loopback
    return False


def run_foreground(options: ServeOptions, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """``jobschema serve``: serve until SIGINT or SIGTERM, then shut down cleanly and return 0.

    The first line on ``out`` is ``listening on http://HOST:PORT``, flushed, once connections are
    accepted; what is served (and skipped) follows on ``err``; the access log goes to ``options.log``.
    """
    stop = threading.Event()
    with _signals(stop):
        running = start_server(options)
        out.write(f"listening on {running.url}\n")
        out.flush()
        lines = summary(running.state, options.generate)
        err.write("".join(f"{log_safe(visible(line))}\n" for line in lines))
        err.flush()
        while running.alive and not stop.wait(0.2):
            pass
        running.stop()
    return 0


def summary(state: Any, generate: bool) -> list[str]:
    """What the server serves, and the captures it skipped; never a credential's value."""
    catalog, credentials = state.catalog, state.credentials
    lines = list(catalog.notes) if catalog else []
    runai = _count(len(state.runai_jobs), "Run:ai workload")
    aihc = _count(len(state.aihc_jobs), "AIHC job")
    kinds = [runai, aihc] + ([_count(len(state.aihc_v2_jobs), "AIHC v2 job")] if state.aihc_v2_jobs else [])
    served = "".join(f" ({label(api)} {version})" for api, version in state.api_versions)
    generated = "; unknown ids are generated" if generate else ""
    lines.append(f"serving {', '.join(kinds[:-1])} and {kinds[-1]}{served}{generated}")
    if not credentials.runai_client_id or not credentials.runai_client_secret:
        lines.append(
            "warning: no Run:ai client credentials (RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET): every token "
            "request is refused"
        )
    if not credentials.bce_keys:
        lines.append(
            "warning: no AIHC access key (BCE_ACCESS_KEY_ID, BCE_SECRET_ACCESS_KEY): every AIHC "
            "request is refused"
        )
    return lines


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' if number != 1 else ''}"


@contextlib.contextmanager
def _signals(stop: threading.Event) -> Iterator[None]:
    """SIGINT and SIGTERM set ``stop`` (the previous handlers come back afterwards)."""

    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
