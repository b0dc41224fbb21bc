"""The LLM agent re-drives the recorded conversation (SPEC R40): model fixtures while it
follows the recording, a divergence after a fault, then the model cache or the live client
(R41), with ``needs-model`` when there is none; a rerun from the cache writes the same bytes
(R22)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.llm import (
    CHAT_TRANSCRIPTS,
    OPENAI_REFUND,
    RESPONSES_RUN,
    ScriptedChatClient,
    answer,
    call,
    flipped,
    promoted,
)
from workbench._replay.events import events_to_jsonl


@pytest.mark.parametrize("path", CHAT_TRANSCRIPTS, ids=lambda p: p.name)
def test_no_client_reproduces_every_bundled_transcript_exactly(path: Path) -> None:
    """R40 acceptance: zero live calls, zero misses, every recorded call in order, every
    assistant turn a model fixture, and the recorded answer, so the suite passes."""
    promotion = promoted(path)
    client = ScriptedChatClient([])
    result = wb.replay(promotion.suite, wb.LLMAgent(client))
    assert client.requests == []
    assert result.fixture_miss_count == 0 and result.needs_model_count == 0
    assert result.passed
    scripted = wb.replay(promotion.suite)
    for llm_task, script_task, task in zip(
        result.tasks, scripted.tasks, promotion.suite.tasks, strict=True
    ):
        trial = llm_task.trials[0]
        assert trial.steps == script_task.trials[0].steps
        turns = [m for m in task["input"]["conversation"]["messages"] if m["role"] == "assistant"]
        assert trial.model_turns == wb.ModelTurns(recording=len(turns))


def test_a_responses_run_is_reproduced_too() -> None:
    """R40 for the Responses format (synthetic run)."""
    from workbench._load.responses import load_openai_responses

    loaded, _ = load_openai_responses(RESPONSES_RUN, "r.json", wb.ErrorRule.prefix("Error:"))
    result = wb.replay(wb.promote(loaded).suite, wb.LLMAgent())
    assert result.passed and result.tasks[0].trials[0].model_turns == wb.ModelTurns(recording=3)


def test_a_flip_makes_the_first_turn_after_it_needs_model() -> None:
    """R41 acceptance: with no client, the turn after the flipped result is needs-model;
    the trial is counted, neither passed nor failed, and left out of the score."""
    promotion = promoted(OPENAI_REFUND)
    result = wb.replay(flipped(promotion, 0), wb.LLMAgent(), trials=3)
    task = result.tasks[0]
    assert [t.decision.outcome for t in task.trials] == ["needs-model"] * 3
    assert all(t.model_turns == wb.ModelTurns(recording=1) for t in task.trials)
    assert [t.trajectory for t in task.trials] == ["find_customer_by_email!"] * 3
    assert "left the recording at message 4" in task.trials[0].decision.reason
    assert task.needs_model == 3 and task.stats.n == 0 and not task.passed
    entry = result.summary["tasks"][0]
    assert entry["needsModelCount"] == 3 and entry["trials"]["n"] == 0
    assert result.summary["needsModelCount"] == 3
    assert wb.validate_summary(result.summary) == []
    completed = [e for e in result.events if e["type"] == "agent.invocation-completed"]
    assert completed[0]["payload"]["outcome"] == "failed"
    assert completed[0]["payload"]["x-outcome"] == "needs-model"
    assert all(wb.validate_event(e) == [] for e in result.events)


def test_needs_model_trials_are_left_out_of_the_aggregate_and_of_recovery() -> None:
    """R41: a suite-level score over decided tasks only; sweep rows have no recovered value."""
    promotion = promoted(OPENAI_REFUND)
    swept = wb.sweep(promotion.suite, kinds=("flip",), agent=wb.LLMAgent())
    rows = swept.frame[swept.frame["variant"] != wb.BASELINE]
    needs = rows[rows["outcome"] == "needs-model"]
    assert len(needs) == 4 and needs["recovered"].isna().all()
    # b03 flips a call the recording already saw fail: the conversation is unchanged, so the
    # fault is untriggered (R37) and has no recovered value either (R38)
    b03 = rows[rows["variant"] == "b03-flip"]
    assert b03["triggered"].tolist() == [False] and b03["recovered"].isna().all()
    assert b03["passed"].tolist() == [True]
    rates = dict(
        zip(swept.per_boundary()["boundary"], swept.per_boundary()["recoveryRate"], strict=True)
    )
    assert math.isnan(rates[3])  # nothing triggered
    assert math.isnan(rates[0])  # nothing decided
    overall = swept.overall()
    assert (overall.needs_model, overall.untriggered, overall.triggered) == (4, 1, 0)


def test_after_a_divergence_the_client_answers_and_sees_the_failure() -> None:
    """R41: the request holds the conversation so far with the failed result, isError true;
    the model's call goes to the host, and its text answer ends the trial."""
    promotion = promoted(OPENAI_REFUND)
    client = ScriptedChatClient(
        [call("find_customer_by_email", {"email": "jamal.reyes@example.com"}), answer("Sorry.")]
    )
    result = wb.replay(flipped(promotion, 0), wb.LLMAgent(client, params={"temperature": 0}))
    trial = result.tasks[0].trials[0]
    assert len(client.requests) == 2
    first = client.requests[0]
    assert first.messages[-1]["role"] == "tool" and first.messages[-1]["isError"] is True
    assert first.params == {"temperature": 0} and first.model == "test-model"
    assert first.task_id == "run" and first.trial == 0
    assert [t["name"] for t in first.tools][:1] == ["find_customer_by_email"]
    assert trial.trajectory == "find_customer_by_email! > find_customer_by_email!"
    assert trial.decision == wb.Decision(
        "completed", "Sorry.", "the model answered", wb.ModelTurns(recording=1, live=2)
    )
    # the second call of the flipped entry is a miss (the entry was consumed): not a pass
    assert not trial.passed and trial.fixture_misses == 1


def test_a_rerun_with_the_cache_calls_no_model_and_writes_the_same_bytes(tmp_path: Path) -> None:
    """R41, R22: the cache file holds each live turn; the rerun serves them all from it."""
    promotion = promoted(OPENAI_REFUND)
    suite = flipped(promotion, 1)
    cache = tmp_path / "suite.model-cache.jsonl"
    client = ScriptedChatClient(
        [call("get_order_details", {"order_id": "#W4417"}, "x1"), answer("Done.")] * 2
    )
    first = wb.replay(suite, wb.LLMAgent(client, cache=cache), trials=2)
    assert len(client.requests) == 4 and len(cache.read_text().splitlines()) == 4
    again = ScriptedChatClient([])
    second = wb.replay(suite, wb.LLMAgent(again, cache=cache), trials=2)
    assert again.requests == []
    assert events_to_jsonl(second.events) == events_to_jsonl(first.events)
    assert second.summary == first.summary
    assert [t.model_turns for t in second.tasks[0].trials] == [
        wb.ModelTurns(recording=2, cache=2)
    ] * 2
    offline = wb.replay(
        suite, wb.LLMAgent(ScriptedChatClient([]), cache=cache, offline=True), trials=2
    )
    assert events_to_jsonl(offline.events) == events_to_jsonl(first.events)


def test_trials_draw_with_their_own_seed_and_key() -> None:
    """R41: each trial's request has its own seed, so its own cache key; a rerun has the same."""
    promotion = promoted(OPENAI_REFUND)
    client = ScriptedChatClient([answer("a")] * 6)
    wb.replay(flipped(promotion, 0), wb.LLMAgent(client), trials=3)
    seeds = [r.seed for r in client.requests]
    keys = [r.key for r in client.requests]
    assert len(set(seeds)) == 3 and len(set(keys)) == 3
    client_2 = ScriptedChatClient([answer("a")] * 6)
    wb.replay(flipped(promotion, 0), wb.LLMAgent(client_2), trials=3)
    assert [r.key for r in client_2.requests] == keys
    client_3 = ScriptedChatClient([answer("a")] * 6)
    wb.replay(flipped(promotion, 0), wb.LLMAgent(client_3), trials=3, seed=1)
    assert not set(r.key for r in client_3.requests) & set(keys)


def test_offline_with_no_cached_turn_is_needs_model_and_calls_nothing() -> None:
    """R41: --offline never calls the client; a request not in the cache is needs-model."""
    client = ScriptedChatClient([answer("x")])
    result = wb.replay(flipped(promoted(OPENAI_REFUND), 0), wb.LLMAgent(client, offline=True))
    assert client.requests == []
    assert result.tasks[0].trials[0].decision.outcome == "needs-model"
    assert "offline" in result.tasks[0].trials[0].decision.reason


def test_a_model_that_never_answers_is_stopped_and_fails() -> None:
    """max_model_turns bounds the model turns after a divergence."""
    client = ScriptedChatClient(
        [call("list_refunds", {"order_id": "#W4417"}, f"l{i}") for i in range(9)]
    )
    result = wb.replay(flipped(promoted(OPENAI_REFUND), 0), wb.LLMAgent(client, max_model_turns=3))
    trial = result.tasks[0].trials[0]
    assert len(client.requests) == 3
    assert trial.decision.outcome == "failed" and not trial.needs_model
    assert result.tasks[0].stats.n == 1


def test_a_task_with_no_conversation_fails_its_trial_with_a_clear_reason() -> None:
    """R25: the LLM agent needs the recorded conversation; a scripted-only task fails, named."""
    from helpers.paths import BILLING

    result = wb.replay(wb.promote(wb.load_runs(BILLING)).suite, wb.LLMAgent())
    trial = result.tasks[0].trials[0]
    assert not trial.passed and trial.agent_error is not None
    assert "input.conversation" in trial.agent_error


def test_a_bad_turn_from_a_client_fails_the_trial_not_the_replay() -> None:
    """A client answering something that is not an assistant turn is an agent error."""
    client = ScriptedChatClient([{"role": "user", "content": "?"}])
    result = wb.replay(flipped(promoted(OPENAI_REFUND), 0), wb.LLMAgent(client))
    assert "assistant turn" in str(result.tasks[0].trials[0].agent_error)


def test_cached_turns_pickle_with_the_agent_for_sweep_workers(tmp_path: Path) -> None:
    """Sweeps pickle the agent to workers: the cache travels with its entries and path."""
    import pickle

    agent = wb.LLMAgent(
        wb.OpenAIChatClient.connect("m", base_url="http://127.0.0.1:9/v1"),
        cache=tmp_path / "c.jsonl",
    )
    clone: Any = pickle.loads(pickle.dumps(agent))
    assert clone.cache.path == tmp_path / "c.jsonl" and clone.client.model == "m"
