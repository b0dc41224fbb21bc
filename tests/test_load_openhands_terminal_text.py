"""What the OpenHands agent SDK sent the model of a terminal's output (SPEC R42, R34).

``fixtures/openhands/generated-openhands-sdk-1.58.2-terminal`` is SYNTHETIC: a session folder the
SDK 1.58.2 wrote itself, its model a scripted fake server, which logged each request; the texts
below are the tool messages of those requests, as the server received them.
"""

from __future__ import annotations

import json
from pathlib import Path

import workbench as wb
from helpers.paths import FIXTURES

SESSION = FIXTURES / "openhands" / "generated-openhands-sdk-1.58.2-terminal"
SENT = [
    "gen31-hi\n[The command completed with exit code 0.]\n"
    "[Current working directory: /work/scratch/gen31/oh-work]\n"
    "[Python interpreter: /root/.pyenv/shims/python]\n[Command finished with exit code 0]",
    "cat: missing-gen31.txt: No such file or directory\n"
    "[The command completed with exit code 1.]\n"
    "[Current working directory: /work/scratch/gen31/oh-work]\n"
    "[Python interpreter: /root/.pyenv/shims/python]\n[Command finished with exit code 1]",
]


def test_a_terminals_result_is_served_as_the_model_was_sent_it() -> None:
    """R42: the events store a command's output alone; the model was sent it with the lines
    the SDK adds (exit code, working directory, interpreter), and so is a replayed agent."""
    result = wb.load_runs(SESSION)
    terminal = [b for b in result.boundaries if b.tool == "terminal"]
    assert [b.response["content"][-1]["text"] for b in terminal] == SENT
    assert [(b.is_error, b.error_code) for b in terminal] == [(False, None), (True, "exit_code:1")]
    stored = terminal[1].extra["recordedContent"][0]["text"]
    assert stored == "cat: missing-gen31.txt: No such file or directory"


def test_an_error_observation_gets_the_sdks_header(tmp_path: Path) -> None:
    """``is_error: true``: the SDK puts its error header before the text."""
    folder = tmp_path / "session"
    (folder / "events").mkdir(parents=True)
    for path in sorted((SESSION / "events").glob("*.json")):
        event = json.loads(path.read_text(encoding="utf-8"))
        observation = event.get("observation")
        if isinstance(observation, dict) and observation.get("kind") == "TerminalObservation":
            observation["is_error"] = True
        (folder / "events" / path.name).write_text(json.dumps(event), encoding="utf-8")
    (folder / "base_state.json").write_text(
        (SESSION / "base_state.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    first = next(b for b in wb.load_runs(folder).boundaries if b.tool == "terminal")
    assert first.response["content"][0] == {
        "type": "text",
        "text": "[An error occurred during execution.]\n",
    }


def test_classic_openhands_serves_a_commands_result_as_it_told_the_model() -> None:
    """R42: classic OpenHands tells the model of a ``run`` observation what its
    ``CmdOutputObservation.to_agent_observation`` makes of the stored output and metadata (a
    real trajectory in fixtures/openhands); the stored output stays on the boundary's extra."""
    result = wb.load_runs(FIXTURES / "openhands" / "basic_gui_mode.json")
    first = result.boundaries[0]
    assert first.response == (
        "\n[The command completed with exit code 0.]\n[Current working directory: /workspace]\n"
        "[Python interpreter: /openhands/poetry/openhands-ai-5O4_aCHf-py3.12/bin/python]\n"
        "[Command finished with exit code 0]"
    )
    assert first.extra["recordedContent"] == ""


def test_a_long_output_is_cut_as_the_sdk_cut_it(tmp_path: Path) -> None:
    """R42: past 30,000 characters the SDK sent the model the text's head, a notice naming the
    file it saved the whole to, and its tail (``maybe_truncate``, checked byte for byte against
    the SDK 1.58.2); the workbench served the whole text."""
    from workbench._load.openhands_sdk import SENT_AT_MOST, sdk_clipped

    text = "".join(f"line {i}\n" for i in range(6000))
    clipped = sdk_clipped(text, "/tmp/saved")
    assert len(clipped) == SENT_AT_MOST
    assert clipped.startswith("line 0\n") and clipped.endswith("line 5999\n")
    assert "saved to /tmp/saved/terminal_output_" in clipped
    assert sdk_clipped("short", "/tmp/saved") == "short"


def test_the_late_2025_sdks_error_header_is_in_the_text() -> None:
    """That SDK's ``ExecuteBashObservation`` with ``error: true`` (no ``is_error``) was sent
    with its header at the head of the text itself."""
    from workbench._load.openhands_sdk import terminal_text

    observation = {
        "kind": "ExecuteBashObservation",
        "error": True,
        "metadata": {"exit_code": -1, "prefix": "", "suffix": ""},
    }
    said = terminal_text(observation, [{"type": "text", "text": "ERROR: no"}])
    assert said == [
        {"type": "text", "text": "[There was an error during command execution.]\nERROR: no"}
    ]


def test_a_terminal_observation_of_wrong_types_is_read_not_crashed_on(tmp_path: Path) -> None:
    """R35 (hostile input, found by a helper's round): a terminal observation whose text block
    holds no string, or whose ``kind`` is a list, was an internal error (exit 3); it is read
    as stored, the bad block shown as such, and no terminal's text is made of it."""
    events = json.loads(
        (FIXTURES / "openhands" / "sdk-cd94562403b9487ebdd4018e3f531dfd.events.json").read_text(
            encoding="utf-8"
        )
    )
    observed = next(e for e in events if e.get("kind") == "ObservationEvent")
    for change in ("text", "kind"):
        hostile = json.loads(json.dumps(events))
        observation = next(e for e in hostile if e.get("id") == observed["id"])["observation"]
        if change == "text":
            observation["content"][0]["text"] = None
        else:
            observation["kind"] = ["TerminalObservation"]
        path = tmp_path / f"{change}.events.json"
        path.write_text(json.dumps(hostile), encoding="utf-8")
        result = wb.load_runs(path, strict=False)
        answered = [b for b in result.boundaries if b.call_id == observed["tool_call_id"]]
        assert len(answered) == 1, change
        assert "recordedContent" not in answered[0].extra
