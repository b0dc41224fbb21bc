"""pydantic-ai agents against the fixture host (SPEC R25): ``pip install 'workbench[pydantic-ai]'``.

The task's tools are given to the agent as a ``FunctionToolset`` for the run, each backed by
the host; a failed call raises ``ModelRetry`` with R17's error text, which is how pydantic-ai
tells its model a tool failed (the model sees it and may call again, up to ``tool_retries``
times; past that the run ends with pydantic-ai's error and the trial fails).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..agents import Decision, ToolInterface
from .common import HostTool, framework_task, run_coroutine

__all__ = ["PydanticAIAgent"]


class PydanticAIAgent:
    """Run a ``pydantic_ai.Agent`` on each task, its tools served by the fixture host (R25).

    ``agent`` brings its own model (``FunctionModel`` or ``TestModel`` in tests); the task's
    prompt and instructions come from the recorded conversation (see :mod:`.common`).
    """

    agent_id = "workbench.pydantic-ai"

    def __init__(self, agent: Any, *, tool_retries: int = 2) -> None:
        self.agent = agent
        """The pydantic-ai agent."""
        self.tool_retries = tool_retries
        """How many failures of one tool the agent may retry before its run fails."""

    def run(self, task_input: Any, tools: ToolInterface) -> Decision:
        """Run the agent on one trial of the task."""
        from pydantic_ai import ModelRetry, Tool
        from pydantic_ai.toolsets import FunctionToolset

        task = framework_task(task_input, tools)

        def backed(tool: HostTool) -> Callable[..., str]:
            def call(**args: Any) -> str:
                result = tool.call(args)
                if result.is_error:
                    raise ModelRetry(result.error or "")
                return result.text

            return call

        toolset = FunctionToolset(
            [
                Tool.from_schema(
                    backed(tool),
                    name=tool.name,
                    description=tool.description,
                    json_schema=tool.schema,
                )
                for tool in task.tools
            ],
            max_retries=self.tool_retries,
        )
        result = run_coroutine(
            self.agent.run(task.prompt, toolsets=[toolset], instructions=task.instructions)
        )
        return Decision("completed", result.output)
