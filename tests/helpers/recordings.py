"""The real recordings in ``fixtures/`` with their hand counts (each folder's SOURCE.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from helpers.paths import FIXTURES


@dataclass(frozen=True)
class Recording:
    """One real recording and what its SOURCE.md counted by hand."""

    path: Path
    format: str
    calls: int
    failed: int
    problems: int = 0
    regex: str | None = None
    failed_with_regex: int | None = None


def _r(folder: str, name: str, fmt: str, calls: int, failed: int, **kw: object) -> Recording:
    return Recording(FIXTURES / folder / name, fmt, calls, failed, **kw)  # type: ignore[arg-type]


RECORDINGS: tuple[Recording, ...] = (
    _r("claude-code", "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl", "claude-code", 12, 1),
    _r("claude-code", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", "claude-code", 21, 3),
    _r("claude-code", "fe5e1c67-53e7-4862-81ae-d0e013e3270b.first226.jsonl", "claude-code", 87, 11),
    # 2.x: six sub-agents' transcripts in <session>/subagents/, read with the session
    _r("claude-code", "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl", "claude-code", 117, 3),
    # resumed: one record copied under its uuid into the new session, read once
    _r("claude-code", "e9f146fa-3b20-48d0-9be4-d99ca901cae4.resumed.jsonl", "claude-code", 30, 2),
    # line 172 holds two records, one after the other with no line break between them
    _r("claude-code", "entireio_63_590d292e96_0_full.jsonl.gz", "claude-code", 78, 2),
    # the Agent SDK's stream-json records as a test harness dumped them: {messages: [...]}
    _r("claude-code", "openinference_claude_agent_sdk_query_tool_spans.yaml", "claude-code", 1, 0),
    # ... and as logfire records the SDK's transport: each record in a {direction, message} envelope
    _r("claude-code", "logfire_claude_agent_sdk_tool_use_conversation.json", "claude-code", 1, 0),
    # exit codes the agent was shown; exec_command_end of a call that said "Process running"
    # belongs to the write_stdin poll that reports it (fixtures/codex/SOURCE.md)
    _r(
        "codex",
        "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl.gz",
        "codex",
        105,
        4,
    ),
    _r(
        "codex",
        "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl.gz",
        "codex",
        38,
        1,
    ),
    # Codex 0.40 (VS Code): no exec_command_end; failures in the output only, two of them
    # written by Codex itself ("patch rejected by user", "execution error: ...")
    _r(
        "codex",
        "rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl.gz",
        "codex",
        123,
        12,
    ),
    _r(
        "codex",
        "rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl.gz",
        "codex",
        84,
        4,
    ),
    # status error/cancelled, plus shell commands whose output reports a non-zero exit code
    _r("gemini-cli", "session-2026-03-18T01-46-50316244.json", "gemini-cli", 6, 1),
    _r("gemini-cli", "session-2026-03-18T01-58-b26e4930.json", "gemini-cli", 8, 1),
    # a shell call cancelled while it ran: its output so far and the error, both served
    _r("gemini-cli", "session-2026-03-18T01-56-3afe7bdc.json", "gemini-cli", 4, 2),
    _r("gemini-cli", "matrix_pro_run2.json", "gemini-cli", 50, 2 + 10),
    _r("tau2-bench", "whissle_airline_run1.tasks-9-20-25.json", "tau2-bench", 19, 7),
    _r("tau2-bench", "activegraph_20260601-033142-413096.results.json", "tau2-bench", 9, 2),
    _r("tau2-bench", "activegraph_20260531-184109-726391.results.json", "tau2-bench", 15, 0),
    # leaderboard submissions: the simulations alone, and in a submitter's own wrapper object
    _r("tau2-bench", "adaptive_agent_airline_list.tasks-13-23-46.json", "tau2-bench", 17, 1),
    _r("tau2-bench", "adaptive_agent_airline_wrapped.tasks-7-46-48.json", "tau2-bench", 9, 1),
    # a results object of a fork's custom domain; one simulation makes no call
    _r("tau2-bench", "blakeelias_tau2_airline_relaxed_grok-3-mini.json", "tau2-bench", 16, 1),
    # a custom domain whose user simulator calls tools too: 8 user calls, 7 of them failed
    _r("tau2-bench", "restaurant_user_tools.sims-1-4.json", "tau2-bench", 19, 9),
    # a writer that dropped ``error``: tau2's own "Error: ..." text, read by the error rule
    _r(
        "tau2-bench",
        "toolorchestra_airline_no_error_flag.sims-7-9-43.json",
        "tau2-bench",
        23,
        5,
        regex="^Error: Payment",
        failed_with_regex=3,
    ),
    _r("inspect-ai", "2025-05-12T20-27-36-04-00_browser.json", "inspect-ai", 4, 0),
    _r("inspect-ai", "log_message_deduplication.eval", "inspect-ai", 5, 0),
    _r("swe-agent", "6e44b9__sweagenttestrepo-1c2844.traj", "swe-agent", 5, 0),
    _r(
        "swe-agent",
        "marshmallow-code__marshmallow-1867.function_calling_replace.traj",
        "swe-agent",
        11,
        0,
        regex="introduced new syntax error",
        failed_with_regex=1,
    ),
    # six epochs; each sample's submit call is in its events only (react() drops it)
    _r("inspect-ai", "metr_small.eval", "inspect-ai", 76, 0),
    # the sample crashed in its last call: the tool event says it failed
    _r("inspect-ai", "inspect_agents_eval_status-error.json.gz", "inspect-ai", 5, 1),
    # ToolCallError timeout x5 and unicode_decode x1 (Transluce's docent sample log)
    _r("inspect-ai", "docent_luce_intercode_ctf_gpt-4o.eval", "inspect-ai", 121, 6),
    # docent's and METR's logs in Inspect's chunked layout (inspect_ai 0.3.285's converter)
    _r("inspect-ai", "docent_luce_intercode_ctf_gpt-4o.chunked.eval", "inspect-ai", 121, 6),
    _r("inspect-ai", "metr_small.chunked.eval", "inspect-ai", 76, 0),
    # SWE-agent 0.x: commands in the model's text, calls read from trajectory[] steps
    _r("swe-agent", "swe-agent__test-repo-i1.traj", "swe-agent", 5, 0),
    # a demonstration: history alone
    _r("swe-agent", "function_calling_simple.traj", "swe-agent", 5, 0),
    # mini-swe-agent, version 1's shape: commands in the text, failures by <returncode>
    _r("swe-agent", "mini_swe_agent_github_issue.traj.json", "swe-agent", 10, 2),
    # mini-swe-agent 2.x, tool calls: the exit message answers the submitting call; an
    # exit after an API error answers none, and timeouts fail by exception_info
    _r("swe-agent", "mini_swe_agent_v2_toolcall_sqlfluff-2419.traj.json", "swe-agent", 41, 5),
    _r("swe-agent", "mini_swe_agent_v2_toolcall_pvlib-1072.traj.json", "swe-agent", 15, 3),
    # ... and 1.x as SWE-bench's bash-only board ran it: ```bash blocks, the object form
    _r("swe-agent", "mini_swe_agent_v1_gemini_xarray-4629.traj.json", "swe-agent", 18, 2),
    # two commands killed past mini-swe-agent 1.x's timeout (its own message, no return code)
    _r("swe-agent", "mini_swe_agent_v1_gemini_django-16502.traj.json", "swe-agent", 26, 2),
    # Gemini CLI's JSONL session log: messages rewritten by id as their calls finish
    _r("gemini-cli", "0ab84937-9fe7-4284-986a-33c832af0b6a.session.jsonl", "gemini-cli", 12, 0),
    _r("openhands", "basic_gui_mode.json", "openhands", 4, 1),
    # the terminal finish call has no observation by design (R36): 3 boundaries
    _r("openhands", "wrong_initial_state.json", "openhands", 3, 0),
    # the model's arguments of an edit, which the action records as OpenHands' own
    _r("openhands", "basic.json", "openhands", 1, 0),
    # the 2024 resolver: before function calling, its history flattened (event_to_memory)
    _r("openhands", "resolver_mock_output.jsonl", "openhands", 24, 0),
    # an evaluation's output.jsonl: a line an instance, its events in history; a run each
    _r("openhands", "multi_swe_bench_output.jsonl.gz", "openhands", 103, 19),
    # an output.jsonl record kept as a one-item JSON array (stop 40)
    _r("openhands", "python_openhands_output_formatted.json.gz", "openhands", 19, 6),
    # the agent SDK's evaluation output of Oct 2025: failed edits say so in ``error`` only
    _r(
        "openhands",
        "openagentsafety_gpt-4o_output.critic_attempt_1.jsonl.gz",
        "openhands",
        387,
        43,
        problems=2,
    ),
    # sessions as folders, an event a file: classic events/<id>.json, the SDK's event-*.json
    _r("openhands", "session-63b4315947a049e2b7a51249b3d4fcc3", "openhands", 2, 0),
    _r("openhands", "sdk-confirmation_mode", "openhands", 3, 0),
    # the agent SDK 1.58.2's own session folder (SYNTHETIC): a terminal's exit 1, an agent error
    _r("openhands", "generated-openhands-sdk-1.58.2-terminal", "openhands", 4, 2),
    # the agent SDK (OpenHands V1): its per-event files joined into an array
    _r("openhands", "sdk-cd94562403b9487ebdd4018e3f531dfd.events.json", "openhands", 2, 0),
    _r(
        "agentdojo",
        "claude-3-5-sonnet-20241022__workspace__user_task_37__none__none.json",
        "agentdojo",
        4,
        1,
    ),
    _r(
        "agentdojo",
        "gemini-2.0-flash-001__slack__user_task_9__important_instructions__injection_task_3.json",
        "agentdojo",
        6,
        2,
    ),
    _r(
        "agentdojo",
        "gpt-4o-2024-05-13__slack__user_task_5__important_instructions__injection_task_5.json",
        "agentdojo",
        9,
        1,
    ),
    # the newer block content ({"type": "text", "content": ...}) and null ids
    _r(
        "agentdojo",
        "Meta-SecAlign-70B__slack__user_task_10__important_instructions__injection_task_4.json",
        "agentdojo",
        9,
        2,
    ),
    # stopped at the step limit: the 16th call never run (a terminal call); ids all ""
    _r(
        "agentdojo",
        "gemini-1.5-flash-001__travel__user_task_19__important_instructions__injection_task_2.json",
        "agentdojo",
        15,
        3,
    ),
    # Ruby's VCR (ruby_llm; a !binary request body) and R's vcr (ellmer: 4 trials, 2 calls)
    _r(
        "chat-cassettes",
        "ruby_llm_gpt-5-nano_tools_in_multi-turn_conversations.yml",
        "openai-responses",
        2,
        0,
    ),
    _r(
        "chat-cassettes",
        "ruby_llm_deepseek-chat_respects_specific_tool_choice.yml",
        "openai-chat",
        1,
        0,
    ),
    _r("chat-cassettes", "ellmer_parallel-tool-uneven.yml", "openai-responses", 2, 0),
    # a JSON schema on a line of its own in a YAML block scalar: still a cassette, not a log
    _r("chat-cassettes", "pydantic_ai_test_openai_prompted_output.yaml", "openai-chat", 1, 0),
    # Snowflake Cortex: a blank legacy function_call on every reply, which calls nothing
    _r("chat-cassettes", "pydantic_ai_snowflake_tool_calling.yaml", "openai-chat", 1, 0),
    # Anthropic runs code once, then Gemini (called after it) twice: each API's run is read
    _r(
        "chat-cassettes",
        "pydantic_ai_google_test_receive_history_from_another_provider.yaml",
        "gemini-api",
        3,
        0,
    ),
    # the call's answer is in a request OpenAI refused (HTTP 400: audio in a tool's answer)
    _r(
        "chat-cassettes",
        "pydantic_ai_multimodal_direct-binary-audio-openai_chat.yaml",
        "openai-chat",
        1,
        0,
    ),
    _r(
        "chat-cassettes",
        "pydantic_ai_multimodal_tool_return_content-url-audio-openai_chat.yaml.gz",
        "openai-chat",
        1,
        0,
    ),
    _r("mcp", "test_mcptoolset_in_temporal_workflow.yaml", "mcp", 1, 0),
    _r("mcp", "mock_session.json", "mcp", 4, 0),  # devhelm's mcp-recorder cassette
    _r("mcp", "echo-session.jsonl", "mcp", 1, 0),  # toddegray's mcp-recorder stdio log
    # mcp-arcade's receipts: wire[] of {direction: out | in, message}, several sessions
    _r("mcp", "docker-fixture.naive.receipt.json", "mcp", 6, 0),
    _r("mcp", "ollama-intern-mcp.unlisted.receipt.json.gz", "mcp", 6, 1),
    _r("mcp", "mcp_cassette_sampling.mcp.json", "mcp", 1, 0),  # cheneeheng's mcp-cassette
    _r("mcp", "agent_vcr_calculator-errors.vcr", "mcp", 3, 2),  # agent-vcr's sample recording
    # chatlas: the MCP server's side and the Responses API's side of one call, in one cassette
    _r("mcp", "chatlas_test_call_http_mcp_tool.yaml", "mcp", 1, 0),
    # mcp-debug 1.1.0's --record session files, written by it at stop 41 (SYNTHETIC runs)
    _r("mcp", "generated-mcp-debug-1.1.0-servers.jsonl", "mcp", 13, 5),
    _r("mcp", "generated-mcp-debug-1.1.0-concurrent.jsonl", "mcp", 9, 3),
    # goose's own MCP replay files (STDIN: / STDOUT: / STDERR: lines), stop 43
    _r("mcp", "goose-uvxmcp-server-fetch", "mcp", 1, 1),  # isError: true
    _r("mcp", "goose-cargorun--quiet-pgoose-server--bingoosed--mcpdeveloper", "mcp", 1, 1),
    _r("mcp", "goose-npx-y@modelcontextprotocol_server-everything", "mcp", 5, 0),
    _r("otel", "tempo_export_with_batches.json", "otel", 1, 0),  # kagent, via Grafana Tempo
    # one claims agent under three frameworks (agentic-otel's traces): Strands' content in span
    # events, pydantic-ai's "running tool" spans, OpenLLMetry's LangChain records
    _r("otel", "agentic-otel_framework_strands.json", "otel", 3, 0),
    _r("otel", "agentic-otel_framework_pydantic_ai.json", "otel", 3, 0),
    _r("otel", "agentic-otel_framework_langchain.json.gz", "otel", 3, 0),
    _r("otel", "adk_py_v2_default_S6b.json", "otel", 1, 1),  # Google ADK Python 2.10
    # ADK with its own attributes off, content on the model calls' spans, or in events only
    _r("otel", "adk_py_v2_span_only_nolegacy_S2.json", "otel", 2, 0),
    _r("otel", "adk_py_v2proj_event_only_S6b.json", "otel", 1, 1),
    _r(
        "openai-responses",
        "test_openai_previous_response_id_seed_auto_chains_through_retries.yaml",
        "openai-responses",
        2,
        0,
        regex=r"Fix the errors and try again\.$",
        failed_with_regex=1,
    ),
    _r(
        "openai-responses",
        "test_openai_responses_model_web_search_tool_with_user_location.yaml",
        "openai-responses",
        1,
        0,
    ),
    _r(
        "openai-responses",
        "test_openai_responses_model_mcp_server_tool_with_connector.yaml",
        "openai-responses",
        2,
        2,
    ),
    # streamed; the call is resent under its item id as call_id and answered: one call
    _r("openai-responses", "test_openai_responses_stream.yaml", "openai-responses", 1, 0),
    # one custom_tool_call answered; the streamed one never is (the test stopped): a problem
    _r("openai-responses", "test_custom_tool.yaml.gz", "openai-responses", 1, 0, problems=1),
    # built-in tools run by the client: apply_patch (the streamed call never answered), and
    # tool_search run by the client and by the server (langchain-openai 1.8.1)
    _r("openai-responses", "test_apply_patch.yaml.gz", "openai-responses", 1, 0, problems=1),
    _r("openai-responses", "test_client_executed_tool_search.yaml.gz", "openai-responses", 2, 0),
    _r("openai-responses", "test_tool_search.yaml.gz", "openai-responses", 2, 0),
    # background mode: each POST answered "queued", the output fetched by GET polls
    _r(
        "openai-responses",
        "pydantic_ai_background_mode_with_tool_vcr.yaml",
        "openai-responses",
        1,
        0,
    ),
    # a stateless client resending the whole history without item ids, rewritten
    # (pydantic-ai): one conversation, its hosted search read once
    _r(
        "openai-responses",
        "pydantic_ai_hosted_tool_search_stateless_without_item_ids.yaml",
        "openai-responses",
        2,
        0,
    ),
    # Go's httprr traces (raw HTTP): OpenAI chat (langchaingo), the Gemini API (adk-go)
    _r(
        "chat-cassettes",
        "langchaingo_TestOpenAIFunctionsAgentWithHTTPRR.httprr",
        "openai-chat",
        1,
        0,
    ),
    _r("chat-cassettes", "adk_go_TestFunctionTool.gemini.httprr", "gemini-api", 1, 0),
    # llm-gemini resends calls and answers in the proto's names (function_call, ...)
    _r("chat-cassettes", "llm-gemini_test_tools.yaml", "gemini-api", 2, 0),
    # crewAI answers three parallel calls in three user contents, one a response
    _r(
        "chat-cassettes",
        "crewai_TestGeminiNativeToolCalling.test_gemini_parallel_native_tool_calling_test_crew.yaml",
        "gemini-api",
        3,
        0,
    ),
    _r(
        "chat-cassettes",
        "llm-gemini_test_tools_with_gemini_3_thought_signatures.yaml",
        "gemini-api",
        1,
        0,
    ),
    # Claude on Amazon Bedrock, streamed: AWS event-stream frames recorded as !!binary
    _r(
        "chat-cassettes",
        "fantasy_bedrock_claude-opus-4-6_tool_streaming.go-vcr.yaml",
        "anthropic",
        1,
        0,
    ),
    # the Azure SDKs' test proxy (OpenAI's .NET library): two calls at once
    _r("chat-cassettes", "openai_dotnet_ParallelToolCalls.test-proxy.json", "openai-chat", 2, 0),
    # the Gemini API, streamed, in a go-vcr cassette: two calls at once with no ids
    _r(
        "chat-cassettes",
        "fantasy_gemini-2.5-flash_multi_tool_streaming.go-vcr.yaml",
        "gemini-api",
        2,
        0,
    ),
    # the OpenAI Agents SDK through vcrpy: gzip bodies; its failed tool says so in its text
    _r(
        "openai-responses",
        "openai_agents_test_agent_with_tool_errors.yaml",
        "openai-responses",
        1,
        0,
        regex=r"^An error occurred while running the tool",
        failed_with_regex=1,
    ),
    # a handoff: the second agent's request resends the first's items, one run
    _r(
        "openai-responses",
        "openai_agents_test_multiple_agent_handoffs.yaml",
        "openai-responses",
        2,
        0,
    ),
    # two function calls never answered, one web_search_call
    _r("openai-responses", "test_function_calling.yaml.gz", "openai-responses", 1, 0, problems=2),
    # Chat Completions and Anthropic Messages traffic: each request resends the conversation
    # (fixtures/chat-cassettes/SOURCE.md). Gemini calls first, then OpenAI with that history
    _r(
        "chat-cassettes",
        "pydantic_ai_openai_test_multiple_agent_tool_calls.yaml",
        "openai-chat",
        2,
        0,
    ),
    # one call, then pydantic-ai's output tool final_result: a terminal call (R36)
    _r("chat-cassettes", "pydantic_ai_openai_test_openai_tool_output.yaml", "openai-chat", 1, 0),
    # Groq refused the first request (HTTP 400); pydantic-ai's retry prompt says the call failed
    _r(
        "chat-cassettes",
        "pydantic_ai_groq_test_tool_use_failed_error.yaml",
        "openai-chat",
        2,
        0,
        regex=r"Fix the errors and try again\.$",
        failed_with_regex=1,
    ),
    _r(  # the same, streamed: the calls are put together from their chunks
        "chat-cassettes",
        "pydantic_ai_groq_test_tool_use_failed_error_streaming.yaml",
        "openai-chat",
        2,
        0,
        regex=r"Fix the errors and try again\.$",
        failed_with_regex=1,
    ),
    _r(
        "chat-cassettes",
        "pydantic_ai_anthropic_test_multiple_parallel_tool_calls.yaml",
        "anthropic",
        4,
        0,
    ),
    # server tools (text editor in code execution): two results are *_error objects
    _r(
        "chat-cassettes",
        "pydantic_ai_anthropic_test_anthropic_text_editor_code_execution_tool.yaml",
        "anthropic",
        4,
        2,
    ),
    # streamed: an MCP connector call and a code execution call, assembled from their events
    _r(
        "chat-cassettes",
        "pydantic_ai_anthropic_test_anthropic_mcp_servers_stream.yaml",
        "anthropic",
        1,
        0,
    ),
    _r(
        "chat-cassettes",
        "pydantic_ai_anthropic_test_anthropic_code_execution_tool_stream.yaml",
        "anthropic",
        1,
        0,
    ),
    # Gemini's built-in code execution: executableCode and codeExecutionResult parts
    _r("chat-cassettes", "pydantic_ai_google_test_code_execution.yaml", "gemini-api", 4, 0),
    # a code execution whose script raised (return_code 1), and a web_fetch called from code
    _r(
        "chat-cassettes",
        "pydantic_ai_anthropic_test_anthropic_supported_model_uses_20260209_web_tools.yaml",
        "anthropic",
        5,
        1,
    ),
    # crewAI resent one of five parallel calls: the four it dropped are never answered
    _r(
        "chat-cassettes",
        "crewai_test_max_usage_count_is_respected.yaml",
        "openai-chat",
        5,
        0,
        problems=4,
    ),
    # crewAI's tool error text: "Error executing tool: This tool always fails"
    _r(
        "chat-cassettes",
        "crewai_test_native_tool_calling_error_handling.yaml",
        "openai-chat",
        1,
        0,
        regex="^Error executing tool",
        failed_with_regex=1,
    ),
    _r(  # two conversations (planning, then the research crew), ten calls
        "chat-cassettes",
        "crewai_TestAnthropicStructuredPlanning.test_anthropic_research_workflow_generates_steps.yaml.gz",
        "anthropic",
        10,
        0,
    ),
    # an HTTP Archive (Polly.js): the first call fails with is_error: true, the retry succeeds
    _r(
        "chat-cassettes",
        "mirascope_handles-tool-execution-errors-and-retries.har",
        "anthropic",
        2,
        1,
    ),
    # streamed web searches; the client resends the turn without its server tool blocks
    _r(
        "chat-cassettes",
        "mirascope_test_web_search_tool_stream__anthropic_claude_sonnet_4_0.yaml.gz",
        "anthropic",
        5,
        0,
    ),
    # the same test recorded three times in one cassette: three runs
    _r(
        "chat-cassettes",
        "mirascope_test_call_with_tools__openai_gpt_4o_completions__stream.yaml.gz",
        "openai-chat",
        6,
        0,
    ),
    # OpenAI Agents SDK handoff: the next agent's request changes the system prompt and resends
    # the handoff turn without its call, whose result it carries
    _r(
        "chat-cassettes",
        "dd_trace_test_multiple_agent_handoffs_with_chat_completions.yaml",
        "openai-chat",
        2,
        0,
    ),
    # aiohttp header names as !!python/object/apply tags; history with an "Error: ..." reply;
    # the response's own call is never answered
    _r(
        "chat-cassettes",
        "dd_trace_openai_chat_completions_post_1d538f35.yaml",
        "openai-chat",
        1,
        1,
        problems=1,
    ),
    # streamed with SSE lines padded by spaces
    _r("chat-cassettes", "llm_anthropic_test_tools.yaml", "anthropic", 2, 0),
    # Jaeger's JSON export of a kagent trace (tags, microseconds)
    _r("otel", "agentevals_kagent_helm_jaeger.json.gz", "otel", 1, 0),
    # the agent SDK's events.jsonl, an event a line; line 7 answers a call no action made
    _r("openhands", "sdk_goal_events_minimax.jsonl", "openhands", 2, 2, problems=1),
    # Go ADK: two parallel calls, and ADK's "execute_tool (merged)" span around them (no call)
    _r("otel", "kagent_alpha9_adk_go_1turn.json.gz", "otel", 2, 0),
    # Claude Code's own spans: claude_code.tool calls, failures on their execution child spans
    _r("otel", "kagent_alpha9_claude_native_1turn_subagent.json.gz", "otel", 27, 6),
    _r("otel", "kagent_alpha9_claude_recipe_2turn.json.gz", "otel", 10, 3),
    # codex exec 0.77.0: the "shell" tool, outputs as JSON text with metadata.exit_code
    _r(
        "codex",
        "rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl",
        "codex",
        3,
        0,
    ),
    # Gemini CLI, January 2026 (gemini-3-pro): write_todos and a delegate_to_agent call
    _r("gemini-cli", "session-2026-01-16T11-01-file-ops-37b7abef.json", "gemini-cli", 14, 0),
    # simonw/llm resends a streamed turn as two assistant messages (its text, then its calls)
    _r("chat-cassettes", "llm_test_tool_use_basic.yaml", "openai-chat", 1, 0),
    # Kimi K2 through OpenRouter: the call streamed twice under one index, id "0"
    _r("chat-cassettes", "llm_test_tools_streaming_variant_a.yaml", "openai-chat", 1, 0),
    # Datadog's test agent's one-exchange JSON cassette (Mistral): a history call and its answer
    _r(
        "chat-cassettes",
        "dd_trace_mistral_v1_chat_completions_post_5e983449.json",
        "openai-chat",
        1,
        0,
    ),
    # aviary (PaperQA): the tool raised, the agent saw "Encountered exception during tool call"
    _r(
        "chat-cassettes",
        "aviary_TestPaperQATaskDataset.test_tool_failure.yaml",
        "openai-chat",
        1,
        0,
        problems=1,
        regex="^Encountered exception during tool call",
        failed_with_regex=1,
    ),
    # 2.0.64: the sub-agent file beside the session (read with it; its Warmup run has no call)
    # Claude Code 2.1: a sub-agent with no file, read from the session's progress records
    _r("claude-code", "context-evaluator_22_c6a4f4faf5_0_full.jsonl.gz", "claude-code", 56, 5),
    _r(
        "claude-code/codemie-2.0.64",
        "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
        "claude-code",
        6,
        0,
    ),
    # Langfuse trace exports of four frameworks (TOOL observations); a JSON error text that a
    # regex fails; pydantic-ai's calls carry their ids in OpenTelemetry attributes
    _r("langfuse", "claude-agent-2025-12-22.trace.json", "langfuse", 2, 0),
    # BeeAI's ReAct agent: its calls only in its step updates (langfuse_beeai)
    _r("langfuse", "beeai-2025-08-01.trace.json", "langfuse", 2, 0),
    _r(
        "langfuse",
        "csharp-agent-with-gemini-2026-03-09.trace.json",
        "langfuse",
        2,
        0,
        regex='"response_status": "Error"',
        failed_with_regex=1,
    ),
    _r("langfuse", "pydantic-ai-tools-2025-12-04.trace.json", "langfuse", 3, 0),
    # a model client traced alone: calls in GENERATION outputs, results in the next one's input
    _r("langfuse", "anthropic-messages-api-2026-03-25.trace.json", "langfuse", 4, 0),
    _r("langfuse", "vercel-aisdk-2025-11-17.trace.json", "langfuse", 1, 0),
    # Koog marks its tool runs only by span names (tool.<Name>), read as its calls since stop 30
    _r("langfuse", "koog-2025-08-26.trace.json", "langfuse", 2, 0),
    # the UI's download keeps metadata as JSON text: the call id is in its attributes
    _r("langfuse", "google-adk-2025-08-28.trace.json", "langfuse", 1, 0),
    # tool runs that are spans named after the tool the model asked for (Agno, LangGraph)
    _r("langfuse", "agno-2025-06-11.trace.json", "langfuse", 1, 0),
    _r("langfuse", "langgraph-python-2025-08-22.trace.json", "langfuse", 1, 0),
    # the same run as Langfuse's API gives it: the ToolMessage's content a list
    _r("langfuse", "seeder-langgraph-2025-08-22.json", "langfuse", 1, 0),
    # Microsoft Agent Framework: gen_ai.tool.call.id a list, [run id, call id]
    _r("langfuse", "seeder-microsoft-agent-2025-10-14.json", "langfuse", 1, 0),
    _r("langfuse", "langgraph-js-2025-10-30.trace.json", "langfuse", 1, 0),
    # written by the newest releases of the tools themselves, driven by a scripted fake model
    # (SYNTHETIC runs): the failures each tool words its own way
    _r("inspect-ai", "generated-inspect-0.3.285-chat-completions.eval", "inspect-ai", 5, 4),
    _r("inspect-ai", "generated-inspect-0.3.285-scripted.eval", "inspect-ai", 24, 16),
    # three server tool uses (ContentToolUse) beside a function call; the MCP one failed
    _r("inspect-ai", "generated-inspect-0.3.285-server-tools.json", "inspect-ai", 4, 1),
    # the shapes 0.3.123-0.3.125 wrote: results as lists, objects or left out (null)
    _r("inspect-ai", "generated-inspect-0.3.125-server-tools.json", "inspect-ai", 7, 1),
    _r("codex", "generated-codex-0.171.0-unsupported-call.rollout.jsonl", "codex", 3, 2),
    _r("codex", "generated-codex-0.171.0-bad-arguments.rollout.jsonl", "codex", 3, 2),
    # OpenCode 1.18, as its own CLI wrote them (SYNTHETIC: a scripted fake model): a part is a
    # call and its result; status error, and a bash exit code of 2, fail them
    _r("opencode", "generated-opencode-1.18.33-run.jsonl", "opencode", 6, 2),
    _r("opencode", "generated-opencode-1.18.33-export.json", "opencode", 6, 2),
    _r("opencode", "generated-opencode-1.18.33.db", "opencode", 6, 2),
    # Codex 0.145's code mode: an exec script that failed ("Script failed") is a failure
    _r("codex", "entire-graph_03_0f3d39319d_0_full.jsonl.gz", "codex", 333, 1),
    # Codex 0.118: two calls a user's interrupt cut off ("aborted by user after N.Ns") fail
    _r("codex", "git-sync_9d_262b2fb550_0_full.first2222.jsonl.gz", "codex", 418, 61),
    # Codex 0.118: exit codes behind a 418-character command line fail the polls that show them
    _r("codex", "git-sync_33_dc63f83cff_0_full.jsonl.gz", "codex", 153, 16),
    _r("gemini-cli", "generated-gemini-0.61.0-bad.stream.jsonl", "gemini-cli", 3, 3),
    _r("codex", "generated-codex-0.171.0-patch-and-mcp.rollout.jsonl", "codex", 6, 3),
    _r("codex", "generated-codex-0.171.0-patch-and-mcp.exec.jsonl", "codex", 4, 2),
    _r("codex", "generated-codex-0.171.0-sandbox.rollout.jsonl", "codex", 3, 2),
    _r("swe-agent", "generated-mini-swe-agent-2.4.6-toolcall.traj.json", "swe-agent", 8, 4),
    _r("swe-agent", "generated-mini-swe-agent-2.4.6-responses.traj.json", "swe-agent", 6, 3),
    # Claude Code 2.1.332's session (its sub-agent's file beside it) and its stream-json output
    _r(
        "claude-code/generated-2.1.332",
        "4a49ac7d-94be-41f4-a0a5-888fd16b7968.jsonl",
        "claude-code",
        4,
        1,
    ),
    _r("claude-code/generated-2.1.332", "stream-json.jsonl", "claude-code", 4, 1),
    # the OpenAI client's OpenTelemetry instrumentation alone: a trace a model call, results as
    # separate tool messages, the GenAI events exported alone
    # the OpenAI Agents SDK traced by OpenInference and by Logfire (SYNTHETIC, scripted model)
    _r("otel", "generated-openai-agents-0.24.0-openinference.otlp.json", "otel", 5, 4),
    _r("otel", "generated-openai-agents-0.24.0-logfire.otlp.json", "otel", 5, 4),
    _r("otel", "generated-openai-v2-clientonly.otlp-traces.json", "otel", 3, 1),
    _r("otel", "generated-openai-v2-clientonly-onetrace.otlp-traces.json", "otel", 3, 1),
    _r("otel", "generated-openai-v2-eventonly.otlp-logs.json", "otel", 3, 1),
    _r("otel", "generated-adk-2.13.0-default-no-content.otlp.json", "otel", 1, 0),
    _r("otel", "generated-adk-2.13.0-raising-tool.otlp.json", "otel", 1, 1),
    _r("otel", "generated-pydantic-ai-2.78.0-final-result.otlp.json", "otel", 1, 0),
    _r("otel", "generated-pydantic-ai-2.78.0-raised-tool.otlp.json", "otel", 1, 1),
    # pydantic-ai 2.x tells the model a retry as {"error": ...}: no flag, read by the rule
    _r(
        "chat-cassettes",
        "generated-pydantic-ai-2.78.0-retry.cassette.yaml",
        "openai-chat",
        2,
        0,
        regex='^\\{"error":',
        failed_with_regex=1,
    ),
    # Gemini CLI 0.61.0 (SYNTHETIC, scripted model): shell commands stopped at the inactivity
    # timeout and killed by a signal, which the CLI reports successes, and a non-zero exit
    _r("gemini-cli", "generated-gemini-0.61.0-shell-stopped.stream.jsonl", "gemini-cli", 3, 3),
    _r("gemini-cli", "generated-gemini-0.61.0-shell-stopped.session.jsonl", "gemini-cli", 3, 3),
    # a real legacy session document of Copilot CLI 0.0.3xx (history-session-state/session_*.json)
    _r(
        "copilot-cli",
        "0b2a81da-02cf-4cbb-ae14-07c597b84f4e.history-session.json",
        "copilot-cli",
        15,
        0,
    ),
    # GitHub Copilot CLI 1.0.102 (SYNTHETIC, scripted model): denials and failures by the CLI's
    # success flag; a shell exit code the CLI calls a success; MCP and a sub-agent
    _r("copilot-cli", "generated-copilot-1.0.102-denials.events.jsonl", "copilot-cli", 6, 5),
    _r("copilot-cli", "generated-copilot-1.0.102-denials.stdout.jsonl", "copilot-cli", 6, 5),
    _r("copilot-cli", "generated-copilot-1.0.102-mcp-subagent.events.jsonl", "copilot-cli", 10, 5),
    _r("copilot-cli", "generated-copilot-1.0.102-mcp-subagent.stdout.jsonl", "copilot-cli", 10, 5),
    # Cline and Roo Code task histories (SYNTHETIC, written by hand from their source's wordings)
    _r("cline", "synthetic-cline-native.api_conversation_history.json", "cline", 10, 5),
    _r("cline", "synthetic-roo-xml.api_conversation_history.json", "cline", 8, 4),
    _r("cline", "synthetic-roo-native.api_conversation_history.json", "cline", 6, 5),
    # the same script through Copilot CLI's own OpenTelemetry file exporter (JavaScript spans)
    _r("otel", "generated-copilot-cli-1.0.102-file-exporter.jsonl", "otel", 10, 5),
    # stop 30's world round: instrumentation test cassettes of four more clients
    _r(
        "chat-cassettes",
        "otel-contrib_bedrock_invoke_model_tool_call_anthropic.yaml",
        "anthropic",
        2,
        0,
    ),
    _r(
        "chat-cassettes",
        "otel-contrib_bedrock_invoke_stream_tool_call_anthropic.yaml",
        "anthropic",
        2,
        0,
    ),
    _r("chat-cassettes", "otel-contrib_vertexai_test_tool_events.yaml", "gemini-api", 2, 0),
    _r("chat-cassettes", "openinference_google_adk_multi_tool_call.yaml", "gemini-api", 2, 0),
    _r("chat-cassettes", "otel-contrib_chat_tool_calls_with_content.yaml", "openai-chat", 2, 0),
    _r("chat-cassettes", "openllmetry_agno_agent_with_tools.yaml", "openai-chat", 1, 0),
    _r(
        "openai-responses",
        "openllmetry_openai_agents_router_handoff.yaml",
        "openai-responses",
        4,
        0,
    ),
    _r(
        "openai-responses",
        "openinference_agent_framework_multiple_tools.yaml",
        "openai-responses",
        2,
        0,
    ),
    # Amazon Bedrock's Converse API, plain and streamed (AWS event-stream frames)
    _r(
        "bedrock-converse",
        "otel-contrib_test_converse_tool_call_with_content.yaml",
        "bedrock-converse",
        2,
        0,
    ),
    _r(
        "bedrock-converse",
        "otel-contrib_test_converse_stream_with_content_tool_call.yaml",
        "bedrock-converse",
        2,
        0,
    ),
    # Nova's code interpreter, a tool the server runs, answered in the reply (plain, streamed)
    _r(
        "bedrock-converse",
        "pydantic-ai_test_bedrock_model_with_code_execution_tool.yaml",
        "bedrock-converse",
        3,
        0,
    ),
    _r(
        "bedrock-converse",
        "pydantic-ai_test_bedrock_model_code_execution_tool_stream.yaml",
        "bedrock-converse",
        1,
        0,
    ),
    # a toolResult of status error (pydantic-ai's ModelRetry)
    _r("bedrock-converse", "pydantic-ai_test_bedrock_model_retry.yaml", "bedrock-converse", 1, 1),
    # xAI (Grok) gRPC cassettes, pydantic-ai's .xai.yaml: client tools answered by ROLE_TOOL
    # messages with no id (by place), server tools answered in the reply (plain, streamed, MCP,
    # an attachment search answered by its status), a terminal call (the cassette whose one call
    # is never answered, 0 calls, is tests/test_load_xai.py's: nothing in it promotes)
    _r(
        "xai",
        "pydantic-ai_test_xai_request_tool_call.xai.yaml",
        "xai",
        2,
        0,
        regex="Fix the errors and try again",
        failed_with_regex=1,
    ),
    _r("xai", "pydantic-ai_test_xai_builtin_code_execution_tool_stream.xai.yaml", "xai", 1, 0),
    _r("xai", "pydantic-ai_test_xai_builtin_tools_with_custom_tools.xai.yaml", "xai", 2, 0),
    _r("xai", "pydantic-ai_test_xai_builtin_mcp_server_tool.xai.yaml", "xai", 1, 0),
    _r(
        "xai",
        "pydantic-ai_test_multimodal_tool_return_matrix_direct-binary-document.xai.yaml",
        "xai",
        2,
        0,
    ),
    _r(
        "xai",
        "pydantic-ai_test_xai_request_structured_response_tool_output.xai.yaml",
        "xai",
        1,
        0,
    ),
    # Google ADK 2.13.0's own session dumps (SYNTHETIC, scripted model)
    _r("google-adk", "generated-adk-2.13.0-error-callback.session.json", "google-adk", 4, 2),
    _r("google-adk", "generated-adk-2.13.0-raising-tool.session.json", "google-adk", 2, 1),
    # ADK's own test fixtures (adk test --rebuild): status error with "message"; 4 parallel
    _r("google-adk", "adk-python_pydantic_argument_test_create_company.json", "google-adk", 2, 2),
    _r("google-adk", "adk-python_parallel_functions_test_all_tools.json", "google-adk", 4, 0),
    _r("google-adk", "adk-js_skills_loader_events_turn_1.json", "google-adk", 1, 0),
    # ADK before 1.0 (December 2024): calls with no id, answered by options.function_call_event_id
    _r(
        "google-adk",
        "adk-python_context_update_test_successful_test.session.json",
        "google-adk",
        1,
        0,
    ),
    _r("google-adk", "adk-python_flow_complex_spark_sample.session.json", "google-adk", 2, 0),
    _r("google-adk", "generated-adk-2.13.0-runner.events.jsonl", "google-adk", 4, 3),
    _r("google-adk", "generated-adk-2.13.0-runner.session.snake.json", "google-adk", 4, 3),
    _r("google-adk", "generated-adk-2.13.0-api-server-run_sse-streaming.jsonl", "google-adk", 4, 3),
    _r(
        "google-adk",
        "generated-adk-2.13.0-api-server-run_sse-raising-tool.jsonl",
        "google-adk",
        2,
        1,
    ),
)
