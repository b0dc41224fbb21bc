"""RFC 0245's conformance legs and falsifiability rows, run on ``workbench serve-host`` through
the official ``openwop-client`` (SPEC R15, R16, R20, R43; RFC 0245 sections B, C, Conformance).

- ``openwop.requirement.0245.fixture-error-replayed`` (the positive example): gated on
  ``agents.evalSuite.fixtureErrors`` and the fixture ``conformance-eval-fixture-error`` in
  discovery; the scripted conformance agent calls one tool twice, an ``isError`` entry then a
  success.
- ``openwop.requirement.0245.unadvertised-refused`` (the capability-negative example): the same
  suite on a host advertising ``evalSuite`` without ``fixtureErrors`` is ``400
  validation_error`` naming the field.
- The schema-negative example: ``isError: "true"`` fails the type (server-free, and at create).
- The behaviour-negative example: a failure served as a success breaks the leg's checks (so the
  leg can fail).
- The seam-gated rows: what the agent saw and the branch it took (an agent that reads results
  and reports them), and the live tool's invocation count under ``onMiss: "live"``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from openwop_client import CreateRunRequest, ForkRunRequest, OpenwopClient, WopError

import workbench as wb
from helpers.openwop_host import LiveHost, running, start
from workbench.server import OpenWopHost
from workbench.server._documents import conformance_suite

FIXTURE = "conformance-eval-fixture-error"
AGENT = "core.conformance.agents.scripted"


class BranchingAgent:
    """An agent that really reads tool results and says what it saw and which branch it took:
    on a tool error it retries (branch ``retry``), on a success it goes on (``proceed``)."""

    agent_id = "branching-agent"

    def run(self, task_input: Any, tools: wb.ToolInterface) -> wb.Decision:
        step = task_input["script"][0]
        seen: list[dict[str, Any]] = []
        result = tools.call(step["tool"], step.get("args", {}))
        seen.append({"isError": result.is_error, "text": result.text})
        branch = "retry" if result.is_error else "proceed"
        if result.is_error:
            again = tools.call(step["tool"], step.get("args", {}))
            seen.append({"isError": again.is_error, "text": again.text})
        return wb.Decision("completed", {"saw": seen, "branch": branch})


class CountingTool:
    """A live tool with an effect counter (the seam RFC 0244's G2 asks for)."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def __call__(self, args: Any) -> dict[str, Any]:
        self.calls.append(args)
        return {"content": [{"type": "text", "text": "live answer"}]}


def live_suite(calls: int) -> dict[str, Any]:
    """The conformance task under ``onMiss: "live"``, its script making ``calls`` calls (each
    step skips on error, so every call is made)."""
    suite = copy.deepcopy(conformance_suite())
    suite["suiteId"] = f"core.conformance.evals.fixture-error-live-{calls}"
    task = suite["tasks"][0]
    task["fixtures"]["onMiss"] = "live"
    step = {**task["input"]["script"][0], "onError": "skip"}
    task["input"]["script"] = [step] * calls
    return suite


@pytest.fixture(scope="module")
def counter() -> CountingTool:
    return CountingTool()


@pytest.fixture(scope="module")
def live(counter: CountingTool) -> Iterator[LiveHost]:
    host = OpenWopHost(
        [live_suite(1), live_suite(3)],
        agents={"branching": BranchingAgent()},
        live_tools={"billing:lookup": counter},
    )
    served = start(host)
    yield served
    served.served.stop()


def events_of(client: OpenwopClient, run_id: str) -> list[Any]:
    return list(client.runs_events(run_id, stream_mode="debug", timeout_seconds=10))


def leg_fixture_error_replayed(client: OpenwopClient, run_id: str) -> list[str]:
    """The checks of ``0245.fixture-error-replayed`` on one run: every violation found."""
    caps = client.discovery_capabilities()
    pre_post = caps.family("toolHooks").facets.get("prePostEvents") is True
    events = events_of(client, run_id)
    called = [e for e in events if e.type == "agent.tool-called"]
    returned = [e.payload for e in events if e.type == "agent.tool-returned"]
    problems = []
    if len(called) != 2 or len(returned) != 2:
        problems.append(f"{len(called)} tool-called and {len(returned)} tool-returned, not 2 and 2")
    if returned:
        first = returned[0]
        error = first.get("error") or {}
        if not error.get("code") or not error.get("message"):
            problems.append("the first tool-returned has no error code and message")
        if "outcome" in first:
            problems.append("the first tool-returned has an outcome: a failure served as success")
        if pre_post and first.get("status") != "error":
            problems.append("the first tool-returned's status is not error")
    if len(returned) > 1 and "outcome" not in returned[1]:
        problems.append("the second tool-returned has no outcome")
    summary = events[-1].payload["outputs"]["evalSummary"]
    if summary["fixtureMissCount"] != 0:
        problems.append(f"fixtureMissCount is {summary['fixtureMissCount']}")
    return problems


def create(client: OpenwopClient, ref: str = FIXTURE, agent: str = AGENT, **more: Any) -> str:
    body = CreateRunRequest(mode="eval", evalSuiteRef=ref, agentId=agent, **more)
    return str(client.runs_create(body).runId)


def test_leg_0245_fixture_error_replayed(live: LiveHost) -> None:
    """openwop.requirement.0245.fixture-error-replayed, non-vacuously: the host advertises
    fixtureErrors and lists the fixture, and the run meets every check of the leg."""
    client = live.client()
    caps = client.discovery_capabilities()
    assert caps.family("agents").facets["evalSuite"]["fixtureErrors"] is True
    assert FIXTURE in caps.fixtures  # so the leg applies (it is not inapplicable)
    run_id = create(client)
    assert leg_fixture_error_replayed(client, run_id) == []
    summary = client.runs_eval_summary(run_id)
    assert summary is not None and summary.passed and summary.passedCount == 1


def test_leg_0245_behaviour_negative_a_failure_served_as_success_fails_the_leg(
    live: LiveHost,
) -> None:
    """RFC 0245's behaviour-negative example: the same task with the isError entry served as a
    success (a fork with that entry toggled) breaks the leg's checks. The leg can fail."""
    client = live.client()
    source = create(client)
    events_of(client, source)
    overlay = {
        "configurable": {
            "version": 1,
            "extensions": {
                "workbench": {
                    "faults": [
                        {"taskId": "fixture-error-replayed", "boundary": 0, "kind": "toggle"}
                    ]
                }
            },
        }
    }
    fork = client.runs_fork(
        source, ForkRunRequest(fromSeq=2, mode="branch", runOptionsOverlay=overlay)
    )
    problems = leg_fixture_error_replayed(client, fork.runId)
    assert "the first tool-returned has an outcome: a failure served as success" in problems


def test_leg_0245_unadvertised_refused() -> None:
    """openwop.requirement.0245.unadvertised-refused: a host advertising evalSuite without
    fixtureErrors that lists the fixture refuses the suite with 400 validation_error naming the
    field, before anything runs."""
    narrow = wb.HostProfile(name="no-fixture-errors", fixture_errors=False)
    with running(OpenWopHost(profile=narrow)) as live:
        client = live.client()
        caps = client.discovery_capabilities()
        assert caps.family("agents").facets["evalSuite"]["fixtureErrors"] is False
        assert FIXTURE in caps.fixtures
        with pytest.raises(WopError) as refused:
            create(client)
        assert refused.value.status == 400 and refused.value.envelope is not None
        assert refused.value.envelope.error == "validation_error"
        assert refused.value.envelope.details == {
            "field": "tasks[0].fixtures.toolResponses[0].isError"
        }
        assert len(live.host.store) == 0


def test_schema_negative_a_string_is_error_fails_the_type(tmp_path: Any) -> None:
    """RFC 0245 §A: a suite with isError true validates, isError "true" does not (server-free),
    and a host refuses it at create naming the field."""
    assert wb.validate_suite(conformance_suite()) == []
    bad = copy.deepcopy(conformance_suite())
    bad["tasks"][0]["fixtures"]["toolResponses"][0]["isError"] = "true"
    problems = wb.validate_suite(bad)
    assert problems and problems[0].path == "tasks[0].fixtures.toolResponses[0].isError"
    with running(OpenWopHost([bad])) as live:
        with pytest.raises(WopError) as refused:
            create(live.client(), ref="suite://core.conformance.evals.fixture-error")
        assert refused.value.status == 400 and refused.value.envelope is not None
        assert refused.value.envelope.details == {
            "field": "tasks[0].fixtures.toolResponses[0].isError"
        }


def test_seam_what_the_agent_saw_and_the_branch_it_took(live: LiveHost) -> None:
    """RFC 0245 §B row 3 (seam-gated, G1): an agent that reads results reports that it received
    the isError entry as a tool error, with the recorded payload as its text, and took its
    error branch; with the entry toggled to a success it sees a success and goes on."""
    client = live.client()
    content = {"version": 1, "extensions": {"workbench": {"includeContent": True}}}
    run_id = create(client, agent="branching", configurable=content)
    decided = next(e for e in events_of(client, run_id) if e.type == "agent.decided")
    answer = decided.payload["decision"]["answer"]
    assert answer["branch"] == "retry"
    assert answer["saw"][0] == {"isError": True, "text": '{"error":"upstream_down"}'}
    assert answer["saw"][1] == {"isError": False, "text": '{"plan":"team"}'}
    overlay = {
        "configurable": {
            "version": 1,
            "extensions": {
                "workbench": {
                    "includeContent": True,
                    "faults": [
                        {"taskId": "fixture-error-replayed", "boundary": 0, "kind": "toggle"}
                    ],
                }
            },
        }
    }
    fork = client.runs_fork(
        run_id, ForkRunRequest(fromSeq=0, mode="branch", runOptionsOverlay=overlay)
    )
    decided = next(e for e in events_of(client, fork.runId) if e.type == "agent.decided")
    assert decided.payload["decision"]["answer"]["branch"] == "proceed"
    assert decided.payload["decision"]["answer"]["saw"][0]["isError"] is False


def test_seam_an_is_error_entry_is_never_sent_to_the_live_tool(
    live: LiveHost, counter: CountingTool
) -> None:
    """RFC 0245 §B row 4 (seam-gated, G2): under onMiss "live" the isError entry is served as
    a tool error and the live tool's invocation count stays 0; a call that matches no entry
    does reach it (count 1), so the counter is wired and the 0 means something."""
    client = live.client()
    counter.calls.clear()
    one = create(
        client, ref="suite://core.conformance.evals.fixture-error-live-1", agent="scripted"
    )
    returned = [e.payload for e in events_of(client, one) if e.type == "agent.tool-returned"]
    assert len(returned) == 1 and "error" in returned[0] and "outcome" not in returned[0]
    assert returned[0]["x-servedBy"] == "fixture"
    assert counter.calls == []
    three = create(
        client, ref="suite://core.conformance.evals.fixture-error-live-3", agent="scripted"
    )
    returned = [e.payload for e in events_of(client, three) if e.type == "agent.tool-returned"]
    assert [p["x-servedBy"] for p in returned] == ["fixture", "fixture", "live"]
    assert "error" in returned[0] and "outcome" in returned[1] and "outcome" in returned[2]
    assert counter.calls == [{"id": "c-1"}]
    summary = events_of(client, three)[-1].payload["outputs"]["evalSummary"]
    assert summary["fixtureMissCount"] == 1  # the live call was a miss; the error was not
