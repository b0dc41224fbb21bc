"""``workbench replay|sweep SUITE --agent llm`` (SPEC R40, R41): the recording alone, the model
cache beside the input, ``--offline``, and bad input answered with exit 2 and one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import workbench as wb
from helpers.cli import run_cli
from helpers.llm import OPENAI_REFUND, flipped, promoted


def write_suite(folder: Path, suite: wb.Suite) -> Path:
    path = folder / "refund.json"
    path.write_text(suite.to_json(), encoding="utf-8")
    return path


def test_replay_with_the_llm_agent_follows_the_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_suite(tmp_path, promoted(OPENAI_REFUND).suite)
    code, out, err = run_cli(capsys, "replay", path, "--agent", "llm")
    assert code == 0, err
    assert (
        "model turns: 6 from the recording, 0 from the cache, 0 live; 0 trial(s) needs-model" in out
    )


def test_a_flipped_suite_with_no_model_reports_needs_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_suite(tmp_path, flipped(promoted(OPENAI_REFUND), 0))
    code, out, _ = run_cli(capsys, "replay", path, "--agent", "llm", "--trials", "2")
    assert code == 1
    assert "2 trial(s) needs-model" in out


def test_sweep_with_the_llm_agent_counts_needs_model_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_suite(tmp_path, promoted(OPENAI_REFUND).suite)
    code, out, err = run_cli(
        capsys, "sweep", path, "--agent", "llm", "--kind", "flip", "--out", tmp_path / "out"
    )
    assert code == 0, err
    # b03 faults the call the recording already failed: untriggered (R37), in no rate (R38);
    # the other four ended needs-model (R41), in no rate either.
    assert "0/0 triggered variant-trials recovered (no rate, Wilson 95%); 1 untriggered" in out
    assert "baseline passed; 4 needs-model" in out


def test_offline_answers_from_the_cache_beside_the_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default cache is <input>.model-cache.jsonl; --offline serves a cached turn."""
    suite = flipped(promoted(OPENAI_REFUND), 0)
    path = write_suite(tmp_path, suite)

    class Sorry:
        name = "openai-chat"
        model = "gpt-test"

        def complete(self, request: wb.ChatRequest) -> dict[str, object]:
            return {"role": "assistant", "content": "Sorry, the lookup failed."}

    cache = tmp_path / "refund.model-cache.jsonl"
    wb.replay(suite, wb.LLMAgent(Sorry(), cache=cache))
    code, out, err = run_cli(
        capsys, "replay", path, "--agent", "llm", "--model", "gpt-test", "--offline"
    )
    assert code == 1, err  # the answer is not the recorded one: the trial fails as graded
    assert "0 from the recording" not in out and "1 from the cache, 0 live" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--model", "m"), "--model needs --agent llm"),
        (("--agent", "llm", "--model-base-url", "http://x/v1"), "--model-base-url needs --model"),
        (
            ("--agent", "llm", "--model", "m", "--model-api", "llama-cpp-server"),
            "needs --model-base-url",
        ),
        (("--agent", "llm", "--max-tokens", "0"), "--max-tokens must be at least 1"),
    ],
)
def test_bad_agent_options_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    path = write_suite(tmp_path, promoted(OPENAI_REFUND).suite)
    code, _, err = run_cli(capsys, "replay", path, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_corrupt_model_cache_exits_2_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_suite(tmp_path, promoted(OPENAI_REFUND).suite)
    (tmp_path / "refund.model-cache.jsonl").write_text(json.dumps({"key": 1}) + "\n")
    code, _, err = run_cli(capsys, "replay", path, "--agent", "llm")
    assert code == 2 and "refund.model-cache.jsonl, line 1" in err
    assert "Traceback" not in err
