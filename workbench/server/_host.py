"""The host put together and served: :class:`OpenWopHost` (SPEC R43).

:class:`OpenWopHost` holds what a host serves (suites, recorded runs, agents, live tools, the
profile it advertises, its bearer keys) and its ASGI app. :meth:`OpenWopHost.serve` serves it
on uvicorn in the foreground (``workbench serve-host``); :func:`~workbench.serve_host` serves
one in a background thread for a notebook. Loopback (``127.0.0.1``) unless told otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import uvicorn
from starlette.applications import Starlette

from .._load.records import LoadResult, PromotedRun
from .._replay.options import LiveTool
from .._suite.capabilities import HostProfile
from ._app import build_app
from ._auth import ApiKey, generate_api_key
from ._catalog import AgentRegistry, AgentSource, RecordedRuns, SuiteCatalog
from ._http import HostSettings
from ._runs import RunStore

__all__ = ["OpenWopHost", "bind", "is_loopback", "server_url"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``127.0.0.1``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, bound here so that an address in use (or one this
    machine does not have) is an ``OSError`` naming it, not uvicorn's exit from its thread."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)
    return sock


def _profile(value: HostProfile | Mapping[str, Any] | str | os.PathLike[str] | None) -> HostProfile:
    if value is None:
        return HostProfile.workbench()
    if isinstance(value, HostProfile):
        return value
    if isinstance(value, Mapping):
        return HostProfile.from_json(value)
    return HostProfile.load(value)


class OpenWopHost:
    """An OpenWOP v2 host for the eval subset, over HTTP (R43).

    ``suites``: suite files, served folders, :class:`~workbench.Suite` objects, JSON objects,
    or objects with a ``suite`` attribute (the notebook's ``Workbench``; the suite it holds when
    a run is created is the one run). ``runs``: recorded-run files (or loaded runs) that
    ``fixtureRuns`` may name. ``agents``: agent ids a run may name, each an agent or a function
    making one per run (the scripted agent is always there). ``live_tools``: Python callables
    answering misses under ``onMiss: "live"`` (R16). ``profile``: what the host advertises
    (default: everything, R10). ``api_keys``: accepted bearer keys (default: one generated).
    """

    def __init__(
        self,
        suites: Sequence[Any] = (),
        *,
        runs: Sequence[str | os.PathLike[str] | LoadResult | PromotedRun] = (),
        agents: Mapping[str, AgentSource] | None = None,
        live_tools: Mapping[str, LiveTool] | None = None,
        profile: HostProfile | Mapping[str, Any] | str | os.PathLike[str] | None = None,
        api_keys: Sequence[ApiKey | str] | None = None,
        settings: HostSettings | None = None,
        workers: int = 4,
        max_runs: int = 10_000,
    ) -> None:
        keys = [k if isinstance(k, ApiKey) else ApiKey(k) for k in (api_keys or ())]
        self.api_keys: tuple[ApiKey, ...] = tuple(keys) or (generate_api_key(),)
        """The bearer keys the host accepts."""
        self.profile = _profile(profile)
        """What the host advertises (R10)."""
        self.suites = SuiteCatalog(suites)
        self.recorded = RecordedRuns(runs)
        self.agents = AgentRegistry(agents)
        self.settings = settings or HostSettings()
        self.store = RunStore(
            self.profile,
            live_tools=live_tools,
            workers=workers,
            max_runs=max_runs,
            max_unfinished=self.settings.max_unfinished_runs,
        )
        self.app: Starlette = build_app(
            suites=self.suites,
            recorded=self.recorded,
            agents=self.agents,
            store=self.store,
            keys=self.api_keys,
            settings=self.settings,
        )
        """The ASGI app (Starlette)."""

    @property
    def api_key(self) -> str:
        """The first key (the generated one, unless keys were given)."""
        return self.api_keys[0].key

    def _config(self, host: str, port: int) -> uvicorn.Config:
        return uvicorn.Config(
            self.app,
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
        )

    def serve(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        on_ready: Callable[[str], None] | None = None,
    ) -> None:
        """Serve in the foreground until SIGINT or SIGTERM; ``on_ready(url)`` once listening.
        An address that cannot be bound is an ``OSError`` before anything is served."""
        server = self.server(host, port)

        async def main() -> None:
            serving = asyncio.ensure_future(server.serve())
            while not server.started and not serving.done():
                await asyncio.sleep(0.01)
            if server.started and not server.should_exit and on_ready is not None:
                on_ready(server_url(server, host, port))
            await serving

        try:
            asyncio.run(main())
        finally:
            self.store.close()

    def server(self, host: str = "127.0.0.1", port: int = 0) -> uvicorn.Server:
        """A uvicorn server for the app on a socket bound now (``OSError`` if it cannot be);
        its signal handlers only on the main thread."""
        return _Server(self._config(host, port), bind(host, port))


def server_url(server: uvicorn.Server, host: str, port: int) -> str:
    """The base URL a started server listens at (the port it was given, or the one bound)."""
    bound = port
    for srv in getattr(server, "servers", []):
        for sock in getattr(srv, "sockets", []):
            bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{bound}"


class _Server(uvicorn.Server):
    """uvicorn's server on a socket bound beforehand, whose signal handlers are installed only
    on the main thread (a notebook's background host leaves the kernel's alone) and only stop
    it."""

    def __init__(self, config: uvicorn.Config, sock: socket.socket) -> None:
        super().__init__(config)
        self.socket = sock
        """The listening socket (closed when the server shuts down, or by :meth:`release`)."""

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        await super().serve(sockets=sockets if sockets is not None else [self.socket])

    def release(self) -> None:
        """Close the listening socket (a server that never ran still holds it)."""
        self.socket.close()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM)
        original = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)
