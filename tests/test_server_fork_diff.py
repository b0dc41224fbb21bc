"""``:fork`` with an entry flipped, and ``:diff`` of the two runs (SPEC R32, R43; RFC 0054).

A branch fork re-runs the source's recipe with the faults its ``runOptionsOverlay`` gives
(``configurable.extensions.workbench.faults``); events before ``fromSeq`` are fixed history
and must come out the same (``422 fork_point_invalid`` otherwise). The diff names the first
sequence where the logs differ, ignoring what differs per run (ids, timestamps).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from openwop_client import CreateRunRequest, ForkRunRequest, OpenwopClient, WopError

from helpers.openwop_host import LiveHost, billing_suite, schema_errors, snapshot_problems, start
from workbench.server import OpenWopHost

REF = "suite://local.workbench.evals.billing-support"
TASK = "run"
FLIPPED = 5  # a recorded success (billing:get-invoice); its step retries once, then aborts


@pytest.fixture(scope="module")
def live() -> Iterator[LiveHost]:
    served = start(OpenWopHost([billing_suite()]))
    yield served
    served.served.stop()


@pytest.fixture(scope="module")
def source(live: LiveHost) -> tuple[str, list[Any]]:
    client = live.client()
    run_id = client.runs_create(
        CreateRunRequest(mode="eval", evalSuiteRef=REF, agentId="scripted")
    ).runId
    return run_id, list(client.runs_events(run_id, timeout_seconds=10))


def overlay(*faults: tuple[int, str]) -> dict[str, Any]:
    listed = [{"taskId": TASK, "boundary": b, "kind": k} for b, k in faults]
    return {"configurable": {"version": 1, "extensions": {"workbench": {"faults": listed}}}}


def call_seqs(events: list[Any], k: int) -> tuple[int, int]:
    """The sequences of the k-th call's agent.tool-called and its agent.tool-returned."""
    called = [e for e in events if e.type == "agent.tool-called"][k]
    returned = next(
        e
        for e in events
        if e.type == "agent.tool-returned" and e.payload["callId"] == called.payload["callId"]
    )
    return called.sequence, returned.sequence


def test_a_fork_with_a_flipped_entry_diverges_where_that_call_returned(
    live: LiveHost, source: tuple[str, list[Any]]
) -> None:
    client = live.client()
    run_id, events = source
    called, returned = call_seqs(events, FLIPPED)
    fork = client.runs_fork(
        run_id,
        ForkRunRequest(
            fromSeq=called, mode="branch", runOptionsOverlay=overlay((FLIPPED, "toggle"))
        ),
    )
    assert fork.sourceRunId == run_id and fork.mode == "branch" and fork.fromSeq == called
    assert fork.status in ("pending", "running") and fork.runId != run_id
    forked = list(client.runs_events(fork.runId, timeout_seconds=10))
    assert forked[returned].type == "agent.tool-returned" and "error" in forked[returned].payload
    assert "outcome" in events[returned].payload
    diff = client.runs_diff(run_id, fork.runId)
    assert diff is not None and diff.a == run_id and diff.b == fork.runId
    assert diff.divergedAtSeq == returned
    assert diff.eventDiffs[0].seq == returned and diff.eventDiffs[0].op == "changed"
    assert [d.seq for d in diff.eventDiffs] == sorted(d.seq for d in diff.eventDiffs)
    snap = client.runs_get(fork.runId)
    assert snap.parentRunId == run_id and snap.status == "completed"
    _, _, raw_snap = live.raw("GET", f"/runs/{fork.runId.replace('/', '~2F')}")
    assert snapshot_problems(json.loads(raw_snap)) == []
    # The raw body is a valid RunDiffResponse (RFC 0054), with the state that changed.
    path = f"/runs/{run_id.replace('/', '~2F')}:diff?against={fork.runId.replace('/', '~2F')}"
    status, _, raw = live.raw("GET", path)
    body = json.loads(raw)
    assert status == 200 and schema_errors(body, "run-diff-response.schema.json") == []
    assert body["stateDiff"]["passed"] == {"a": True, "b": False}
    assert body["eventDiffs"][0]["aEvent"]["payload"]["outcome"]
    assert body["eventDiffs"][0]["bEvent"]["payload"]["error"]["code"]


def test_the_diff_of_identical_logs_is_empty(live: LiveHost, source: tuple[str, list[Any]]) -> None:
    client = live.client()
    run_id, events = source
    replayed = client.runs_fork(run_id, ForkRunRequest(fromSeq=None, mode="replay"))
    assert replayed.fromSeq == 0
    again = list(client.runs_events(replayed.runId, timeout_seconds=10))
    assert [e.eventId for e in again] != [e.eventId for e in events]  # a run of its own
    diff = client.runs_diff(run_id, replayed.runId)
    assert diff is not None and diff.divergedAtSeq is None and diff.eventDiffs == []
    itself = client.runs_diff(run_id, run_id)
    assert itself is not None and itself.divergedAtSeq is None


def test_a_fork_point_after_the_change_is_422(
    live: LiveHost, source: tuple[str, list[Any]]
) -> None:
    """Events before fromSeq are fixed history: an overlay that changes them is refused."""
    client = live.client()
    run_id, events = source
    _, returned = call_seqs(events, FLIPPED)
    before = len(live.host.store)
    with pytest.raises(WopError) as invalid:
        client.runs_fork(
            run_id,
            ForkRunRequest(
                fromSeq=returned + 1, mode="branch", runOptionsOverlay=overlay((FLIPPED, "toggle"))
            ),
        )
    assert invalid.value.status == 422 and invalid.value.envelope is not None
    assert invalid.value.envelope.error == "fork_point_invalid"
    assert invalid.value.envelope.details == {"field": "fromSeq", "divergedAtSeq": returned}
    assert len(live.host.store) == before
    with pytest.raises(WopError) as past:
        client.runs_fork(run_id, ForkRunRequest(fromSeq=len(events) + 1, mode="replay"))
    assert past.value.status == 422


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "branch"}, "fromSeq"),
        ({"mode": "sideways", "fromSeq": 0}, "mode"),
        ({"mode": "replay", "runOptionsOverlay": {"tags": ["x"]}}, "runOptionsOverlay"),
        ({"mode": "branch", "fromSeq": -1}, "fromSeq"),
        ({"mode": "branch", "fromSeq": 0, "edits": []}, "edits"),
        (
            {"mode": "branch", "fromSeq": 0, "runOptionsOverlay": overlay((99, "flip"))},
            "runOptionsOverlay.configurable.extensions.workbench.faults[0].boundary",
        ),
        (
            {"mode": "branch", "fromSeq": 0, "runOptionsOverlay": overlay((1, "melt"))},
            "runOptionsOverlay.configurable.extensions.workbench.faults[0].kind",
        ),
        (
            {"mode": "branch", "fromSeq": 0, "runOptionsOverlay": {"inputs": {}}},
            "runOptionsOverlay.inputs",
        ),
        # R11: the first offending member in the body's own order.
        ({"fromSeq": -1, "mode": "sideways"}, "fromSeq"),
        ({"mode": "sideways", "fromSeq": -1}, "mode"),
        ({"fromSeq": 0}, "mode"),
        # An overlay that is not an object is refused, even an empty list.
        ({"mode": "branch", "fromSeq": 0, "runOptionsOverlay": []}, "runOptionsOverlay"),
        ({"mode": "branch", "fromSeq": 0, "runOptionsOverlay": "x"}, "runOptionsOverlay"),
    ],
)
def test_bad_forks_are_refused_naming_the_field(
    live: LiveHost, source: tuple[str, list[Any]], body: dict[str, Any], field: str
) -> None:
    run_id, _ = source
    status, _, raw = live.raw("POST", f"/runs/{run_id.replace('/', '~2F')}:fork", body)
    assert status == 400, raw
    assert json.loads(raw)["details"] == {"field": field}


def test_fault_kinds_and_idempotent_forks(live: LiveHost, source: tuple[str, list[Any]]) -> None:
    """R32's kinds through a fork: ``hard`` adds failures after the entry (more calls fail)."""
    client = live.client()
    run_id, events = source
    body = ForkRunRequest(fromSeq=0, mode="branch", runOptionsOverlay=overlay((FLIPPED, "hard")))
    first = client.runs_fork(run_id, body, idempotency_key="fork-1")
    again = client.runs_fork(run_id, body, idempotency_key="fork-1")
    assert again.runId == first.runId
    forked = list(client.runs_events(first.runId, timeout_seconds=10))
    errors = [e for e in forked if e.type == "agent.tool-returned" and "error" in e.payload]
    baseline_errors = [
        e for e in events if e.type == "agent.tool-returned" and "error" in e.payload
    ]
    assert len(errors) == len(baseline_errors) + 2  # the hard entry and the retry of it
    fork_snap = live.raw("GET", f"/runs/{first.runId.replace('/', '~2F')}")[2]
    faults = json.loads(fork_snap)["extensions"]["workbench.eval"]["faults"]
    assert faults == [{"taskId": TASK, "boundary": FLIPPED, "kind": "hard"}]


def test_diff_needs_a_known_against(live: LiveHost, source: tuple[str, list[Any]]) -> None:
    client = live.client()
    run_id, _ = source
    assert client.runs_diff(run_id, "workbench/000000000000000000000000") is None
    status, _, raw = live.raw("GET", f"/runs/{run_id.replace('/', '~2F')}:diff")
    assert status == 400 and json.loads(raw)["details"] == {"field": "against"}


def test_a_fork_of_an_unknown_run_is_404(live: LiveHost) -> None:
    client: OpenwopClient = live.client()
    with pytest.raises(WopError) as missing:
        client.runs_fork(
            "workbench/000000000000000000000000", ForkRunRequest(fromSeq=0, mode="replay")
        )
    assert missing.value.status == 404


def test_a_fork_takes_a_task_s_edited_fixtures_whole(
    live: LiveHost, source: tuple[str, list[Any]]
) -> None:
    """Edited fixtures given in the body: ``fixtures: {taskId: fixtures}`` replaces the task's
    fixtures (checked like any suite), here with entry 5 made an error by hand."""
    client = live.client()
    run_id, events = source
    fixtures = json.loads(json.dumps(billing_suite().tasks[0]["fixtures"]))
    fixtures["toolResponses"][FLIPPED]["isError"] = True
    body = {
        "configurable": {"version": 1, "extensions": {"workbench": {"fixtures": {TASK: fixtures}}}}
    }
    called, returned = call_seqs(events, FLIPPED)
    fork = client.runs_fork(
        run_id, ForkRunRequest(fromSeq=called, mode="branch", runOptionsOverlay=body)
    )
    diff = client.runs_diff(run_id, fork.runId)
    assert diff is not None and diff.divergedAtSeq == returned
    fixtures["toolResponses"][FLIPPED]["isError"] = "yes"
    with pytest.raises(WopError) as refused:
        client.runs_fork(run_id, ForkRunRequest(fromSeq=0, mode="branch", runOptionsOverlay=body))
    assert refused.value.envelope is not None
    # R11 names the member the caller sent: the body's path to the task's edited fixtures.
    assert refused.value.envelope.details == {
        "field": "runOptionsOverlay.configurable.extensions.workbench.fixtures."
        f"{TASK}.toolResponses[{FLIPPED}].isError"
    }
