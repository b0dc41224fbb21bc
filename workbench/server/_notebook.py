"""The notebook's way in: :func:`serve_host` and the :class:`ServedHost` it returns (R43).

Kept apart from the host itself so that ``import workbench`` and ``from workbench import *``
work without the ``server`` extra: Starlette and uvicorn are imported when a host starts.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .._load.records import LoadResult, PromotedRun
from .._replay.options import LiveTool
from .._suite.capabilities import HostProfile

if TYPE_CHECKING:
    import uvicorn

    from ._host import OpenWopHost

__all__ = ["ServedHost", "serve_host"]


class ServedHost:
    """A host serving in the background: hand :attr:`url` and :attr:`api_key` to an OpenWOP
    client (``OpenwopClient(served.url, served.api_key)``); :meth:`stop` ends it."""

    def __init__(
        self,
        url: str,
        api_key: str,
        host: OpenWopHost,
        server: uvicorn.Server,
        thread: threading.Thread,
    ) -> None:
        self.url = url
        """The base URL (``http://127.0.0.1:PORT``)."""
        self.api_key = api_key
        """The bearer key."""
        self._host = host
        self._server = server
        self._thread = thread

    @property
    def running(self) -> bool:
        """Whether it still serves."""
        return self._thread.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving (open streams are closed) and wait for the thread to end."""
        self._server.should_exit = True
        self._thread.join(timeout)
        self._host.store.close()

    def __enter__(self) -> ServedHost:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "serving" if self.running else "stopped"
        return f"ServedHost({self.url!r}, {state}; key in .api_key)"


def serve_host(
    suites: Any = (),
    *,
    runs: Sequence[str | os.PathLike[str] | LoadResult | PromotedRun] = (),
    agents: Mapping[str, Any] | None = None,
    live_tools: Mapping[str, LiveTool] | None = None,
    profile: HostProfile | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    api_key: str | None = None,
) -> ServedHost:
    """Serve suites as an OpenWOP host from a notebook, in the background (R43).

        >>> served = wb.serve_host(w)             # the Workbench widget, or a Suite, a path
        >>> served.url, served.api_key            # hand both to a colleague's OpenWOP client

    ``suites`` is one source or a list of them (see :class:`~workbench.server.OpenWopHost`):
    given the notebook's ``Workbench`` (or a :class:`~workbench.Suite`), each run created runs
    the suite as it is at that moment, so the URL runs the suite just edited. Loopback and a
    generated key unless told otherwise; ``port=0`` takes a free port. Needs the ``server``
    extra (``pip install 'workbench[server]'``).
    """
    sources = (
        list(suites) if isinstance(suites, list | tuple) else [suites] if suites is not None else []
    )
    from ._host import OpenWopHost, _Server, server_url

    the_host = OpenWopHost(
        sources,
        runs=runs,
        agents=agents,
        live_tools=live_tools,
        profile=profile,
        api_keys=[api_key] if api_key is not None else None,
    )
    try:
        server = the_host.server(host, port)  # OSError when the address cannot be bound
    except OSError:
        the_host.store.close()
        raise
    thread = threading.Thread(target=server.run, name="workbench-serve-host", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            thread.join(5)
            if isinstance(server, _Server):
                server.release()
            the_host.store.close()
            raise OSError(f"serve-host could not start serving on {host}:{port}")
        time.sleep(0.005)
    return ServedHost(server_url(server, host, port), the_host.api_key, the_host, server, thread)
