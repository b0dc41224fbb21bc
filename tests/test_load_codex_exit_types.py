"""A Codex exit code of a type codex-rs never writes is a problem, never a success (SPEC R35).

codex-rs writes an ``exec_command_end`` event's ``exit_code`` as an ``i32``, and so the
``metadata.exit_code`` of the JSON text Codex before 0.4x sent as a shell's output. An exit code
of text, a float, a boolean, a list or null was skipped: the call it marked failed loaded as a
success with no problem (a tester's hostile variants of real rollouts). Now each is a problem
at its place, and its call is not served. The rollouts are real fixtures with one value changed.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.paths import FIXTURES
from workbench.cli import main

_ENDS = (
    FIXTURES / "codex" / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl.gz"
)
_STRUCTURED = (
    FIXTURES / "codex" / "rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl.gz"
)
_PLAIN = FIXTURES / "codex" / "git-sync_33_dc63f83cff_0_full.jsonl.gz"
"""A rollout whose commands ended within their calls (no ``Process running``)."""
_WRONG = ["2", 2.0, True, [2], None]


def _lines(source: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in gzip.decompress(source.read_bytes()).splitlines()]


def _write(records: list[dict[str, Any]], out: Path) -> Path:
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


def _first(records: list[dict[str, Any]], test: Any) -> int:
    return next(i for i, r in enumerate(records) if test(r.get("payload") or {}))


@pytest.mark.parametrize("code", _WRONG, ids=[json.dumps(c) for c in _WRONG])
def test_an_exec_command_end_exit_code_of_another_type_is_a_problem(
    tmp_path: Path, code: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: a problem at the event's line and ``payload.exit_code``; its call is not served
    (neither as a success nor as a failure), the other calls load as before."""
    records = _lines(_ENDS)
    at = _first(records, lambda p: p.get("type") == "exec_command_end")
    records[at]["payload"]["exit_code"] = code
    call_id = records[at]["payload"]["call_id"]
    path = _write(records, tmp_path / "rollout.jsonl")
    result = wb.load_runs(path, strict=False)
    (problem,) = result.problems
    assert (problem.where, problem.field) == (f"line {at + 1}", "payload.exit_code"), problem
    assert call_id in problem.message and "not an integer" in problem.message
    before = wb.load_runs(_ENDS).boundaries
    assert [b.call_id for b in result.boundaries] == [
        b.call_id for b in before if b.call_id != call_id
    ]
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "(field payload.exit_code)" in err, err


@pytest.mark.parametrize("code", _WRONG, ids=[json.dumps(c) for c in _WRONG])
def test_a_structured_output_exit_code_of_another_type_is_a_problem(
    tmp_path: Path, code: Any
) -> None:
    """R35: the output's JSON text says ``metadata.exit_code`` of another type: a problem at
    the output's line, and the call is not served."""
    records = _lines(_STRUCTURED)

    def structured(payload: dict[str, Any]) -> bool:
        output = payload.get("output")
        return payload.get("type") == "function_call_output" and '"exit_code"' in str(output)

    at = _first(records, structured)
    payload = records[at]["payload"]
    sent = json.loads(payload["output"])
    sent["metadata"]["exit_code"] = code
    payload["output"] = json.dumps(sent)
    path = _write(records, tmp_path / "rollout.jsonl")
    result = wb.load_runs(path, strict=False)
    (problem,) = result.problems
    assert (problem.where, problem.field) == (f"line {at + 1}", "payload.output"), problem
    assert "exit_code" in problem.message
    assert payload["call_id"] not in {b.call_id for b in result.boundaries}
    assert len(result.boundaries) == len(wb.load_runs(_STRUCTURED).boundaries) - 1


def test_integer_exit_codes_still_fail_their_calls(tmp_path: Path) -> None:
    """The same event with an integer exit code other than 0 fails its call (as before)."""
    records = _lines(_PLAIN)
    served = {b.call_id: b for b in wb.load_runs(_PLAIN).boundaries}

    def succeeded(payload: dict[str, Any]) -> bool:
        call = served.get(payload.get("call_id", ""))
        return (
            payload.get("type") == "exec_command_end"
            and call is not None
            and not (call.is_error or "laterExitCode" in call.extra)
        )

    at = _first(records, succeeded)
    records[at]["payload"]["exit_code"] = 3
    call_id = records[at]["payload"]["call_id"]
    loaded = wb.load_runs(_write(records, tmp_path / "rollout.jsonl"))
    (call,) = [b for b in loaded.boundaries if b.call_id == call_id]
    assert call.is_error and call.error_code == "exit_code:3"
