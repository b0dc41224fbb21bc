"""The widget's LLM agent (R40, R41): the Replay tab offers it next to the scripted agent, offline
from the model cache by default or against an OpenAI-compatible base URL, and counts each run's
model turns by source (recorded / cached / live); the Sweep tab runs the same agent and counts
needs-model rows. Headless: widgets built in plain Python, values set, buttons clicked.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

import workbench as wb
from helpers.llm import OPENAI_REFUND, ScriptedChatClient, answer, promoted, require
from helpers.paths import BILLING
from workbench.widgets import Workbench


@pytest.fixture
def bench(tmp_path: Path) -> Workbench:
    return Workbench(promoted(OPENAI_REFUND), folder=tmp_path)


def pick_llm(bench: Workbench, **fields: Any) -> None:
    panel = bench.replay_panel
    panel.agent_choice.value = "llm"
    for name, value in fields.items():
        getattr(panel, name).value = value


def only_trial(result: wb.ReplayResult | None) -> wb.TrialResult:
    assert result is not None
    (task,) = result.tasks
    (trial,) = task.trials
    return trial


def test_offline_llm_agent_replays_the_recording_and_counts_its_turns(
    bench: Workbench, tmp_path: Path
) -> None:
    """Unedited, every model turn is served from the recording (model fixtures): the trial
    passes with no cache and no model, and the status and the table say 6 recorded, 0 live."""
    pick_llm(bench)
    panel = bench.replay_panel
    assert panel.llm_box.layout.display is None and panel.policy.layout.display == "none"
    panel.button.click()
    trial = only_trial(bench.replay_result)
    assert trial.passed and trial.model_turns == wb.ModelTurns(recording=6, cache=0, live=0)
    assert "<b>6</b> recorded, <b>0</b> cached, <b>0</b> live" in panel.status.value
    assert "turns recorded" in panel.results.value
    # The cache lives in the notebook's folder, never beside the data.
    assert panel.model_cache_path().parent == tmp_path
    assert not list(OPENAI_REFUND.parent.glob("*.model-cache.jsonl"))


def test_a_flip_without_a_model_ends_needs_model_as_the_library_does(bench: Workbench) -> None:
    """R41: once the run leaves the recording and nothing may answer, the trial is needs-model;
    the widget's run is exactly ``replay(suite, LLMAgent(None, offline=True))``."""
    bench.boundaries.flip(0)
    pick_llm(bench)
    bench.replay_panel.button.click()
    trial = only_trial(bench.replay_result)
    expected = only_trial(wb.replay(bench.suite, wb.LLMAgent(None, offline=True)))
    assert trial.needs_model and trial.decision.outcome == "needs-model"
    assert trial.model_turns == expected.model_turns
    assert "1 trial(s) needs-model" in bench.replay_panel.status.value
    assert "needs-model" in bench.replay_panel.policy_note.value


def test_offline_with_a_model_answers_from_the_cache_it_was_given(bench: Workbench) -> None:
    """R22/R41: turns a model gave before (here a scripted client standing in for
    ``openai-chat:m``) are answered from the cache file with no request: counted as cached."""
    bench.boundaries.flip(0)
    pick_llm(bench, model="m")
    cache_path = bench.replay_panel.model_cache_path()
    stand_in = ScriptedChatClient([answer("Refund issued after the retry.")], model="m")
    stand_in.name = wb.OpenAIChatClient.name  # the cache key names the client and the model
    filled = wb.replay(bench.suite, wb.LLMAgent(stand_in, cache=cache_path))
    assert only_trial(filled).model_turns is not None and len(stand_in.requests) == 1
    bench.replay_panel.button.click()
    trial = only_trial(bench.replay_result)
    assert trial.model_turns is not None
    assert (trial.model_turns.cache, trial.model_turns.live) == (1, 0)
    assert trial.decision.outcome == only_trial(filled).decision.outcome
    assert "<b>1</b> cached, <b>0</b> live" in bench.replay_panel.status.value


def test_a_base_url_without_a_model_is_refused_in_the_status(bench: Workbench) -> None:
    pick_llm(bench, base_url="http://127.0.0.1:9/v1", offline=False)
    assert bench.replay_panel.run() is None
    assert "a base URL needs a model name" in bench.replay_panel.status.value
    assert isinstance(bench.replay_panel.error, ValueError)


def test_a_task_without_a_conversation_says_the_llm_agent_cannot_drive_it(tmp_path: Path) -> None:
    bench = Workbench(BILLING, folder=tmp_path)
    pick_llm(bench)
    assert "has no recorded conversation" in bench.replay_panel.policy_note.value


def test_the_sweep_runs_the_replay_tabs_llm_agent_and_counts_needs_model(
    bench: Workbench,
) -> None:
    """The Sweep tab sweeps with the agent picked in the Replay tab; every flip that changes what
    the model sees ends needs-model offline, and the status counts those rows."""
    pick_llm(bench)
    bench.sweep_panel.kinds.value = ("flip",)
    result = bench.sweep_panel.run()
    assert result is not None
    expected = wb.sweep(bench.suite, agent=wb.LLMAgent(None, offline=True), kinds=("flip",))
    needs = int((result.frame["outcome"] == "needs-model").sum())
    assert needs == int((expected.frame["outcome"] == "needs-model").sum()) > 0
    assert f"{needs:,} trial row(s) <b>needs-model</b>" in bench.sweep_panel.status.value


class _Completions(BaseHTTPRequestHandler):
    """A minimal OpenAI-compatible chat completions endpoint on 127.0.0.1 (synthetic answers)."""

    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "model": body.get("model")})
        reply = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "The refund is on its way."},
                    "finish_reason": "stop",
                }
            ],
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def local_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Completions)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Completions.seen = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_online_with_a_base_url_asks_that_server_and_caches_the_turn(
    bench: Workbench, local_server: str
) -> None:
    """Not offline, with a model and a base URL: the turn the recording cannot give is asked of
    that server (counted live) and stored, so the same run offline is answered from the cache."""
    require("openai")
    bench.boundaries.flip(0)
    pick_llm(bench, model="local-model", base_url=local_server, offline=False)
    bench.replay_panel.button.click()
    trial = only_trial(bench.replay_result)
    assert trial.model_turns is not None and trial.model_turns.live == 1
    assert trial.decision.outcome == "completed"
    assert _Completions.seen == [{"path": "/v1/chat/completions", "model": "local-model"}]
    bench.replay_panel.offline.value = True
    bench.replay_panel.button.click()
    again = only_trial(bench.replay_result)
    assert again.model_turns is not None and (again.model_turns.cache, again.model_turns.live) == (
        1,
        0,
    )
    assert len(_Completions.seen) == 1
