"""``workbench serve-host``: an OpenWOP v2 host for the eval subset over HTTP (SPEC R43).

A suite authored in the notebook runs where OpenWOP users already are: any OpenWOP client (the
official ``openwop-client`` among them) discovers the host at ``/.well-known/openwop``, creates
eval runs with ``POST /runs`` (``mode: "eval"``, ``evalSuiteRef``, ``agentId``,
``fixtureRuns``), follows their events (SSE or poll), reads the summary, forks a run with an
entry flipped and diffs the two. Runs are :class:`~workbench.ReplaySession` runs, so events and
summaries are those ``workbench replay`` writes for the same suite and seed. Refusals are R11's
bodies. Needs the ``server`` extra (``pip install 'workbench[server]'``: Starlette, uvicorn);
the names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._common.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "ApiKey": "_auth",
    "HostSettings": "_http",
    "OpenWopHost": "_host",
    "ServedHost": "_notebook",
    "generate_api_key": "_auth",
    "load_api_keys": "_auth",
    "serve_host": "_notebook",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:
    from ._auth import (
        ApiKey as ApiKey,
    )
    from ._auth import (
        generate_api_key as generate_api_key,
    )
    from ._auth import (
        load_api_keys as load_api_keys,
    )
    from ._host import (
        OpenWopHost as OpenWopHost,
    )
    from ._http import (
        HostSettings as HostSettings,
    )
    from ._notebook import (
        ServedHost as ServedHost,
    )
    from ._notebook import (
        serve_host as serve_host,
    )
