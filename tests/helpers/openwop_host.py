"""Helpers for the tests of ``workbench serve-host``: a host on a free loopback port, the
official client pointed at it, raw HTTP for error bodies, and the suites the tests run.

The tests talk to the host through ``openwop-client`` only (and raw HTTP where the point is the
bytes or an error body the client hides); these helpers start it and read what comes back.
"""

from __future__ import annotations

import functools
import http.client
import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import referencing
from openwop_client import OpenwopClient, RunEventDoc

import workbench as wb
from workbench.server import OpenWopHost, ServedHost

ROOT = Path(__file__).resolve().parents[2]
BILLING_LOG = ROOT / "fixtures" / "billing-support.openwop.jsonl"
SCHEMAS = Path(wb.__file__).resolve().parent / "schemas" / "openwop"
V2 = Path(__file__).resolve().parent / "openwop_v2"

# A proxy in the environment must not take loopback requests (urllib honours http_proxy).
_no_proxy = {p for p in os.environ.get("no_proxy", "").split(",") if p}
os.environ["no_proxy"] = ",".join(sorted(_no_proxy | {"127.0.0.1", "localhost"}))


@dataclass
class LiveHost:
    """A host serving on loopback for one test module."""

    host: OpenWopHost
    served: ServedHost

    @property
    def url(self) -> str:
        return self.served.url

    @property
    def key(self) -> str:
        return self.served.api_key

    def client(self, key: str | None = None, timeout: float = 10.0) -> OpenwopClient:
        """The official client with this host's key (or another)."""
        return OpenwopClient(self.url, key or self.key, timeout=timeout)

    def raw(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        *,
        auth: bool = True,
    ) -> tuple[int, dict[str, str], bytes]:
        """One raw request: ``(status, headers lower-cased, body bytes)``."""
        return raw_request(self.url, method, path, body, headers, key=self.key if auth else None)


def raw_request(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    *,
    key: str | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """A request with http.client (no client library between the test and the bytes)."""
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    sent = {"OpenWOP-Version": "2.0", **(headers or {})}
    if key is not None:
        sent.setdefault("Authorization", f"Bearer {key}")
    data: bytes | None = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    try:
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        return (
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            response.read(),
        )
    finally:
        connection.close()


def start(host: OpenWopHost) -> LiveHost:
    """Serve ``host`` on a free loopback port in a background thread."""
    server = host.server("127.0.0.1", 0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the host did not start"
        time.sleep(0.005)
    from workbench.server._host import server_url

    return LiveHost(
        host, ServedHost(server_url(server, "127.0.0.1", 0), host.api_key, host, server, thread)
    )


@contextmanager
def running(host: OpenWopHost) -> Iterator[LiveHost]:
    """A served host for a ``with`` block."""
    live = start(host)
    try:
        yield live
    finally:
        live.served.stop()


@functools.cache
def _billing_data() -> str:
    suite = wb.promote(wb.load_runs(BILLING_LOG)).suite
    return json.dumps(suite.data)


def billing_suite() -> wb.Suite:
    """The suite ``workbench promote`` makes of the billing-support recording (a fresh copy)."""
    return wb.Suite(json.loads(_billing_data()))


def event_dict(event: RunEventDoc) -> dict[str, Any]:
    """A client event back as the RunEventDoc object the host sent (its optional members the
    host does not write left out)."""
    doc: dict[str, Any] = {
        "eventId": event.eventId,
        "runId": event.runId,
        "type": event.type,
        "payload": event.payload,
        "timestamp": event.timestamp,
        "sequence": event.sequence,
        "schemaVersion": event.schemaVersion,
    }
    for name in ("nodeId", "engineVersion", "causationId"):
        if getattr(event, name) is not None:
            doc[name] = getattr(event, name)
    return doc


def jsonl(events: list[dict[str, Any]]) -> str:
    """Events as ``workbench replay --events`` writes them (``events_to_jsonl``)."""
    return "".join(
        json.dumps(e, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
        for e in events
    )


@functools.cache
def _registry() -> referencing.Registry[Any]:
    resources = []
    for path in [*SCHEMAS.glob("*.schema.json"), *V2.glob("*.schema.json")]:
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], referencing.Resource.from_contents(contents)))
    return referencing.Registry().with_resources(resources)


def schema_errors(
    instance: Any, schema_file: str, pointer: str = "", *, formats: bool = False
) -> list[str]:
    """Every way ``instance`` fails an official schema (by file name, optionally a
    ``#/$defs/...`` pointer inside it; ``formats``: check ``format`` too)."""
    folder = V2 if (V2 / schema_file).exists() else SCHEMAS
    contents = json.loads((folder / schema_file).read_text(encoding="utf-8"))
    schema: dict[str, Any] = {"$ref": contents["$id"] + pointer} if pointer else contents
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER if formats else None
    validator = jsonschema.Draft202012Validator(
        schema, registry=_registry(), format_checker=checker
    )
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(instance)
    ]


def snapshot_problems(snap: Mapping[str, Any]) -> list[str]:
    """Every way a snapshot fails the official closed ``run-snapshot.schema.json`` (with the
    ``subject.schema.json`` and ``ids.schema.json`` it refers to); start and end times checked
    as RFC 3339 date-times."""
    return schema_errors(snap, "run-snapshot.schema.json", formats=True)
