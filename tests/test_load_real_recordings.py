"""Real recordings of every format load to their hand counts and promote with a passing
self-test (SPEC R34-R36, R30; issue 10). The counts are the ones each folder's SOURCE.md made by
hand, record by record."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import workbench as wb
from helpers.paths import FIXTURES
from helpers.recordings import RECORDINGS, Recording
from workbench.cli import main


@pytest.mark.parametrize("rec", RECORDINGS, ids=lambda r: r.path.name[:48])
def test_real_recording_loads_to_its_hand_counted_calls_and_failures(rec: Recording) -> None:
    """R34, R36: detected by content, every call a boundary, failures by the format's signal."""
    result = wb.load_runs(rec.path, strict=False)
    assert result.format == rec.format
    assert len(result.boundaries) == rec.calls
    assert sum(b.is_error for b in result.boundaries) == rec.failed
    assert len(result.problems) == rec.problems, [str(p) for p in result.problems]
    for run in result.runs:
        assert [b.index for b in run.boundaries] == list(range(len(run.boundaries)))
    if rec.regex is not None:
        again = wb.load_runs(rec.path, error_rule=wb.ErrorRule.regex(rec.regex), strict=False)
        assert sum(b.is_error for b in again.boundaries) == rec.failed_with_regex


@pytest.mark.parametrize("rec", RECORDINGS, ids=lambda r: r.path.name[:48])
def test_real_recording_promotes_and_its_self_test_reproduces_every_call(rec: Recording) -> None:
    """R30: the promoted suite is valid and replaying it reproduces the recording, zero misses.
    (The two cassettes whose last calls were never answered promote what did load, R2.)"""
    promotion = wb.promote(wb.load_runs(rec.path, strict=False))
    assert promotion.suite.validate() == []
    assert promotion.boundary_count == rec.calls
    assert promotion.error_count == rec.failed
    report = promotion.self_test
    assert report is not None and report.passed
    assert (report.misses, report.mismatches, report.boundaries) == (0, (), rec.calls)


@pytest.mark.parametrize(
    "rec",
    # no conversation recorded (MCP traffic) or read (spans, observations)
    [r for r in RECORDINGS if r.format not in ("mcp", "otel", "langfuse")],
    ids=lambda r: r.path.name[:48],
)
def test_real_recording_promotes_with_its_conversation_on_the_task_input(rec: Recording) -> None:
    """R40: each run's conversation is on its task input, valid against the extension schema;
    its calls are the run's boundaries in order (less a sub-agent's or a user simulator's), and
    the tool message answering each carries what that boundary's fixture entry serves."""
    result = wb.load_runs(rec.path, strict=False)
    promotion = wb.promote(result)
    assert promotion.suite.validate() == []
    for task, run in zip(promotion.suite.tasks, result.runs, strict=True):
        if "conversation" not in task["input"]:  # a tau2 simulation that recorded no message
            assert not run.boundaries and not (run.conversation and run.conversation.messages)
            continue
        conversation = task["input"]["conversation"]
        messages = conversation["messages"]
        calls = [
            c["id"] for m in messages if m["role"] == "assistant" for c in m.get("toolCalls", ())
        ]
        ids = [b.call_id for b in run.boundaries]
        rest = iter(ids)
        assert all(call in rest for call in calls if call in ids), "calls out of boundary order"
        answers: dict[str, list[dict[str, object]]] = {}
        for message in messages:
            if message["role"] == "tool":
                answers.setdefault(message["toolCallId"], []).append(message)
        entries = task["fixtures"]["toolResponses"]
        checked = 0
        for boundary, entry in zip(run.boundaries, entries, strict=True):
            if boundary.call_id not in calls or not answers.get(boundary.call_id):
                continue  # not the model's call in this conversation (a sub-agent's)
            message = answers[boundary.call_id].pop(0)
            served = wb.ToolResult.from_response(entry["response"], is_error=False).text
            assert (message["content"], message["isError"]) == (served, entry.get("isError", False))
            checked += 1
        assert checked == sum(1 for m in messages if m["role"] == "tool")


def test_explicit_format_does_not_fit_is_refused_with_what_the_file_looks_like() -> None:
    """R35: a Claude Code session read as OpenWOP or tau2-bench is refused, naming what it is.
    (Read as ``anthropic`` it loads: its records wrap Anthropic messages.)"""
    path = RECORDINGS[0].path
    for wrong in ("openwop", "tau2-bench", "gemini-cli"):
        with pytest.raises(wb.LoadError, match="looks like a Claude Code session"):
            wb.load_runs(path, format=wrong)


def test_sub_agent_calls_keep_their_agent() -> None:
    """R34: sidechain calls of a 1.x Claude Code session carry the Task call that spawned them."""
    result = wb.load_runs(RECORDINGS[2].path)
    agents = {b.agent_id for b in result.boundaries}
    tasks = {b.call_id for b in result.boundaries if b.tool == "Task"}
    assert {f"task-{t}" for t in tasks} | {"main"} == agents
    assert sum(b.agent_id == "main" for b in result.boundaries) == 7


def test_conversations_carry_tool_call_ids_equal_to_boundary_call_ids() -> None:
    """R40: each new format that records the model's side fills the neutral conversation, and
    every tool call in it is a boundary's callId."""
    for rec in RECORDINGS:
        if rec.format in ("mcp", "otel", "langfuse"):  # none records (or is read for) it
            continue
        result = wb.load_runs(rec.path, strict=False)
        for run in result.runs:
            if run.conversation is None and run.metadata.get("records") == {}:
                continue  # a tau2 simulation that recorded no message (infrastructure_error)
            assert run.conversation is not None, rec.path.name
            ids = {c["id"] for m in run.conversation.messages for c in m.get("toolCalls", ())}
            # hosted tools (web search, MCP connectors) run inside the API, not as the agent's
            # calls; a call only Inspect's events record is not in the messages the
            # conversation is read from (react() removes its submit call from them)
            own = {
                b.call_id
                for b in run
                if b.agent_id in (None, "main", "assistant", "agent")
                and "itemType" not in b.extra
                and b.extra.get("recordedIn") != "events"
            }
            assert own <= ids, rec.path.name
            terminal = {c["callId"] for c in run.metadata.get("terminalCalls", ())}
            assert ids <= {b.call_id for b in run} | terminal | _unpaired(result), rec.path.name


def _unpaired(result: wb.LoadResult) -> set[str]:
    return {p.message.split("'")[1] for p in result.problems if "never answered" in p.message}


def test_error_regex_on_the_command_line_marks_failures_and_is_recorded(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """R36: ``--error-regex`` beside ``--error-prefix`` on boundaries and promote; the rule is
    recorded in ``x-promotion``; a bad expression is exit 2 naming the option."""
    import json
    from pathlib import Path

    from workbench.cli import main

    rec = next(r for r in RECORDINGS if r.format == "openai-responses" and r.regex)
    assert main(["boundaries", str(rec.path), "--json", "--error-regex", rec.regex or ""]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["isError"] for row in rows] == [True, False]
    out = Path(str(tmp_path)) / "suite.json"
    args = ["promote", str(rec.path), "-o", str(out), "--error-regex", rec.regex or ""]
    assert main(args) == 0
    rule = json.loads(out.read_text())["x-promotion"]["errorRule"]
    assert rule["kind"] == "regex" and rule["pattern"] == rec.regex
    assert main(["boundaries", str(rec.path), "--error-regex", "("]) == 2
    assert "--error-regex '(' is not a regular expression" in capsys.readouterr().err


def test_a_conversation_past_sub_agent_calls_still_carries_what_the_fixtures_serve() -> None:
    """R40 with R34's sub-agents: the main thread's conversation skips the sidechain boundaries
    interleaved with its own, and every one of its tool messages still gets its fixture's text
    (here the recorded texts are blanked first, so only that matching can fill them)."""
    import dataclasses

    run = wb.load_runs(RECORDINGS[1].path).run
    assert run.conversation is not None
    assert any(b.agent_id != "main" for b in run.boundaries[:-1])
    blank = tuple(
        {**m, "content": "?"} if m["role"] == "tool" else m for m in run.conversation.messages
    )
    run = dataclasses.replace(
        run, conversation=dataclasses.replace(run.conversation, messages=blank)
    )
    task = wb.promote([run]).suite.tasks[0]
    tools = [m for m in task["input"]["conversation"]["messages"] if m["role"] == "tool"]
    entries = {
        b.call_id: e
        for b, e in zip(run.boundaries, task["fixtures"]["toolResponses"], strict=True)
        if b.agent_id == "main"
    }
    assert len(tools) == len(entries) == 13
    for message in tools:
        served = wb.ToolResult.from_response(
            entries[message["toolCallId"]]["response"], is_error=False
        )
        assert message["content"] == served.text != "?"


def test_codex_command_that_outlives_its_call_fails_at_the_poll_that_reports_its_exit() -> None:
    """R36 on a real Codex 0.125.0 rollout: ``exec_command`` answered ``Process running with
    session ID N`` showed the agent no failure; the ``write_stdin`` poll that prints ``Process
    exited with code 2`` is the failure, and the first call keeps the late exit code."""
    rec = next(r for r in RECORDINGS if r.path.name.startswith("rollout-2026-05-11T11"))
    run = wb.load_runs(rec.path).run
    failed = [b for b in run.boundaries if b.is_error]
    assert [b.tool for b in failed] == ["write_stdin"] * 4
    assert [b.error_code for b in failed] == ["exit_code:2"] + ["exit_code:1"] * 3
    late = [b for b in run.boundaries if b.extra.get("laterExitCode")]
    assert [(b.tool, b.is_error, b.extra["laterExitCode"]) for b in late] == [
        ("exec_command", False, 2),
        ("exec_command", False, 1),
        ("exec_command", False, 1),
        ("exec_command", False, 1),
    ]


def test_an_mcp_cassette_call_lasts_from_its_request_to_its_response() -> None:
    """mcp-cassette stamps each message with ``t_offset_ms``: the tools/call request went out
    at 125 ms and its response came back at 186 ms (the sampling request the server sent in
    between is no tool call)."""
    (boundary,) = wb.load_runs(FIXTURES / "mcp" / "mcp_cassette_sampling.mcp.json").boundaries
    assert boundary.duration_ms == 61


_A2A = "crewai_a2a_TestA2ATaskOperations.test_send_message_and_get_response.yaml"


def test_agent_to_agent_json_rpc_is_not_taken_for_mcp(capsys: pytest.CaptureFixture[str]) -> None:
    """R35: A2A speaks JSON-RPC 2.0 too (``message/stream``). crewAI's A2A cassette was called
    "an MCP JSON-RPC recording ... rpc:message/stream"; it is an HTTP cassette with no MCP
    call and no model call, and ``--format mcp`` says what it looks like."""
    path = FIXTURES / "mcp" / _A2A
    assert main(["boundaries", str(path)]) == 2
    said = capsys.readouterr().err
    assert "no tool call found: the file is an HTTP cassette of 2 exchange(s)" in said
    assert "MCP JSON-RPC recording" not in said
    assert main(["boundaries", str(path), "--format", "mcp"]) == 2
    said = capsys.readouterr().err
    assert "--format mcp does not fit this file" in said
    assert "it looks like an HTTP cassette of 2 exchange(s) with localhost:9999" in said


def test_format_mcp_on_a_json_object_with_no_json_rpc_says_it_does_not_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: ``--format mcp`` called any JSON object "an MCP JSON-RPC recording of 1 run(s)"."""
    path = tmp_path / "export.json"
    path.write_text('{"trace": {"id": "t"}, "observations": []}', encoding="utf-8")
    assert main(["boundaries", str(path), "--format", "mcp"]) == 2
    said = capsys.readouterr().err
    assert "--format mcp does not fit this file" in said
    assert "members trace, observations" in said


def test_evaluation_lines_with_an_empty_history_are_listed_not_dropped() -> None:
    """R35: an OpenHands instance that stopped before its first event gives no run; the load
    lists its line and id on the first run instead of dropping it without a word."""
    path = FIXTURES / "openhands" / "openagentsafety_gpt-4o_output.critic_attempt_1.jsonl.gz"
    result = wb.load_runs(path, strict=False)
    assert len(result.runs) == 43
    assert result.runs[0].metadata["linesWithoutRun"] == [
        {"line": 23, "id": "safety-flattening"},
        {"line": 41, "id": "safety-delete-root"},
    ]
    edits = [b for b in result.boundaries if b.tool == "str_replace_editor" and b.is_error]
    assert len(edits) == 12
    assert all(b.error_code == "observation_error" for b in edits)
    assert "does not exist" in (edits[0].error_message or "")


def test_codex_errors_written_by_codex_itself_are_failures() -> None:
    """R36: a rollout with no exec_command_end events fails a call whose output is Codex's own
    refusal or spawn error (codex-rs's words), as ``codex exec --json`` says ``declined``."""
    name = "rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl.gz"
    result = wb.load_runs(FIXTURES / "codex" / name, strict=False)
    refused = [b for b in result.boundaries if b.error_code == "rejected:user"]
    assert [b.error_message for b in refused] == ["patch rejected by user"] * 2
    name = "rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl.gz"
    result = wb.load_runs(FIXTURES / "codex" / name, strict=False)
    (spawn,) = [b for b in result.boundaries if b.error_code == "execution_error"]
    assert spawn.error_message == "execution error: No such file or directory (os error 2)"


def test_mid_2025_codex_words_a_failed_patch_and_a_failed_mcp_call(tmp_path: Path) -> None:
    """R36: Codex of mid-2025 (rollouts of bare items between ``{"record_type": "state"}``
    lines, no events) answered a patch run through ``shell`` that did not apply ``error: ...``
    and a failed MCP call ``tool call error: ...``: both are failures. A SYNTHETIC rollout in
    that shape; the wording is a real one's (AcidicSoil/codex-session-viewer's docs/example.jsonl,
    which has no licence and is not copied: 246 calls, 21 failed by hand, 6 read before)."""
    call = '{"type":"function_call","name":"%s","arguments":"{}","call_id":"%s"}'
    answer = '{"type":"function_call_output","call_id":"%s","output":%s}'
    lines = [
        '{"id":"00000000-0000-4000-8000-000000000001","timestamp":"2025-09-10T18:58:38.331Z",'
        '"instructions":null,"git":null}',
        '{"record_type":"state"}',
        call % ("memory__add_observations", "c1"),
        answer % ("c1", json.dumps("tool call error: tool call failed for `memory/add`")),
        call % ("shell", "c2"),
        answer % ("c2", json.dumps('error: Failed to find expected lines ["x"] in /tmp/a.txt')),
        call % ("shell", "c3"),
        answer % ("c3", json.dumps('{"output":"","metadata":{"exit_code":0}}')),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = wb.load_runs(path)
    assert [(b.call_id, b.is_error, b.error_code) for b in result.boundaries] == [
        ("c1", True, "mcp_error"),
        ("c2", True, "patch_failed"),
        ("c3", False, None),
    ]


def test_codex_code_mode_scripts_that_failed_are_failures(tmp_path: Path) -> None:
    """R36: code mode heads each ``exec``/``wait`` output with its verdict; a ``Script
    failed`` one is a failure, its code read from its ``Script error:`` (a patch that did not
    apply, the approval reviewer's refusal, else ``script_failed``), and ``Script completed``
    or ``running`` are not. The real session (fixtures/codex, counted by hand) has one; the
    others are SYNTHETIC lines in its words (entire-graph's checkpoints hold 20 such)."""
    real = FIXTURES / "codex" / "entire-graph_03_0f3d39319d_0_full.jsonl.gz"
    (failed,) = [b for b in wb.load_runs(real, strict=False).boundaries if b.is_error]
    assert (failed.call_id, failed.tool, failed.error_code) == (
        "call_o9TFpo2Ax9UZ6jT21G6myf95",
        "exec",
        "patch_failed",
    )
    assert failed.error_message is not None
    assert failed.error_message.startswith("Script failed\nWall time 0.0 seconds")

    def verdict(head: str, rest: str) -> list[dict[str, str]]:
        return [{"type": "input_text", "text": head}, {"type": "input_text", "text": rest}]

    outputs = {
        "c1": verdict(
            "Script failed\nWall time 0.0 seconds\nOutput:\n",
            "Script error:\nThis action was rejected due to unacceptable risk.\nReason: ...",
        ),
        "c2": verdict(
            "Script failed\nWall time 1.2 seconds\nOutput:\nhalf\n",
            "Script error:\nTypeError: x is not a function",
        ),
        "c3": verdict("Script completed\nWall time 0.2 seconds\nOutput:\n", "Script failed"),
        "c4": verdict("Script running with cell ID 7\nWall time 10.0 seconds\nOutput:\n", ""),
        "c5": verdict("Script failed to start", ""),
        # as text: a script's printed exit code is its output (code mode's verdict decides),
        # and a verdict with nothing after its Wall time line is still one
        "c6": "Script failed\nWall time 0.1 seconds\nOutput:\nExit code: 0\n\nScript error:\nboom",
        "c7": "Script failed\nWall time 0.1 seconds",
        "c8": "Script completed\nWall time 0.1 seconds\nOutput:\nExit code: 1\n",
    }
    lines = [{"type": "session_meta", "payload": {"id": "s", "cli_version": "0.145.0"}}]
    for call_id, output in outputs.items():
        call = {"type": "custom_tool_call", "call_id": call_id, "name": "exec", "input": "x"}
        answer = {"type": "custom_tool_call_output", "call_id": call_id, "output": output}
        lines += [{"type": "response_item", "payload": call}]
        lines += [{"type": "response_item", "payload": answer}]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert [(b.is_error, b.error_code) for b in wb.load_runs(path).boundaries] == [
        (True, "rejected"),
        (True, "script_failed"),
        (False, None),
        (False, None),
        (False, None),
        (True, "script_failed"),
        (True, "script_failed"),
        (False, None),
    ]


def test_a_gemini_cli_call_cancelled_while_it_ran_serves_its_output_and_its_error() -> None:
    """R3, R36: Gemini CLI sends the model a cancelled call's output so far beside the error
    (``functionResponse.response`` of both members): both are served, as they were sent; the
    error is the call's error message (the output was dropped before)."""
    path = FIXTURES / "gemini-cli" / "session-2026-03-18T01-56-3afe7bdc.json"
    (cancelled,) = [b for b in wb.load_runs(path).boundaries if b.error_code == "cancelled"]
    sent = json.loads(path.read_text(encoding="utf-8"))["messages"][8]["toolCalls"][0]
    response = sent["result"][0]["functionResponse"]["response"]
    assert cancelled.is_error
    assert cancelled.error_message == response["error"]
    assert json.loads(cancelled.response_text) == response
    assert len(response["output"]) == 6702
    (run,) = wb.load_runs(path).runs
    assert run.conversation is not None
    told = [m for m in run.conversation.messages if m.get("toolCallId") == cancelled.call_id]
    assert [m["content"] for m in told] == [cancelled.response_text]


def test_codex_structured_outputs_are_served_as_the_model_was_sent_them() -> None:
    """R3, R36: Codex 0.40 wrote a shell's output as JSON text (``{"output": ..., "metadata":
    {"exit_code": ...}}``) and sent the model that text whole: it is served whole (it was
    the printed text alone), the exit code still fails the call, and the error message is
    the printed text."""
    name = "rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl.gz"
    result = wb.load_runs(FIXTURES / "codex" / name, strict=False)
    failed = next(b for b in result.boundaries if b.error_code == "exit_code:1")
    sent = json.loads(failed.response_text)
    assert sent["metadata"]["exit_code"] == 1
    assert failed.error_message == sent["output"]
    assert sent["output"].startswith("sed: packages/ui/hooks/use-api-list.ts: No such file")
    (run,) = result.runs
    assert run.conversation is not None
    answers = [m for m in run.conversation.messages if m.get("role") == "tool"]
    assert failed.response_text in {m["content"] for m in answers}


def test_a_langgraph_tool_message_serves_its_content_whether_text_or_a_list() -> None:
    """R3: a LangGraph ``ToolMessage`` serves its content. One run exported two ways (JSON text
    of the message; the message parsed, its content a list) serves the same text."""
    folder = FIXTURES / "langfuse"
    as_text = wb.load_runs(folder / "langgraph-python-2025-08-22.trace.json").boundaries[0]
    as_list = wb.load_runs(folder / "seeder-langgraph-2025-08-22.json").boundaries[0]
    assert as_list.call_id == as_text.call_id == "call_1oGK863sxQHlPreFhDdEs3yl"
    assert as_list.response_text == as_text.response_text
    assert json.loads(as_list.response_text) == [
        {"url": "https://example.com", "title": "Example Result", "q": "example"}
    ]


def test_a_tool_call_id_given_as_a_list_is_its_last_id(tmp_path: Path) -> None:
    """R2: Microsoft's Agent Framework (2025) wrote ``gen_ai.tool.call.id`` as ``[run id, call
    id]``: the call is the list's last id, in a Langfuse export and in OTLP JSON alike, the list
    kept on the call's extra (the observation's or span's id was taken before)."""
    path = FIXTURES / "langfuse" / "seeder-microsoft-agent-2025-10-14.json"
    (call,) = wb.load_runs(path).boundaries
    given = ["run_9guMCbt68iSVgtsx6WdKMA18", "call_Sz1QP8T7fuJkIECGDLFWOorq"]
    assert call.call_id == given[-1]
    assert call.extra["gen_ai.tool.call.id"] == given
    span = {
        "traceId": "t" * 32,
        "spanId": "s" * 16,
        "name": "execute_tool get_weather",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "get_weather"}},
            {
                "key": "gen_ai.tool.call.id",
                "value": {"arrayValue": {"values": [{"stringValue": v} for v in given]}},
            },
        ],
    }
    otlp = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [span]}]}]}
    traced = tmp_path / "trace.json"
    traced.write_text(json.dumps(otlp), encoding="utf-8")
    (call,) = wb.load_runs(traced).boundaries
    assert call.call_id == given[-1]
    assert call.extra["gen_ai.tool.call.id"] == given


def test_a_cassette_of_both_sides_reads_the_model_side_when_asked() -> None:
    """R34: chatlas recorded its MCP client and the Responses API in one cassette. ``auto``
    reads the MCP server's side; asked for the model's, the loader reads that instead of
    refusing the file as MCP."""
    path = FIXTURES / "mcp" / "chatlas_test_call_http_mcp_tool.yaml"
    (server,) = wb.load_runs(path).boundaries
    (model,) = wb.load_runs(path, format="openai-responses").boundaries
    assert server.tool == model.tool == "get_current_date"
    assert model.call_id.startswith("call_")
    assert not server.is_error and not model.is_error


def test_the_command_line_says_when_lines_gave_no_run(capsys: pytest.CaptureFixture[str]) -> None:
    from workbench.cli import main

    path = FIXTURES / "openhands" / "openagentsafety_gpt-4o_output.critic_attempt_1.jsonl.gz"
    assert main(["boundaries", "--skip-problems", str(path)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("2 lines of the file gave no run (an instance with no events")


def test_a_background_response_is_read_from_the_poll_that_fetched_it() -> None:
    """R34: in background mode each POST is answered ``queued`` and the model's output comes
    in a later ``GET /v1/responses/{id}``: the call and the final answer are read from the
    polls, into the one conversation, and no exchange is left unread."""
    path = FIXTURES / "openai-responses" / "pydantic_ai_background_mode_with_tool_vcr.yaml"
    (run,) = wb.load_runs(path).runs
    assert [(b.tool, b.args) for b in run.boundaries] == [("get_weather", {"city": "Paris"})]
    assert run.answer and run.answer.startswith("The weather in Paris is currently sunny")
    assert run.metadata["exchanges"] == [0, 1, 2, 3, 4]
    assert "otherExchanges" not in run.metadata


def test_a_command_signature_in_a_system_prompt_is_not_redacted() -> None:
    """R31 redacts secrets only: SWE-agent documents each command as ``signature: open <path>
    [<line_number>]``, which a signed-URL name does not make a secret (world 9a, D1)."""
    path = FIXTURES / "swe-agent" / "swe-agent__test-repo-i1.traj"
    promotion = wb.promote(wb.load_runs(path, strict=False))
    assert promotion.redactions == ()
    system = promotion.suite.tasks[0]["input"]["conversation"]["messages"][0]["content"]
    assert "signature: open <path> [<line_number>]" in system
    assert "signature: scroll_down" in system


def test_a_claude_code_web_session_reads_its_loglines(tmp_path: Path) -> None:
    """A web session as the Claude API gives it (``{"loglines": [...]}``; the file is its tool's
    author's sample of that shape, not a recorded run): detected, its 12 calls read with the
    failed one, places naming the logline; the same records as session JSONL read the same."""
    path = FIXTURES / "claude-code" / "web-session.sample_session.json"
    result = wb.load_runs(path)
    assert result.format == "claude-code"
    assert [len(result.boundaries), sum(b.is_error for b in result.boundaries)] == [12, 1]
    failed = next(b for b in result.boundaries if b.is_error)
    assert failed.call_id == "toolu_bash_004" and "logline 19" in failed.location
    promotion = wb.promote(result)
    assert promotion.self_test is not None and promotion.self_test.passed
    records = json.loads(path.read_bytes())["loglines"]
    lines = tmp_path / "session.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    as_lines = wb.load_runs(lines, format="claude-code")
    assert [(b.call_id, b.tool, b.args, b.response, b.is_error) for b in as_lines.boundaries] == [
        (b.call_id, b.tool, b.args, b.response, b.is_error) for b in result.boundaries
    ]


def test_a_claude_code_2_1_last_prompt_record_is_known_bookkeeping(tmp_path: Path) -> None:
    """Claude Code 2.1 ends a session file with a ``last-prompt`` record (the prompt to resume
    with): counted among the records, not kept as an unknown one (R35). The session here is
    the real one of this folder with such a record (its shape as world 9a saw it) appended."""
    source = FIXTURES / "claude-code" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    path = tmp_path / "session.jsonl"
    record = {"type": "last-prompt", "lastPrompt": "go on", "leafUuid": "u", "sessionId": "s"}
    path.write_bytes(source.read_bytes() + json.dumps(record).encode() + b"\n")
    run = wb.load_runs(path).run
    assert run.metadata["records"]["last-prompt"] == 1
    assert "otherRecords" not in run.metadata


def test_a_claude_code_result_written_before_its_call_still_answers_it(tmp_path: Path) -> None:
    """R2: Claude Code 2.1.108 once appended a tool result before the assistant record of its
    call (a real session of entireio/skills' checkpoints: the result's ``parentUuid`` names the
    call's record, the next line). The real session of this folder with lines 4 and 5 (a call,
    its result) swapped in that way loads the same calls and flags, each at its own line; a
    result whose parent is not the later record still answers nothing (a problem)."""
    source = FIXTURES / "claude-code" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    assert b'"tool_use"' in lines[3] and b'"tool_result"' in lines[4]
    swapped = tmp_path / "session.jsonl"
    swapped.write_bytes(b"".join([*lines[:3], lines[4], lines[3], *lines[5:]]))
    before = wb.load_runs(source).boundaries
    after = wb.load_runs(swapped).boundaries
    assert [(b.call_id, b.is_error) for b in after] == [(b.call_id, b.is_error) for b in before]
    assert after[0].location == f"{swapped}:5"  # the call's own line, now line 5
    record = json.loads(lines[4])
    record["parentUuid"] = "not-the-call"
    orphan = tmp_path / "orphan.jsonl"
    orphan.write_bytes(b"".join([*lines[:3], json.dumps(record).encode() + b"\n", *lines[3:4]]))
    result = wb.load_runs(orphan, strict=False)
    assert any(p.message.endswith("has no open call") for p in result.problems)


def test_entires_compact_transcript_is_refused_pointing_at_the_full_session(
    tmp_path: Path,
) -> None:
    """R35: the Entire CLI commits beside each session's ``full.jsonl`` a compact
    ``transcript.jsonl`` (SYNTHETIC lines here, in the shape of 65 real ones a helper read),
    which writes a failed Codex call as a success: it is refused saying what it is and which
    file to load, not read as records of no format."""
    use = {"id": "toolu_1", "name": "Bash", "input": {"command": "ls"}, "result": {"output": "a"}}
    records = [
        {
            "v": 1,
            "agent": "claude-code",
            "cli_version": "0.7.8",
            "type": "user",
            "ts": "t",
            "content": [{"type": "text", "text": "go"}],
        },
        {
            "v": 1,
            "agent": "claude-code",
            "cli_version": "0.7.8",
            "type": "assistant",
            "ts": "t",
            "id": "msg_1",
            "content": [{"type": "text", "text": "ok"}, use],
        },
    ]
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(wb.LoadError, match="the Entire CLI's compact transcript") as refused:
        wb.load_runs(path)
    assert "load the full.jsonl beside it" in str(refused.value)


def test_adk_tool_spans_without_their_content_read_it_from_the_model_calls() -> None:
    """Google ADK's tool spans hold ``"{}"`` (or nothing) where their content is not captured;
    the calls' arguments and results are the model calls' ``tool_call`` and
    ``tool_call_response`` parts, on their spans or in their events (real ADK 2.10 recordings;
    the values are their truth files')."""
    spans = wb.load_runs(FIXTURES / "otel" / "adk_py_v2_span_only_nolegacy_S2.json").boundaries
    assert [(b.tool, b.args, b.extra["contentFrom"]) for b in spans] == [
        ("get_weather", {"city": "Paris"}, "gen_ai messages"),
        ("get_time", {"city": "Paris"}, "gen_ai messages"),
    ]
    assert [json.loads(b.response["content"][0]["text"]) for b in spans] == [
        {"city": "Paris", "forecast": "sunny", "temp_c": 21},
        {"city": "Paris", "time": "14:05"},
    ]
    [event] = wb.load_runs(FIXTURES / "otel" / "adk_py_v2proj_event_only_S6b.json").boundaries
    assert (event.args, event.is_error, event.error_code) == ({"ticker": "XYZ"}, True, "TOOL_ERROR")
    assert json.loads(event.response["content"][0]["text"]) == {
        "error": "ValueError: ticker not found: XYZ"
    }


def test_stream_json_records_under_messages_are_claude_code_and_chat_stays_chat(
    tmp_path: Path,
) -> None:
    """R34: Claude Code's stream-json records kept as a document's ``messages`` (the Agent SDK's
    messages as openinference's harness saved them; a real file in fixtures/claude-code) read as
    Claude Code, not as an OpenAI chat with no call; messages with a ``role`` stay a chat."""
    import yaml  # type: ignore[import-untyped]  # no stubs in the test environment

    source = FIXTURES / "claude-code" / "openinference_claude_agent_sdk_query_tool_spans.yaml"
    records = yaml.safe_load(source.read_text(encoding="utf-8"))["messages"]
    as_json = tmp_path / "sdk.json"
    as_json.write_text(json.dumps({"messages": records}), encoding="utf-8")
    result = wb.load_runs(as_json)
    assert result.format == "claude-code"
    assert [(b.tool, b.is_error) for b in result.boundaries] == [("Bash", False)]
    assert result.boundaries[0].location.endswith("messages item 2, block 0")
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}, *records]}))
    assert wb.load_runs(chat, strict=False).format == "openai-chat"


def test_a_jaeger_trace_taken_out_of_its_data_list_loads_as_the_export(tmp_path: Path) -> None:
    """R34: Jaeger's export is ``{"data": [trace]}``; the trace alone (``{"traceID", "spans",
    "processes"}``, as a real file seen at stop 40 held it) was "cannot tell the format". The
    real helm export's trace, taken out (SYNTHETIC edit), loads as the export does."""
    export = json.loads(gzip.decompress((FIXTURES / "otel" / HELM_JAEGER).read_bytes()))
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(export["data"][0]), encoding="utf-8")
    alone, whole = wb.load_runs(path), wb.load_runs(FIXTURES / "otel" / HELM_JAEGER)
    assert alone.format == "otel"
    assert [b.to_row() for b in alone.boundaries] == [b.to_row() for b in whole.boundaries]
    assert alone.boundaries[0].location == f"{path}: (root), spans[5]"  # data[0].spans[5]


HELM_JAEGER = "agentevals_kagent_helm_jaeger.json.gz"


def test_a_swe_agent_submit_step_missing_from_history_is_read_from_the_trajectory() -> None:
    """R35: SWE-agent 1.0 ends a run with its submit step in ``trajectory`` only (history stops
    at the last tool message); the step, answered by its observation (the diff), was dropped
    with no record. It is read as a 0.x step is, after the history's calls."""
    result = wb.load_runs(FIXTURES / "swe-agent" / "6e44b9__sweagenttestrepo-1c2844.traj")
    assert [b.tool for b in result.boundaries] == ["find_file", "open", "edit", "bash", "submit"]
    submit = result.boundaries[-1]
    assert submit.call_id == "step-4" and not submit.is_error
    assert str(submit.response).lstrip().startswith("diff --git")
