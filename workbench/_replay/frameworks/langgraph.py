"""LangGraph graphs against the fixture host (SPEC R25): ``pip install 'workbench[langgraph]'``.

``build`` makes the graph from the task's tools (LangChain ``StructuredTool`` objects backed by
the host), so any graph that takes tools works: ``create_agent``/``create_react_agent``, or one
of your own with a ``ToolNode``. A failed call raises ``ToolException`` with R17's error text
and the tools handle it, which is how LangChain surfaces a tool error: a ``ToolMessage`` with
``status="error"`` holding that text. The graph's state is ``{"messages": [...]}``; the answer
is the last message's text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..agents import Decision, ToolInterface
from .common import HostTool, framework_task

__all__ = ["LangGraphAgent"]


class LangGraphAgent:
    """Run a LangGraph graph on each task, its tools served by the fixture host (R25).

    ``build(tools)`` returns a compiled graph for the task's tools (a list of LangChain tools);
    ``recursion_limit`` is LangGraph's step limit for one run.
    """

    agent_id = "workbench.langgraph"

    def __init__(self, build: Callable[[Sequence[Any]], Any], *, recursion_limit: int = 25) -> None:
        self.build = build
        """Makes the graph from the host-backed tools."""
        self.recursion_limit = recursion_limit
        """LangGraph's step limit."""

    def run(self, task_input: Any, tools: ToolInterface) -> Decision:
        """Run the graph on one trial of the task."""
        from langchain_core.tools import StructuredTool, ToolException

        task = framework_task(task_input, tools)

        def backed(tool: HostTool) -> Callable[..., str]:
            def call(**args: Any) -> str:
                result = tool.call(args)
                if result.is_error:
                    raise ToolException(result.error or "")
                return result.text

            return call

        lc_tools = [
            StructuredTool.from_function(
                func=backed(tool),
                name=tool.name,
                description=tool.description,
                args_schema={"title": tool.name, **tool.schema},
                handle_tool_error=True,
            )
            for tool in task.tools
        ]
        graph = self.build(lc_tools)
        messages: list[tuple[str, str]] = []
        if task.instructions:
            messages.append(("system", task.instructions))
        messages.append(("user", task.prompt))
        state = graph.invoke({"messages": messages}, {"recursion_limit": self.recursion_limit})
        last = state["messages"][-1]
        text = last.text if isinstance(getattr(last, "text", None), str) else last.content
        return Decision("completed", text)
