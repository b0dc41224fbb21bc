"""What every framework adapter needs from a task: its prompt, its instructions and its tools,
each tool backed by the fixture host (SPEC R25, R17).

A framework agent runs the whole task itself (it calls its own model; there are no model
fixtures). Its prompt and instructions come from the recorded conversation (the system messages,
and the user messages before the first assistant turn) or from a task input's ``prompt`` and
``instructions``; its tools are the conversation's tool definitions (or one per tool the task has
fixtures for). A tool call goes to the host, and a failure comes back with R17's error text, which
each adapter surfaces the way its framework surfaces a tool error.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ..._common.toolresult import ToolResult
from ..agents import ToolInterface
from ..chat import WireNames

__all__ = ["FrameworkTask", "HostTool", "framework_task", "run_coroutine"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HostTool:
    """One tool as a framework sees it, backed by the fixture host."""

    name: str
    """The name the framework and its model use (``[A-Za-z0-9_-]{1,64}``)."""
    recorded: str
    """The tool's name on the host (as recorded)."""
    description: str
    """Its description (the recorded one, or its name)."""
    schema: dict[str, Any]
    """The JSON schema of its args."""
    host: ToolInterface
    """The host that serves it."""

    def call(self, args: Any) -> ToolResult:
        """Call the tool on the host (a failure comes back as a result, never raised)."""
        return self.host.call(self.recorded, args)


@dataclass(frozen=True, slots=True)
class FrameworkTask:
    """A task input as a framework agent runs it."""

    prompt: str
    """The user's request."""
    instructions: str | None
    """The system prompt, when there is one."""
    tools: tuple[HostTool, ...]
    """The tools, backed by the host."""


def framework_task(task_input: Any, host: ToolInterface) -> FrameworkTask:
    """The prompt, instructions and host-backed tools of a task input.

    Raises:
        ValueError: the task input has neither a conversation nor a ``prompt``.
    """
    data: Mapping[str, Any] = task_input if isinstance(task_input, Mapping) else {}
    conversation = data.get("conversation")
    system: list[str] = []
    users: list[str] = []
    definitions: list[Mapping[str, Any]] = []
    if isinstance(conversation, Mapping):
        for message in conversation.get("messages") or ():
            role = message.get("role") if isinstance(message, Mapping) else None
            if role == "system":
                system.append(str(message.get("content") or ""))
            elif role == "user":
                users.append(str(message.get("content") or ""))
            elif role is not None:
                break
        definitions = [t for t in conversation.get("tools") or () if isinstance(t, Mapping)]
    if isinstance(data.get("instructions"), str):
        system = [data["instructions"]]
    if isinstance(data.get("prompt"), str):
        users = [data["prompt"]]
    if not users:
        raise ValueError(
            "a framework agent needs a prompt: a recorded conversation with a user message "
            "(input.conversation) or input.prompt"
        )
    known = {str(t.get("name")) for t in definitions}
    definitions += [{"name": n} for n in host.tool_names if n not in known]
    names = WireNames(str(t.get("name")) for t in definitions)
    tools = tuple(
        HostTool(
            name=names.wire(str(t["name"])),
            recorded=str(t["name"]),
            description=str(t.get("description") or t["name"]),
            schema=dict(t["inputSchema"])
            if isinstance(t.get("inputSchema"), Mapping)
            else {"type": "object"},
            host=host,
        )
        for t in definitions
    )
    return FrameworkTask("\n\n".join(users), "\n\n".join(system) or None, tools)


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a framework's coroutine to its end from synchronous code, also inside a running
    event loop (a notebook's), where it runs on a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
