"""Framework agents run against the fixture host (SPEC R25): their tools are backed by it and
a failure reaches the model the way each framework surfaces a tool error (R17's text). Tested
offline with each framework's own test models: pydantic-ai's ``FunctionModel``, a custom
``Model`` for the OpenAI Agents SDK, LangChain's fake chat model in a LangGraph graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import workbench as wb
from helpers.llm import OPENAI_REFUND, flipped, promoted, require

pydantic_ai = require("pydantic_ai")
agents = require("agents")
langgraph = require("langgraph")

EMAIL = {"email": "jamal.reyes@example.com"}


def suite() -> wb.Suite:
    """The refund transcript with its first call flipped to a failure."""
    return flipped(promoted(OPENAI_REFUND), 0)


def test_pydantic_ai_agent_gets_host_tools_and_a_model_retry_on_failure() -> None:
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    seen: list[Any] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append((messages, info))
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart("find_customer_by_email", EMAIL, "c1")])
        return ModelResponse(parts=[TextPart("Could not look you up.")])

    agent = wb.PydanticAIAgent(pydantic_ai.Agent(FunctionModel(model)))
    result = wb.replay(suite(), agent)
    trial = result.tasks[0].trials[0]
    assert trial.trajectory == "find_customer_by_email!"
    assert trial.decision.answer == "Could not look you up."
    names = {t.name for t in seen[0][1].function_tools}
    assert {"find_customer_by_email", "refund_item"} <= names
    returned = [p for p in seen[1][0][-1].parts if isinstance(p, ToolReturnPart)]
    assert returned[0].outcome == "retried"
    assert str(returned[0].content).startswith('{"customer_id": "cust_20931"')
    first = seen[0][0][0]
    assert any("Lumen Home" in str(getattr(p, "content", "")) for p in first.parts) or (
        "Lumen Home" in str(first.instructions)
    )


def test_openai_agents_sdk_agent_reads_a_failure_as_the_tool_output() -> None:
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    seen: list[Any] = []

    class Scripted(Model):
        async def get_response(
            self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
        ) -> ModelResponse:
            seen.append((system_instructions, input, args[2] if len(args) > 2 else None))
            if len(seen) == 1:
                out: list[Any] = [
                    ResponseFunctionToolCall(
                        type="function_call",
                        call_id="c1",
                        name="find_customer_by_email",
                        arguments='{"email": "jamal.reyes@example.com"}',
                        id="fc1",
                        status="completed",
                    )
                ]
            else:
                text = ResponseOutputText(type="output_text", text="Sorry.", annotations=[])
                out = [
                    ResponseOutputMessage(
                        type="message",
                        id="m1",
                        role="assistant",
                        status="completed",
                        content=[text],
                    )
                ]
            return ModelResponse(output=out, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    sdk_agent = agents.Agent(name="support", model=Scripted())
    offline = agents.RunConfig(tracing_disabled=True)
    result = wb.replay(suite(), wb.OpenAIAgentsAgent(sdk_agent, run_config=offline))
    trial = result.tasks[0].trials[0]
    assert trial.trajectory == "find_customer_by_email!"
    assert trial.decision.answer == "Sorry."
    assert "Lumen Home" in str(seen[0][0])
    tool_output = seen[1][1][-1]
    assert tool_output["type"] == "function_call_output"
    assert str(tool_output["output"]).startswith('Error: {"customer_id": "cust_20931"')


def test_langgraph_graph_gets_host_tools_and_an_error_tool_message() -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, ToolMessage
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    replies = iter(
        [
            AIMessage(
                content="",
                tool_calls=[{"name": "find_customer_by_email", "args": EMAIL, "id": "c1"}],
            ),
            AIMessage(content="The lookup failed."),
        ]
    )
    seen: list[Any] = []

    def build(tools: Sequence[Any]) -> Any:
        model = GenericFakeChatModel(messages=replies)

        def agent(state: MessagesState) -> dict[str, Any]:
            seen.append(list(state["messages"]))
            return {"messages": [model.invoke(state["messages"])]}

        graph = StateGraph(MessagesState)
        graph.add_node("agent", agent)
        graph.add_node("tools", ToolNode(list(tools)))
        graph.add_edge(START, "agent")
        graph.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: END})
        graph.add_edge("tools", "agent")
        return graph.compile()

    result = wb.replay(suite(), wb.LangGraphAgent(build))
    trial = result.tasks[0].trials[0]
    assert trial.trajectory == "find_customer_by_email!"
    assert trial.decision.answer == "The lookup failed."
    error = seen[1][-1]
    assert isinstance(error, ToolMessage) and error.status == "error"
    assert str(error.content).startswith('{"customer_id": "cust_20931"')
