"""Inspect AI's server-side tool uses are calls (SPEC R34, R35, R36).

Since 0.3.123 Inspect records the tools a provider runs itself (Anthropic's and OpenAI's web
search, web fetch, code execution, MCP connectors) as ``ContentToolUse`` items of the assistant
message's ``content``: ``{"type": "tool_use", "tool_type", "id", "name", "context",
"arguments", "result", "error"}`` (``inspect_ai/_util/content.py``). No message or tool event
holds them otherwise, so a reader that skipped them dropped the calls with no word.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.json_places import MISSING
from helpers.paths import FIXTURES
from workbench import load_runs
from workbench._load.inspect_results import text_results_since
from workbench.cli import main

_MISSING = object()


def _use(call_id: str, name: str, error: Any = None, **more: Any) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "tool_type": "web_search",
        "id": call_id,
        "name": name,
        "arguments": json.dumps({"query": "inspect"}),
        "result": "[]" if error else '[{"url": "https://e.x"}]',
        "error": error,
        **more,
    }


def _log(tmp_path: Path, *uses: dict[str, Any]) -> Path:
    """SYNTHETIC, in Inspect's log schema: one sample whose assistant message holds server
    tool uses beside a function call (``bash``), answered by a tool message."""
    bash = {"id": "call_1", "function": "bash", "arguments": {"cmd": "ls"}, "type": "function"}
    messages = [
        {"role": "user", "content": "find it", "source": "input"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Searching."}, *uses],
            "tool_calls": [bash],
            "source": "generate",
        },
        {"role": "tool", "content": "a.txt", "tool_call_id": "call_1", "function": "bash"},
        {"role": "assistant", "content": "Found.", "source": "generate"},
    ]
    log = {
        "version": 2,
        "status": "success",
        "eval": {"task": "t", "model": "anthropic/claude-sonnet-4-5"},
        "samples": [{"id": 1, "epoch": 1, "messages": messages, "events": []}],
    }
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def test_server_tool_uses_in_an_assistant_message_are_calls(tmp_path: Path) -> None:
    """R34: two web tool uses beside a bash call gave the bash call only."""
    path = _log(
        tmp_path,
        _use("srvtoolu_1", "web_search"),
        _use("srvtoolu_2", "web_fetch", error="max_uses_exceeded", context="web"),
    )
    result = load_runs(path)
    assert result.format == "inspect-ai"
    assert [(b.call_id, b.tool, b.is_error) for b in result.boundaries] == [
        ("srvtoolu_1", "web_search", False),
        ("srvtoolu_2", "web_fetch", True),
        ("call_1", "bash", False),
    ]
    search, fetch, _ = result.boundaries
    assert search.args == {"query": "inspect"}
    assert search.extra["tool_type"] == "web_search"
    assert (fetch.error_code, fetch.error_message) == ("max_uses_exceeded", "max_uses_exceeded")
    assert fetch.extra["context"] == "web"
    conversation = result.run.conversation
    assert conversation is not None
    ids = [c["id"] for m in conversation.messages for c in m.get("toolCalls", ())]
    assert ids == ["srvtoolu_1", "srvtoolu_2", "call_1"]


def test_a_server_tool_error_that_is_not_text_is_a_problem(tmp_path: Path) -> None:
    """R35: an ``error`` of the wrong type makes the call neither success nor failure."""
    result = load_runs(_log(tmp_path, _use("srvtoolu_1", "web_search", error=True)), strict=False)
    assert [b.call_id for b in result.boundaries] == ["call_1"]
    assert [(p.field, p.message) for p in result.problems] == [("error", "not text or null")]


@pytest.mark.parametrize(
    ("result", "message"), [("", "tool call failed"), ("MCP error -32603", "MCP error -32603")]
)
def test_a_server_tool_use_with_an_empty_error_failed(
    tmp_path: Path, result: str, message: str
) -> None:
    """R34: an ``error`` of empty text loaded the call as a success. ``ContentToolUse.error``
    is ``str | None``, ``None`` for no error, and Inspect writes an empty one for an OpenAI
    MCP call that failed with empty content (``mcp_error_to_str``), sending it back to OpenAI
    as an error (``mcp_error_from_str``): the call failed, with no error code, its message the
    result's text (or, with none, that it failed)."""
    use = {**_use("mcpcall_1", "lookup", error=""), "tool_type": "mcp_call", "result": result}
    loaded = load_runs(_log(tmp_path, use, _use("srvtoolu_2", "web_search")))
    lookup, search, _ = loaded.boundaries
    assert (lookup.call_id, lookup.is_error, lookup.error_code) == ("mcpcall_1", True, None)
    assert lookup.error_message == message
    assert (search.call_id, search.is_error) == ("srvtoolu_2", False)  # a null error: none
    conversation = loaded.run.conversation
    assert conversation is not None
    assert [m.get("isError") for m in conversation.messages if m["role"] == "tool"][:2] == [
        True,
        False,
    ]


@pytest.mark.parametrize(
    "result",
    [7, 1.5, True, ["[]"], [{"type": "text", "text": "ok"}, 3]],
    ids=["number", "float", "boolean", "list-of-text", "list-with-a-number"],
)
def test_a_server_tool_result_of_a_type_inspect_never_wrote_is_a_problem(
    tmp_path: Path, result: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: Inspect declares ``ContentToolUse.result: str`` (since 0.3.126; ``JsonValue`` in
    0.3.123-0.3.125, which wrote text, objects, lists of objects or null). A number, a boolean
    or a list of anything else loaded as a success with empty text: now a problem naming the
    place and the field, and the call is neither success nor failure."""
    path = _log(tmp_path, _use("srvtoolu_1", "web_search", result=result))
    loaded = load_runs(path, strict=False)
    assert [b.call_id for b in loaded.boundaries] == ["call_1"]  # the call is not also unanswered
    (problem,) = loaded.problems
    assert (problem.where, problem.field) == ("samples[0].messages[1].content[1]", "result")
    assert problem.message.startswith("not text, null, an object or a list of objects")
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err
    assert "samples[0].messages[1].content[1] (field result)" in err


@pytest.mark.parametrize(
    ("result", "error", "text"),
    [
        ('[{"url": "https://e.x"}]', None, '[{"url": "https://e.x"}]'),  # 0.3.126 on: text
        ("", "failed", ""),  # OpenAI's web_search_call (no output recorded)
        (None, None, ""),  # 0.3.123-0.3.125: an MCP call with no output
        (_MISSING, None, ""),  # the same, the null left out of the log
        ([{"type": "text", "text": "42"}], None, "42"),  # 0.3.123-0.3.125: MCP result blocks
        (
            [{"type": "web_search_result", "url": "https://e.x", "title": "E"}],
            None,
            '[{"title": "E", "type": "web_search_result", "url": "https://e.x"}]',
        ),
        (
            {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
            "max_uses_exceeded",
            '{"error_code": "max_uses_exceeded", "type": "web_search_tool_result_error"}',
        ),
    ],
    ids=["text", "empty", "null", "absent", "blocks", "search-results", "error-object"],
)
def test_every_result_shape_inspect_wrote_still_loads(
    tmp_path: Path, result: Any, error: str | None, text: str
) -> None:
    """R34, R35: each ``result`` shape Inspect's providers wrote (``_openai_responses.py`` and
    ``anthropic.py`` of 0.3.123-0.3.285) is a boundary: text as it is, blocks by their text,
    other objects and lists as their JSON (served whole, not empty); failed by ``error``."""
    use = _use("srvtoolu_1", "web_search", error=error)
    if result is _MISSING:
        del use["result"]
    else:
        use["result"] = result
    loaded = load_runs(_log(tmp_path, use))
    search, _ = loaded.boundaries
    assert (search.call_id, search.is_error, search.response_text) == (
        "srvtoolu_1",
        bool(error),
        text,
    )


SERVER_TOOLS = FIXTURES / "inspect-ai" / "generated-inspect-0.3.285-server-tools.json"
"""Written by inspect_ai 0.3.285 itself (SYNTHETIC: a scripted model), ``inspect-ai/SOURCE.md``."""


def _with_result(tmp_path: Path, call_id: str, result: Any) -> Path:
    """The generated log with the ``result`` of the server tool use ``call_id`` set."""
    log = json.loads(SERVER_TOOLS.read_text(encoding="utf-8"))
    (use,) = [
        block
        for message in log["samples"][0]["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("id") == call_id
    ]
    use["result"] = result
    path = tmp_path / SERVER_TOOLS.name
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def test_server_tool_uses_as_inspect_writes_them_are_calls() -> None:
    """R34: the three uses Inspect 0.3.285 wrote (a null ``error`` or ``context`` left out)
    are calls before the message's function call; the one with an ``error`` failed."""
    loaded = load_runs(SERVER_TOOLS)
    assert [(b.tool, b.is_error, b.response_text) for b in loaded.boundaries] == [
        ("web_search", False, '[{"url": "https://inspect.aisi.org.uk", "title": "Inspect"}]'),
        ("lookup", True, ""),
        ("code_execution", False, "42\n"),
        ("add", False, "5"),
    ]
    lookup = loaded.boundaries[1]
    assert lookup.error_message == "tool execution failed: upstream timeout"
    assert (lookup.extra["tool_type"], lookup.extra["context"]) == ("mcp_call", "docs-server")


@pytest.mark.parametrize("result", [0, False, [1, 2]], ids=["number", "boolean", "numbers"])
def test_an_inspect_written_server_tool_result_changed_to_another_type_is_refused(
    tmp_path: Path, result: Any
) -> None:
    """R35: the generated log with one ``result`` of a type Inspect never wrote: a problem at
    that use's place, the other three calls loaded."""
    loaded = load_runs(_with_result(tmp_path, "srvtoolu_03", result), strict=False)
    assert [b.tool for b in loaded.boundaries] == ["web_search", "lookup", "add"]
    (problem,) = loaded.problems
    assert (problem.where, problem.field) == ("samples[0].messages[1].content[3]", "result")


OLDER = FIXTURES / "inspect-ai" / "generated-inspect-0.3.125-server-tools.json"
"""Written by inspect_ai 0.3.125, whose ``ContentToolUse.result`` was ``JsonValue``."""


def test_server_tool_results_as_inspect_0_3_125_wrote_them_all_load() -> None:
    """R34, R35: lists, an object and a left-out null (what 0.3.123-0.3.125's providers wrote)
    are results: text blocks by their text, the rest as their JSON, never refused."""
    loaded = load_runs(OLDER)
    got = [(b.call_id, b.is_error, b.response_text) for b in loaded.boundaries]
    search = (
        '[{"encrypted_content": "EqgfCioIARgB", "page_age": null, "title": "Inspect", '
        '"type": "web_search_result", "url": "https://inspect.aisi.org.uk"}]'
    )
    refused = '{"error_code": "max_uses_exceeded", "type": "web_search_tool_result_error"}'
    tools = (
        '[{"annotations": null, "description": "Look up", "input_schema": {}, "name": "lookup"}]'
    )
    assert got == [
        ("srvtoolu_01", False, search),
        ("srvtoolu_02", True, refused),
        ("mcptoolu_03", False, "Evals are tasks."),
        ("mcp_04", False, ""),
        ("mcpl_05", False, tools),
        ("ws_06", False, ""),
        ("call_1", False, "5"),
    ]
    assert loaded.boundaries[1].error_code == "max_uses_exceeded"
    assert loaded.boundaries[0].args == {"query": "inspect ai"}  # (an object, then)


def _every_copy(
    source: Path, value: Any, out: Path, *, unversioned: bool = False, member: str = "result"
) -> Path:
    """``source`` with the ``member`` of its first server tool use (``srvtoolu_01``, in
    ``content[1]``) set to ``value`` (left out, for ``MISSING``) wherever the log holds that
    use (the message, the model's scripted output, the model event), as Inspect would have
    written it; ``unversioned``, without ``eval.packages``."""

    def put(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "tool_use" and node.get("id") == "srvtoolu_01":
                node.pop(member, None)
                if value is not MISSING:
                    node[member] = value
            for item in node.values():
                put(item)
        elif isinstance(node, list):
            for item in node:
                put(item)

    log = json.loads(source.read_text(encoding="utf-8"))
    put(log)
    if unversioned:
        del log["eval"]["packages"]
    path = out / source.name
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "value",
    [None, MISSING, {"type": "web_search_tool_result_error"}, [{"type": "text", "text": "42"}]],
    ids=["null", "absent", "object", "blocks"],
)
def test_a_result_that_is_not_text_in_a_log_of_inspect_0_3_126_on_is_a_problem(
    tmp_path: Path, value: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: since 0.3.126 ``ContentToolUse.result`` is a required ``str``; the log Inspect
    0.3.285 wrote with one ``result`` null, left out, an object or a list (shapes only
    0.3.123-0.3.125 wrote) loaded as a success: now a problem naming the place and the field,
    the other three calls loaded."""
    path = _every_copy(SERVER_TOOLS, value, tmp_path)
    loaded = load_runs(path, strict=False)
    assert [b.tool for b in loaded.boundaries] == ["lookup", "code_execution", "add"]
    (problem,) = loaded.problems  # the call is not also "never answered"
    assert (problem.where, problem.field) == ("samples[0].messages[1].content[1]", "result")
    assert "inspect_ai 0.3.285" in problem.message
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err
    assert "samples[0].messages[1].content[1] (field result)" in err


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, ""), (MISSING, ""), ({"a": 1}, '{"a": 1}'), ([{"type": "text", "text": "42"}], "42")],
    ids=["null", "absent", "object", "blocks"],
)
@pytest.mark.parametrize("version", ["0.3.125", "unknown"])
def test_a_result_that_is_not_text_still_loads_where_inspect_wrote_it_so(
    tmp_path: Path, value: Any, text: str, version: str
) -> None:
    """R34, R35: in the log Inspect 0.3.125 wrote (``result: JsonValue``), or in one that does
    not say which Inspect wrote it (the 0.3.285 log without ``eval.packages``), such a result
    is read as before: a success, its text."""
    source = OLDER if version == "0.3.125" else SERVER_TOOLS
    path = _every_copy(source, value, tmp_path, unversioned=version == "unknown")
    first = load_runs(path).boundaries[0]
    assert (first.call_id, first.is_error, first.response_text) == ("srvtoolu_01", False, text)


@pytest.mark.parametrize(
    ("version", "text_only"),
    [
        ("0.3.126", True),
        ("0.3.126+local", True),
        ("0.3.127.dev3+g715e750e", True),
        ("0.4.0", True),
        ("0.3.125", False),
        ("0.3.126.dev2+g1a2b3c4", False),  # (a build before 0.3.126's release)
        ("0.3.95.dev16+g6527d0861", False),
        ("0.0.0+transluce", False),  # (a fork's build: unknown)
        (None, False),
    ],
)
def test_the_inspect_version_a_log_names_decides_whether_results_are_text(
    version: str | None, text_only: bool
) -> None:
    """R35: the release that wrote the log is ``eval.packages["inspect_ai"]``."""
    log = {"version": 2, "eval": {"packages": {"inspect_ai": version}}}
    assert (text_results_since(log) is not None) == text_only


@pytest.mark.parametrize("value", [{"query": "x"}, 7], ids=["object", "number"])
def test_arguments_that_are_not_text_in_a_log_of_inspect_0_3_126_on_are_a_problem(
    tmp_path: Path, value: Any
) -> None:
    """R35: since 0.3.126 ``ContentToolUse.arguments`` is a ``str`` too: an object or a number
    in the log Inspect 0.3.285 wrote is a problem naming the place and the field (and the call
    is not read); in the log Inspect 0.3.125 wrote (``JsonValue``) an object is the args."""
    path = _every_copy(SERVER_TOOLS, value, tmp_path, member="arguments")
    loaded = load_runs(path, strict=False)
    assert [b.tool for b in loaded.boundaries] == ["lookup", "code_execution", "add"]
    (problem,) = loaded.problems
    assert (problem.where, problem.field) == ("samples[0].messages[1].content[1]", "arguments")
    (tmp_path / "older").mkdir()
    older = _every_copy(OLDER, {"query": "x"}, tmp_path / "older", member="arguments")
    assert load_runs(older).boundaries[0].args == {"query": "x"}
