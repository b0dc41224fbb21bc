"""The host's fixed documents: discovery (``/.well-known/openwop``), the OpenAPI of the subset
served (``/openapi.json``) and the RFC 0245 conformance suite (SPEC R10, R43).

Discovery is the v2 capabilities shape: ``protocolVersions`` and ``preferredVersion``, and each
family a record ``{status, since, until?, witness, ...facets}``. ``agents.evalSuite`` carries
what R10 lists plus ``recordedFixtures`` (RFC 0252), from the host's profile, so the R10 object
(``{"agents": {"evalSuite": {...}}, "toolHooks": {"prePostEvents": ...}}``) is a subset of it
and :meth:`~workbench.HostProfile.from_json` reads the document back as the profile served.
``fixtures`` lists ``conformance-eval-fixture-error``, the suite RFC 0245's host legs gate on.
"""

from __future__ import annotations

from typing import Any, Final

from .. import __version__
from .._suite.capabilities import HostProfile
from ._wire import OPENWOP_VERSION

__all__ = [
    "CONFORMANCE_FIXTURE",
    "conformance_suite",
    "discovery_document",
    "openapi_document",
]

CONFORMANCE_FIXTURE: Final = "conformance-eval-fixture-error"
"""The fixture id RFC 0245's legs look for in discovery ``fixtures``."""

_UNTIL: Final = "2027-06-30"
"""The sunset date the experimental ``agents`` family carries (an experimental record needs
one)."""


def discovery_document(profile: HostProfile) -> dict[str, Any]:
    """The capabilities document of a host advertising ``profile``."""
    return {
        "protocolVersions": [OPENWOP_VERSION],
        "preferredVersion": OPENWOP_VERSION,
        "protocolVersion": OPENWOP_VERSION,
        "eventLogSchemaVersion": 3,
        "implementation": {"name": "workbench", "version": __version__},
        "fixtures": [CONFORMANCE_FIXTURE],
        "agents": {
            "status": "experimental",
            "since": OPENWOP_VERSION,
            "until": _UNTIL,
            "witness": "witnessable-gated",
            "evalSuite": {
                "modes": list(profile.modes),
                "fixtureMatching": profile.fixture_matching,
                "fixtureErrors": profile.fixture_errors,
                "trials": profile.trials,
                "trajectory": profile.trajectory,
                "recordedFixtures": profile.recorded_fixtures,
            },
        },
        "toolHooks": {
            "status": "stable",
            "since": OPENWOP_VERSION,
            "witness": "witnessable-gated",
            "prePostEvents": profile.pre_post_events,
        },
        "replay": {"status": "stable", "since": OPENWOP_VERSION, "witness": "witnessable-unaided"},
        "runList": {"status": "stable", "since": OPENWOP_VERSION, "witness": "witnessable-unaided"},
    }


def conformance_suite() -> dict[str, Any]:
    """The RFC 0245 conformance suite, written from the RFC's positive example (synthetic: the
    official ``conformance-eval-fixture-error`` fixture is not published yet). One task scripts
    ``billing:lookup`` twice: the first entry is an ``isError`` (``upstream_down``), the second a
    success; the scripted agent retries once and completes."""
    args = {"id": "c-1"}
    return {
        "suiteId": "core.conformance.evals.fixture-error",
        "version": "1.0.0",
        "x-source": "written from RFC 0245's positive example (synthetic): a recorded tool "
        "error is replayed as an error",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "fixture-error-replayed",
                "input": {
                    "script": [{"tool": "billing:lookup", "args": args, "onError": {"retry": 1}}],
                    "answer": "resolved",
                },
                "expected": {
                    "kind": "golden",
                    "match": {
                        "strategy": "json-match",
                        "value": {"outcome": "completed", "answer": "resolved"},
                    },
                },
                "fixtures": {
                    "toolResponses": [
                        {
                            "tool": "billing:lookup",
                            "args": args,
                            "argsMatch": "exact",
                            "isError": True,
                            "response": {
                                "content": [{"type": "text", "text": '{"error":"upstream_down"}'}]
                            },
                        },
                        {
                            "tool": "billing:lookup",
                            "args": args,
                            "argsMatch": "exact",
                            "response": {"content": [{"type": "text", "text": '{"plan":"team"}'}]},
                        },
                    ],
                    "onMiss": "fail",
                },
            }
        ],
    }


def _ref(schema: str) -> dict[str, str]:
    return {"$ref": f"https://openwop.dev/spec/v2/{schema}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERROR = _json(_ref("error-envelope.schema.json"), "An OpenWOP error envelope")
_RUN_ID = {
    "name": "runId",
    "in": "path",
    "required": True,
    "description": "The run id in its projected wire form (workbench~2F...)",
    "schema": {"type": "string"},
}


def _errors(*statuses: int) -> dict[str, Any]:
    return {str(s): _ERROR for s in (*statuses, 401, 406)}


def openapi_document() -> dict[str, Any]:
    """OpenAPI 3.1 for the routes this host serves (the eval subset of OpenWOP v2)."""
    created = {
        "type": "object",
        "required": ["runId", "status", "eventsUrl"],
        "properties": {
            "runId": _ref("ids.schema.json#/$defs/runId"),
            "status": {"type": "string", "enum": ["pending", "running"]},
            "eventsUrl": {"type": "string"},
            "statusUrl": {"type": "string"},
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "workbench serve-host: the OpenWOP v2 eval subset",
            "version": __version__,
            "description": "Eval runs of OpenWOP agent eval suites (RFC 0081, 0244, 0245, "
            "0252) on the workbench's replay host. Bearer auth on every route but discovery "
            "and this document.",
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/.well-known/openwop": {
                "get": {
                    "operationId": "discoveryCapabilities",
                    "security": [],
                    "responses": {"200": _json({"type": "object"}, "The capabilities document")},
                }
            },
            "/openapi.json": {
                "get": {
                    "operationId": "discoveryOpenapi",
                    "security": [],
                    "responses": {"200": _json({"type": "object"}, "This document")},
                }
            },
            "/runs": {
                "post": {
                    "operationId": "createRun",
                    "parameters": [
                        {
                            "name": "Idempotency-Key",
                            "in": "header",
                            "schema": {"type": "string", "maxLength": 255},
                        },
                    ],
                    "requestBody": _json(
                        {"type": "object"},
                        "mode eval, evalSuiteRef, agentId, "
                        "fixtureRuns?, configurable?, tags?, metadata?",
                    ),
                    "responses": {
                        "201": _json(created, "The run was created"),
                        **_errors(400, 403, 409, 413, 415, 429),
                    },
                },
                "get": {
                    "operationId": "listRuns",
                    "parameters": [
                        {"name": n, "in": "query", "schema": {"type": t}}
                        for n, t in (
                            ("limit", "integer"),
                            ("cursor", "string"),
                            ("workflowId", "string"),
                            ("status", "string"),
                        )
                    ],
                    "responses": {
                        "200": _json({"type": "object"}, "A page of runs, newest first"),
                        **_errors(400),
                    },
                },
            },
            "/runs/{runId}": {
                "get": {
                    "operationId": "getRun",
                    "parameters": [_RUN_ID],
                    "responses": {
                        "200": _json(_ref("run-snapshot.schema.json"), "The run"),
                        **_errors(404),
                    },
                }
            },
            "/runs/{runId}/events": {
                "get": {
                    "operationId": "streamRunEvents",
                    "parameters": [
                        _RUN_ID,
                        {"name": "streamMode", "in": "query", "schema": {"type": "string"}},
                        {
                            "name": "bufferMs",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 0, "maximum": 5000},
                        },
                        {"name": "resumable", "in": "query", "schema": {"type": "boolean"}},
                        {"name": "Last-Event-ID", "in": "header", "schema": {"type": "string"}},
                    ],
                    "responses": {
                        "200": {
                            "description": "Server-sent events: id is the sequence",
                            "content": {"text/event-stream": {"schema": {"type": "string"}}},
                        },
                        **_errors(400, 404),
                    },
                }
            },
            "/runs/{runId}/events/poll": {
                "get": {
                    "operationId": "pollRunEvents",
                    "parameters": [
                        _RUN_ID,
                        {
                            "name": "afterSequence",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": -1},
                        },
                        {
                            "name": "timeout",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 1, "maximum": 60},
                        },
                    ],
                    "responses": {
                        "200": _json({"type": "object"}, "Events after a sequence"),
                        **_errors(400, 404),
                    },
                }
            },
            "/runs/{runId}/eval-summary": {
                "get": {
                    "operationId": "getEvalSummary",
                    "parameters": [_RUN_ID],
                    "responses": {
                        "200": _json(_ref("eval-summary.schema.json"), "The summary"),
                        **_errors(404, 409),
                    },
                }
            },
            "/runs/{runId}/cancel": {
                "post": {
                    "operationId": "cancelRun",
                    "parameters": [_RUN_ID],
                    "responses": {
                        "202": _json({"type": "object"}, "Cancelling"),
                        **_errors(403, 404, 409),
                    },
                }
            },
            "/runs/{runId}:fork": {
                "post": {
                    "operationId": "forkRun",
                    "parameters": [_RUN_ID],
                    "requestBody": _json({"type": "object"}, "mode, fromSeq, runOptionsOverlay"),
                    "responses": {
                        "201": _json({"type": "object"}, "The fork was created"),
                        **_errors(400, 403, 404, 409, 422, 429),
                    },
                }
            },
            "/runs/{runId}:diff": {
                "get": {
                    "operationId": "diffRuns",
                    "parameters": [
                        _RUN_ID,
                        {
                            "name": "against",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "string"},
                        },
                    ],
                    "responses": {
                        "200": _json(_ref("run-diff-response.schema.json"), "The diff"),
                        **_errors(400, 404),
                    },
                }
            },
        },
    }
