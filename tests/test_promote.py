"""Promotion: recorded runs become a suite with recorded fixtures (SPEC R3, R5-R7, R30, R31).

Suites are checked against the extension schema through ``Suite.validate`` and, where official
validity is the point, against the official schema file loaded here (see ``test_suite_model``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.paths import BILLING, SAMPLES, TAU_DEMO, TAU_FULL
from workbench._promote.redact import REDACTED


@pytest.fixture(scope="module")
def tau() -> tuple[wb.LoadResult, wb.Promotion]:
    loaded = wb.load_runs(TAU_FULL)
    return loaded, wb.promote(loaded)


def test_tau_bench_promotes_one_task_per_record_and_every_boundary(
    tau: tuple[wb.LoadResult, wb.Promotion],
) -> None:
    """R30: a file of several runs becomes one suite with a task per run; one fixture entry per
    boundary, in call order, ``args`` exact."""
    loaded, promotion = tau
    assert promotion.boundary_count == 182
    assert promotion.error_count == 16
    assert len(promotion.suite.tasks) == 20
    assert promotion.task_ids == tuple(t["taskId"] for t in promotion.suite.tasks)
    assert len(set(promotion.task_ids)) == 20
    for run, task in zip(loaded.runs, promotion.suite.tasks, strict=True):
        entries = task["fixtures"]["toolResponses"]
        assert [(e["tool"], e["args"]) for e in entries] == [(b.tool, b.args) for b in run]
        assert [s["tool"] for s in task["input"]["script"]] == [b.tool for b in run]
        assert task["fixtures"]["onMiss"] == "fail"
        assert task["trajectory"]["match"] == "superset"
        assert task["trajectory"]["expected"] == [{"tool": b.tool, "args": b.args} for b in run]


def test_tau_bench_error_replies_are_promoted_as_is_error_true(
    tau: tuple[wb.LoadResult, wb.Promotion],
) -> None:
    """R3, R30: each of the 16 ``Error:`` replies is an ``isError: true`` entry carrying the
    recorded text; no other entry is an error. A failure is never promoted as a success."""
    loaded, promotion = tau
    flagged = 0
    for run, task in zip(loaded.runs, promotion.suite.tasks, strict=True):
        entries = task["fixtures"]["toolResponses"]
        script = task["input"]["script"]
        for boundary, entry, step in zip(run, entries, script, strict=True):
            assert entry.get("isError", False) is boundary.is_error
            text = entry["response"]["content"][0]["text"]
            assert text == boundary.response
            if boundary.is_error:
                flagged += 1
                assert text.startswith("Error:")
                assert step["onError"] == "skip"
            else:
                assert step["onError"] == {"retry": 1}
    assert flagged == 16


def test_tau_bench_error_rule_and_source_are_recorded(
    tau: tuple[wb.LoadResult, wb.Promotion],
) -> None:
    """R3: the rule used is recorded on the suite's ``x-promotion`` with the source and format."""
    info = tau[1].suite.data["x-promotion"]
    assert info["source"] == TAU_FULL.name
    assert info["format"] == "openai-chat"
    assert info["errorRule"] == {
        "kind": "prefix",
        "pattern": "Error:",
        "description": "content starts with 'Error:'",
    }


def test_tau_bench_suite_validates_and_self_test_passes_for_every_record(
    tau: tuple[wb.LoadResult, wb.Promotion],
) -> None:
    """R5-R8: the promoted suite validates against the extension schema; R30: replaying it
    unmodified reproduces every record's call sequence with zero misses."""
    _, promotion = tau
    assert promotion.suite.validate() == []
    report = promotion.self_test
    assert report is not None and report.passed, report and report.summary_lines()
    assert (report.tasks, report.boundaries, report.misses) == (20, 182, 0)
    assert promotion.suite.data["x-promotion"]["selfTest"]["passed"] is True


def test_each_tau_bench_record_promoted_alone_passes_its_self_test(
    tau: tuple[wb.LoadResult, wb.Promotion],
) -> None:
    """R30: the self-test holds record by record (ids reused within a record included, R2)."""
    loaded, _ = tau
    for run in loaded.runs:
        # a record with no tool call promotes only when asked to (R35)
        promotion = wb.promote(run, allow_empty=not run.boundaries)
        assert promotion.suite.validate() == []
        assert promotion.self_test is not None and promotion.self_test.passed, run.task_key


def test_tau_demo_record_promotes() -> None:
    """R30: the single demo record promotes to one valid task whose self-test passes."""
    promotion = wb.promote(wb.load_runs(TAU_DEMO))
    assert len(promotion.task_ids) == 1
    assert promotion.suite.validate() == []
    assert promotion.self_test is not None and promotion.self_test.passed


def test_billing_fixture_promotes_its_recorded_failure_and_redacts_its_api_key() -> None:
    """R3, R30, R31: boundary 3 is ``isError: true``; the ``api_key`` in boundary 7's args is
    redacted in the fixture, the script and the trajectory alike, and reported by path; the
    self-test still passes after redaction."""
    promotion = wb.promote(wb.load_runs(BILLING))
    task = promotion.suite.tasks[0]
    entries = task["fixtures"]["toolResponses"]
    assert [i for i, e in enumerate(entries) if e.get("isError")] == [3]
    assert "upstream_down" in entries[3]["response"]["content"][0]["text"]
    assert entries[7]["args"]["api_key"] == REDACTED
    assert task["input"]["script"][7]["args"]["api_key"] == REDACTED
    assert task["trajectory"]["expected"][7]["args"]["api_key"] == REDACTED
    assert "sk-live" not in promotion.suite.to_json()
    assert [(r.path, r.reason) for r in promotion.redactions] == [
        ("tasks[0].fixtures.toolResponses[7].args.api_key", "credential key 'api_key'")
    ]
    assert promotion.suite.data["x-promotion"]["redactions"] == [
        {
            "path": "tasks[0].fixtures.toolResponses[7].args.api_key",
            "reason": "credential key 'api_key'",
        }
    ]
    assert promotion.self_test is not None and promotion.self_test.passed
    assert promotion.suite.validate() == []


def test_no_redact_keeps_the_recorded_value() -> None:
    """R31 is on by default; the author may turn it off."""
    promotion = wb.promote(wb.load_runs(BILLING), redact_secrets=False)
    assert promotion.redactions == ()
    assert promotion.suite.tasks[0]["fixtures"]["toolResponses"][7]["args"]["api_key"].startswith(
        "sk-live"
    )


@pytest.mark.parametrize("sample", ["openai-chat-refund.json", "anthropic-refund.json"])
def test_sample_transcripts_promote_valid_self_testing_suites(sample: str) -> None:
    """R30 for the other two formats."""
    loaded = wb.load_runs(SAMPLES / sample)
    promotion = wb.promote(loaded)
    assert promotion.suite.validate() == []
    assert promotion.self_test is not None and promotion.self_test.passed
    flags = [e.get("isError", False) for e in promotion.suite.tasks[0]["fixtures"]["toolResponses"]]
    assert flags == [b.is_error for b in loaded.run]


def test_openwop_failure_shapes_promote_as_errors_with_their_payload(tmp_path: Path) -> None:
    """R3, R5: every OpenWOP failure shape is an ``isError: true`` entry with MCP content."""

    def ev(seq: int, kind: str, payload: dict[str, Any]) -> str:
        return json.dumps(
            {"eventId": f"e{seq}", "runId": "r", "type": kind, "sequence": seq, "payload": payload}
        )

    lines = [
        ev(0, "agent.tool-called", {"toolName": "a", "callId": "1", "inputs": {}}),
        ev(1, "agent.tool-returned", {"callId": "1", "error": {"code": "down", "message": "m"}}),
        ev(2, "agent.tool-called", {"toolName": "a", "callId": "2", "inputs": {}}),
        ev(3, "agent.tool-returned", {"callId": "2", "status": "forbidden"}),
        ev(4, "agent.tool-called", {"toolName": "a", "callId": "3", "inputs": {}}),
        ev(5, "agent.tool-returned", {"callId": "3", "status": "rate_limited"}),
        ev(6, "agent.tool-called", {"toolName": "a", "callId": "4", "inputs": {}}),
        ev(
            7,
            "agent.tool-returned",
            {
                "callId": "4",
                "outcome": {"content": [{"type": "text", "text": "t"}], "isError": True},
            },
        ),
        ev(8, "agent.tool-called", {"toolName": "a", "callId": "5", "inputs": {}}),
        ev(9, "agent.tool-returned", {"callId": "5", "outcome": {"rows": 2}}),
    ]
    path = tmp_path / "f.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    promotion = wb.promote(wb.load_runs(path))
    entries = promotion.suite.tasks[0]["fixtures"]["toolResponses"]
    assert [e.get("isError", False) for e in entries] == [True, True, True, True, False]
    texts = [e["response"]["content"][0]["text"] for e in entries]
    assert json.loads(texts[0]) == {"code": "down", "message": "m"}
    assert json.loads(texts[1]) == {"status": "forbidden"}
    assert json.loads(texts[2]) == {"status": "rate_limited"}
    assert texts[3] == "t"
    assert entries[4]["response"]["structuredContent"] == {"rows": 2}
    assert "structuredContent" not in entries[0]["response"]
    assert promotion.suite.validate() == []
    assert promotion.self_test is not None and promotion.self_test.passed


def test_strict_trajectory_and_custom_policy_are_applied() -> None:
    """R30: ``strict`` on request; the author's default policy for steps that succeeded."""
    promotion = wb.promote(
        wb.load_runs(BILLING), trajectory_match="strict", policy="abort", suite_id="a.b.evals.c"
    )
    task = promotion.suite.tasks[0]
    assert task["trajectory"]["match"] == "strict"
    assert [s["onError"] for s in task["input"]["script"]] == ["abort"] * 3 + ["skip"] + [
        "abort"
    ] * 8
    assert promotion.suite.suite_id == "a.b.evals.c"


def test_bad_suite_id_is_refused() -> None:
    with pytest.raises(ValueError, match="suite id"):
        wb.promote(wb.load_runs(BILLING), suite_id="Not A Suite")


def test_promotion_is_deterministic() -> None:
    """Same input, same bytes out."""
    first = wb.promote(wb.load_runs(TAU_FULL)).suite.to_json()
    second = wb.promote(wb.load_runs(TAU_FULL)).suite.to_json()
    assert first == second
