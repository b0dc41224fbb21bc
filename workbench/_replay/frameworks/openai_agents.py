"""OpenAI Agents SDK agents against the fixture host (SPEC R25): ``pip install
'workbench[openai-agents]'``.

The task's tools are added to a clone of the agent as ``FunctionTool`` objects, each backed by
the host. The SDK's rule for a hand-made ``FunctionTool`` is that it handles its own errors and
returns what the model should read: a failed call returns ``Error: `` and R17's error text (the
Responses API has no error flag), as the OpenAI chat client does.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from ..agents import Decision, ToolInterface
from .common import HostTool, framework_task, run_coroutine

__all__ = ["OpenAIAgentsAgent"]


class OpenAIAgentsAgent:
    """Run an ``agents.Agent`` (OpenAI Agents SDK) on each task, its tools served by the fixture
    host (R25). ``agent`` brings its own model (a custom ``Model`` in tests); the task's
    instructions are used when the agent has none; ``max_turns`` is the SDK's turn limit."""

    agent_id = "workbench.openai-agents"

    def __init__(
        self,
        agent: Any,
        *,
        max_turns: int = 10,
        error_prefix: str = "Error: ",
        run_config: Any = None,
    ) -> None:
        self.agent = agent
        """The Agents SDK agent."""
        self.run_config = run_config
        """The SDK's ``RunConfig`` for each run (e.g. ``RunConfig(tracing_disabled=True)``)."""
        self.max_turns = max_turns
        """The SDK's turn limit for one run."""
        self.error_prefix = error_prefix
        """Put before a failed call's error text."""

    def run(self, task_input: Any, tools: ToolInterface) -> Decision:
        """Run the agent on one trial of the task."""
        from agents import FunctionTool, Runner

        task = framework_task(task_input, tools)
        prefix = self.error_prefix

        def backed(tool: HostTool) -> Callable[[Any, str], Awaitable[str]]:
            async def invoke(context: Any, arguments: str) -> str:
                try:
                    args = json.loads(arguments) if arguments.strip() else {}
                except json.JSONDecodeError:
                    args = arguments
                result = tool.call(args)
                return f"{prefix}{result.error}" if result.is_error else result.text

            return invoke

        host_tools = [
            FunctionTool(
                name=tool.name,
                description=tool.description,
                params_json_schema=tool.schema,
                on_invoke_tool=backed(tool),
                strict_json_schema=False,
            )
            for tool in task.tools
        ]
        agent = self.agent.clone(
            tools=[*self.agent.tools, *host_tools],
            instructions=self.agent.instructions or task.instructions,
        )
        result = run_coroutine(
            Runner.run(agent, task.prompt, max_turns=self.max_turns, run_config=self.run_config)
        )
        return Decision("completed", result.final_output)
