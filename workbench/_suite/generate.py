"""The generated extension schemas for suites and summaries (SPEC R5-R9, R29).

The official suite and summary item objects are ``additionalProperties: false``, so an extension
cannot be layered on with ``allOf``: the closed official object would still refuse every new
member. The extension therefore has to be a full schema. Writing it by hand would copy 10 KB of
official text that then drifts silently when the vendored file is updated, so it is generated from
the vendored official file by the small patch functions below, committed (so readers and other
tools see a plain schema file), and ``tests/test_schemas.py`` asserts the committed bytes equal
what these functions produce. Regenerate after changing a builder::

    python -m workbench._suite.generate
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable, Mapping
from typing import Any, Final
from urllib.parse import urljoin

from .._common.jsonio import write_text_atomic
from .schemas import (
    HOST_PROFILE,
    OFFICIAL_SUITE,
    OFFICIAL_SUMMARY,
    SUITE_EXT,
    SUMMARY_EXT,
    WORKBENCH_SCHEMA_BASE,
    _schema,
    schema_path,
)

__all__ = ["build_suite_extension", "build_summary_extension", "main", "render_generated_schema"]

_DRAFT_2020_12: Final = "https://json-schema.org/draft/2020-12/schema"

_EXT_HATCH: Final = {
    "description": "Extension member (an `x-` key): carried opaquely, never interpreted by a "
    "host that does not know it. The workbench uses `x-promotion` and `x-variant`."
}
_ARGS_MATCH: Final = {
    "type": "string",
    "enum": ["exact", "subset", "any"],
    "description": "How call args are compared (SPEC R12): `exact` = equal as canonical JSON; "
    "`subset` = every key given here is present in the call with an equal value; `any` = args "
    "ignored.",
}
_TRIALS: Final = {
    "type": "integer",
    "minimum": 1,
    "description": "Number of trials per task (SPEC R8); default 1. A task's own `trials` wins "
    "over the suite's.",
}
_X_MEMBERS: Final = {"^x-": {"description": "A member a format adds, carried opaquely."}}
_TOOL_CALL: Final = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "name"],
    "properties": {
        "id": {"type": "string", "description": "The call's id: its boundary's callId."},
        "name": {"type": "string", "minLength": 1, "description": "The tool called."},
        "args": {"description": "The call's args (any JSON)."},
    },
    "patternProperties": _X_MEMBERS,
}


_CONVERSATION: Final = {
    "type": "object",
    "additionalProperties": False,
    "required": ["messages"],
    "description": "The model's side of the recorded run (SPEC R40), in the workbench's neutral "
    "shape whatever the source format: the messages in order, the tool definitions (recorded, or "
    "inferred from the calls: toolsInferred) and the model. An LLM agent serves the recorded "
    "assistant turns as model fixtures while the conversation equals this one (docs/agents.md).",
    "properties": {
        "messages": {
            "type": "array",
            # One flat object schema for every role, plus one if/then for what a tool message
            # must have: a oneOf (or an if/then per role) tries shapes on every message, which
            # made validating a long transcript five times slower.
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["role", "content"],
                "description": "system/user: role, content (text). assistant: role, content "
                "(text or null), toolCalls. tool: role, toolCallId, name, content (the result's "
                "text as the model read it), isError.",
                "properties": {
                    "role": {"enum": ["system", "user", "assistant", "tool"]},
                    "content": {"type": ["string", "null"]},
                    "toolCalls": {"type": "array", "items": _TOOL_CALL},
                    "toolCallId": {"type": "string"},
                    "name": {"type": "string"},
                    "isError": {"type": "boolean"},
                },
                "patternProperties": _X_MEMBERS,
                "if": {"properties": {"role": {"const": "tool"}}},
                "then": {
                    "required": ["toolCallId", "isError"],
                    "properties": {"content": {"type": "string"}},
                },
            },
        },
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "description": {"type": "string"},
                    "inputSchema": {"type": "object", "description": "JSON Schema of the args."},
                },
                "patternProperties": _X_MEMBERS,
            },
        },
        "toolsInferred": {
            "type": "boolean",
            "description": "The recording had no tool definitions: these were inferred from the "
            "calls made.",
        },
        "model": {"type": "string", "description": "The model that answered, when recorded."},
    },
    "patternProperties": _X_MEMBERS,
}
_PASS_AT_K: Final = {
    "type": "object",
    "propertyNames": {"pattern": "^[1-9][0-9]*$"},
    "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1},
}


def _at(schema: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The sub-schema at ``keys``, with a clear error if the official file changed shape."""
    node: Any = schema
    for depth, key in enumerate(keys):
        if not isinstance(node, dict) or key not in node:
            where = "/".join(keys[: depth + 1])
            raise KeyError(f"official schema has no {where!r}; update the extension builder")
        node = node[key]
    if not isinstance(node, dict):
        raise KeyError(f"official schema member {'/'.join(keys)!r} is not an object")
    return node


def _absolutize_refs(node: Any, base: str) -> Any:
    """Copy of ``node`` with every relative ``$ref`` resolved against ``base``: the extension
    has a workbench ``$id``, against which ``ids.schema.json#...`` would point nowhere."""
    if isinstance(node, dict):
        return {
            key: urljoin(base, value)
            if key == "$ref" and isinstance(value, str) and not value.startswith("#")
            else _absolutize_refs(value, base)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_absolutize_refs(item, base) for item in node]
    return node


def _rehead(official: Mapping[str, Any], name: str, title: str, description: str) -> dict[str, Any]:
    body: dict[str, Any] = _absolutize_refs(dict(official), str(official["$id"]))
    head = {
        "$schema": body.pop("$schema", _DRAFT_2020_12),
        "$id": WORKBENCH_SCHEMA_BASE + name,
        "title": title,
        "description": description,
        "$comment": f"GENERATED by workbench._suite.generate from {official['$id']} (vendored "
        f"byte-identical in workbench/schemas/openwop/). Do not edit by hand: change the builder "
        f"and run `python -m workbench._suite.generate`.",
    }
    for key in ("$id", "title", "description", "$comment"):
        body.pop(key, None)
    return head | body


def build_suite_extension(official: Mapping[str, Any]) -> dict[str, Any]:
    """The suite extension schema (SPEC R5-R8): the official suite schema plus the RFC 0244/0245
    fixture, trajectory and trials members, ``x-promotion`` and ``x-`` members."""
    schema = _rehead(
        official,
        SUITE_EXT,
        "AgentEvalSuite (workbench extension)",
        "An OpenWOP RFC 0081 agent eval suite with the RFC 0244/0245 members the workbench "
        "reads and writes: fixture entries with args, argsMatch and isError, fixtures.onMiss, "
        "tasks[].trajectory, trials per task and per suite, the recorded conversation on a task "
        "input (tasks[].input.conversation), and `x-` extension members (such as x-promotion). "
        "A suite using none of them also validates against the official schema.",
    )
    _at(schema, "properties")["trials"] = _TRIALS
    _at(schema, "properties")["x-promotion"] = {
        "type": "object",
        "description": "How this suite was promoted from a recorded run (SPEC R3, R30, R31). "
        "Open object; the members below are the ones the workbench writes.",
        "properties": {
            "source": {"type": "string", "description": "Source file name."},
            "format": {"type": "string", "description": "Format the run was read as."},
            "errorRule": {"description": "The error rule used for formats with no error flag."},
            "redactions": {"description": "What secret redaction replaced."},
            "selfTest": {"description": "Result of replaying the unmodified promoted suite."},
        },
    }
    schema["patternProperties"] = {"^x-": _EXT_HATCH}

    task = _at(schema, "properties", "tasks", "items")
    _at(task, "properties")["trials"] = _TRIALS
    _at(task, "properties")["trajectory"] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["expected", "match"],
        "description": "Expected tool-call trajectory (SPEC R7, R27), graded over every "
        "agent.tool-called event, failed calls included.",
        "properties": {
            "expected": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["tool"],
                    "properties": {"tool": {"type": "string", "minLength": 1}, "args": {}},
                },
            },
            "match": {
                "type": "string",
                "enum": ["strict", "unordered", "subset", "superset"],
                "description": "`strict`: same calls, same order; `unordered`: same calls as a "
                "multiset; `subset`: actual calls fit inside the expected ones; `superset`: "
                "expected calls fit inside the actual ones.",
            },
            "argsMatch": _ARGS_MATCH | {"description": "How args are compared; default exact."},
        },
    }
    task["patternProperties"] = {"^x-": _EXT_HATCH}
    # `input` is opaque in the official schema; `properties` constrains only an object input,
    # so any input stays valid and a suite with none of these members stays official (R9).
    _at(task, "properties", "input")["properties"] = {"conversation": _CONVERSATION}

    fixtures = _at(task, "properties", "fixtures")
    _at(fixtures, "properties")["onMiss"] = {
        "type": "string",
        "enum": ["fail", "live"],
        "description": "What a call matching no unconsumed entry gets (SPEC R16): `fail` "
        "(default) a tool error, `live` the live tool registered for that name.",
    }
    entry = _at(fixtures, "properties", "toolResponses", "items")
    _at(entry, "properties").update(
        {
            "args": {
                "description": "Args the call must match (any JSON), compared under argsMatch."
            },
            "argsMatch": _ARGS_MATCH
            | {"description": "Default `exact` when args is present, `any` when absent (R5)."},
            "isError": {
                "type": "boolean",
                "default": False,
                "description": "RFC 0245: the recorded call failed; served as a tool error, never "
                "as a success (SPEC R15).",
            },
        }
    )
    entry["patternProperties"] = {"^x-": _EXT_HATCH}
    return copy.deepcopy(schema)  # no module constant is shared with the caller


def build_summary_extension(official: Mapping[str, Any]) -> dict[str, Any]:
    """The summary extension schema (SPEC R29): the official EvalSummary plus fixture-miss
    counts, per-task trial figures and ``x-`` members."""
    schema = _rehead(
        official,
        SUMMARY_EXT,
        "EvalSummary (workbench extension)",
        "An OpenWOP RFC 0081 EvalSummary plus the workbench's figures: fixtureMissCount (suite "
        "and task), needsModelCount, per-task trials with pass@k and pass^k, and `x-` extension "
        "members. "
        "Dropping them leaves a summary valid against the official schema.",
    )
    miss_count = {
        "type": "integer",
        "minimum": 0,
        "description": "Tool calls that matched no unconsumed fixture entry (SPEC R16).",
    }
    needs_model = {
        "type": "integer",
        "minimum": 1,
        "description": "Trials that ended needs-model (SPEC R41): the conversation left the "
        "recording and no model could answer. Counted here, left out of trials and scores.",
    }
    _at(schema, "properties")["fixtureMissCount"] = miss_count
    _at(schema, "properties")["needsModelCount"] = needs_model
    schema["patternProperties"] = {"^x-": _EXT_HATCH}
    task = _at(schema, "properties", "tasks", "items")
    _at(task, "properties")["fixtureMissCount"] = miss_count
    _at(task, "properties")["needsModelCount"] = needs_model
    _at(task, "properties")["trials"] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["n", "passed", "passAtK", "passHatK"],
        "description": "Trial figures (SPEC R28) over the decided trials; passAtK/passHatK keys "
        "are k as decimal strings, 1..n (none when n is 0: every trial ended needs-model).",
        "properties": {
            "n": {"type": "integer", "minimum": 0, "description": "Trials decided."},
            "passed": {"type": "integer", "minimum": 0, "description": "Trials passed."},
            "passAtK": _PASS_AT_K | {"description": "Unbiased pass@k by k."},
            "passHatK": _PASS_AT_K | {"description": "Unbiased pass^k by k."},
        },
    }
    task["patternProperties"] = {"^x-": _EXT_HATCH}
    return copy.deepcopy(schema)  # no module constant is shared with the caller


_GENERATED: Final[dict[str, tuple[str, Callable[[Mapping[str, Any]], dict[str, Any]]]]] = {
    SUITE_EXT: (OFFICIAL_SUITE, build_suite_extension),
    SUMMARY_EXT: (OFFICIAL_SUMMARY, build_summary_extension),
}


def render_generated_schema(name: str) -> str:
    """The exact text the committed generated file ``name`` must have."""
    official, build = _GENERATED[name]
    return json.dumps(build(_schema(official)), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    """Regenerate the generated extension schemas in place."""
    directory = schema_path(HOST_PROFILE).parent
    for name in _GENERATED:
        write_text_atomic(directory / name, render_generated_schema(name), overwrite=True)
        print(f"wrote {directory / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
