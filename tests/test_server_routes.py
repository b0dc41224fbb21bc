"""Every route of ``workbench serve-host``, driven by the official ``openwop-client`` (SPEC R43).

Discovery advertises what R10 lists (and ``recordedFixtures``) in the v2 record shape the
client parses; runs are created, read, listed, streamed (SSE, resumable with ``Last-Event-ID``)
and polled; the summary is ``409`` while a run is not completed; a run is cancelled. Raw HTTP
only where the client hides the bytes (the ``OpenWOP-Version`` header, error envelopes of the
SSE route, unknown paths).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.error import HTTPError

import pytest
from openwop_client import CreateRunRequest, ForkRunRequest, OpenwopClient, WopError

import workbench as wb
from helpers.openwop_host import (
    SCHEMAS,
    V2,
    LiveHost,
    billing_suite,
    event_dict,
    running,
    schema_errors,
    snapshot_problems,
    start,
)
from workbench.server import HostSettings, OpenWopHost

BILLING = "suite://local.workbench.evals.billing-support"


class GatedAgent:
    """A scripted agent that waits for ``gate`` before each task: a run that stays running
    until the test lets it go."""

    agent_id = "gated-agent"

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.inner = wb.ScriptedAgent()

    def run(self, task_input: Any, tools: wb.ToolInterface) -> wb.Decision:
        assert self.gate.wait(30), "the test never opened the gate"
        return self.inner.run(task_input, tools)


@pytest.fixture(scope="module")
def gated() -> GatedAgent:
    return GatedAgent()


@pytest.fixture(scope="module")
def live(gated: GatedAgent) -> Iterator[LiveHost]:
    settings = HostSettings(keepalive_seconds=0.2, retry_ms=10)
    host = OpenWopHost([billing_suite()], agents={"gated": gated}, settings=settings)
    served = start(host)
    yield served
    gated.gate.set()
    served.served.stop()


def create(client: OpenwopClient, agent: str = "scripted", **more: Any) -> str:
    body = CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId=agent, **more)
    return str(client.runs_create(body).runId)


def finished(client: OpenwopClient, run_id: str) -> list[Any]:
    return list(client.runs_events(run_id, timeout_seconds=10))


def test_discovery_advertises_r10_members_in_v2_records(live: LiveHost) -> None:
    """R10, R43: the client parses the families; the R10 object reads back as the profile."""
    caps = live.client().discovery_capabilities()
    assert caps.protocolVersions == ["2.0"] and caps.preferredVersion == "2.0"
    agents = caps.family("agents")
    assert agents is not None and agents.status == "experimental"
    assert agents.facets["evalSuite"] == {
        "modes": ["golden"],
        "fixtureMatching": True,
        "fixtureErrors": True,
        "trials": True,
        "trajectory": True,
        "recordedFixtures": True,
    }
    hooks = caps.family("toolHooks")
    assert hooks is not None and hooks.facets["prePostEvents"] is True
    assert {"replay", "runList"} <= set(caps.families)
    assert caps.fixtures == ["conformance-eval-fixture-error"]
    assert wb.HostProfile.from_json(caps.raw, name="workbench") == wb.HostProfile.workbench()
    # The R10 object is a valid host profile as served (a v2 discovery document is a profile).
    from workbench._suite.schemas import validate_host_profile

    assert validate_host_profile(caps.raw) == []


def test_openapi_lists_every_route_the_host_serves(live: LiveHost) -> None:
    document = live.client().discovery_openapi()
    assert document["openapi"].startswith("3.1")
    served = {
        (method.lower(), path.replace("{run_id}", "{runId}"))
        for route in live.host.app.routes
        for method in getattr(route, "methods", set()) - {"HEAD"}
        for path in [getattr(route, "path", "")]
    }
    documented = {(m, p) for p, ops in document["paths"].items() for m in ops}
    assert documented == served


def test_openapi_is_a_valid_openapi_3_1_document(live: LiveHost) -> None:
    """/openapi.json passes openapi-spec-validator's OpenAPI 3.1 check, every ``$ref`` into
    the official schemas resolved from the vendored copies (no network); a broken copy fails."""
    from jsonschema_path import SchemaPath
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError
    from openapi_spec_validator.validation.validators import OpenAPIV31SpecValidator

    files = {p.name: p for p in [*SCHEMAS.glob("*.schema.json"), *V2.glob("*.schema.json")]}
    fetched: list[str] = []

    def official(uri: str) -> Any:
        fetched.append(uri)
        name = uri.split("#")[0].rsplit("/", 1)[-1]
        return json.loads(files[name].read_text(encoding="utf-8"))

    def check(document: dict[str, Any]) -> None:
        path = SchemaPath.from_dict(document, handlers={"https": official})
        OpenAPIV31SpecValidator(path).validate()

    document = live.client().discovery_openapi()
    check(document)
    assert "https://openwop.dev/spec/v2/run-snapshot.schema.json" in fetched
    broken = json.loads(json.dumps(document))
    broken["paths"]["/runs"]["post"]["responses"]["201"] = {"content": 3}
    with pytest.raises(OpenAPIValidationError):
        check(broken)


def test_every_response_says_openwop_version_2(live: LiveHost) -> None:
    for path in ("/.well-known/openwop", "/runs", "/runs/nope", "/nothing-here"):
        status, headers, _ = live.raw("GET", path)
        assert headers["openwop-version"] == "2.0", (path, status)


def test_another_protocol_major_is_406(live: LiveHost) -> None:
    status, _, body = live.raw("GET", "/runs", headers={"OpenWOP-Version": "3.0"})
    assert status == 406
    envelope = json.loads(body)
    assert envelope["error"] == "protocol_version_unsupported"
    assert envelope["details"] == {"supported": ["2.0"]}


def test_create_get_and_list(live: LiveHost) -> None:
    client = live.client()
    run_id = create(client, tags=["ci"], metadata={"who": "test"})
    finished(client, run_id)
    snap = client.runs_get(run_id)
    assert snap.runId == run_id and snap.status == "completed"
    assert snap.workflowId == "workbench.eval" and snap.eventLogSchemaVersion == 3
    assert snap.tags == ["ci"] and snap.metadata == {"who": "test"}
    assert snap.owner.subject.lane == "api-key"
    status, _, body = live.raw("GET", f"/runs/{run_id.replace('/', '~2F')}")
    assert status == 200 and snapshot_problems(json.loads(body)) == []
    # The legacy percent-encoded form of the id is read too (identity.md section 5).
    status, _, body = live.raw("GET", f"/runs/{run_id.replace('/', '%2F')}")
    assert status == 200 and json.loads(body)["runId"] == run_id
    listing = client.runs_list(limit=100)
    assert listing is not None and run_id in [r.runId for r in listing.runs]
    # Every snapshot on the wire is valid against the official closed RunSnapshot schema, and
    # the page against the closed RunListResponse (RFC 0182), a cursor included.
    status, _, body = live.raw("GET", "/runs?limit=100")
    assert status == 200 and all(snapshot_problems(s) == [] for s in json.loads(body)["runs"])
    finished(client, create(client))  # so there is a second page
    for page in (json.loads(body), json.loads(live.raw("GET", "/runs?limit=1")[2])):
        assert schema_errors(page, "run-list-response.schema.json", formats=True) == []
    assert "nextCursor" in page
    broken = {**json.loads(body)["runs"][0], "suiteId": "not a member"}
    assert snapshot_problems(broken) != []  # the check can fail


def test_list_pages_newest_first_with_a_cursor(live: LiveHost) -> None:
    client = live.client()
    made = [create(client) for _ in range(3)]
    for run_id in made:
        finished(client, run_id)
    first = client.runs_list(limit=2)
    assert first is not None and [r.runId for r in first.runs] == made[::-1][:2]
    assert first.next_cursor is not None
    second = client.runs_list(limit=2, cursor=first.next_cursor)
    assert second is not None and second.runs[0].runId == made[0]
    with pytest.raises(WopError) as refused:
        client.runs_list(cursor="not-ours")
    assert refused.value.status == 400 and refused.value.envelope is not None
    assert refused.value.envelope.details == {"field": "cursor"}
    done = client.runs_list(limit=100, status="completed")
    assert done is not None and all(r.status == "completed" for r in done.runs)


def test_sse_streams_the_whole_log_and_ends_after_run_completed(live: LiveHost) -> None:
    client = live.client()
    run_id = create(client)
    events = finished(client, run_id)
    assert [e.sequence for e in events] == list(range(len(events)))
    assert events[0].type == "eval.started" and events[-1].type == "run.completed"
    assert {"agent.tool-called", "agent.tool-returned"} <= {e.type for e in events}


def test_sse_stream_modes_and_batches(live: LiveHost) -> None:
    client = live.client()
    run_id = create(client)
    everything = finished(client, run_id)
    updates = list(client.runs_events(run_id, stream_mode="updates"))
    assert [e.type for e in updates] == [
        e.type for e in everything if not e.type.startswith("agent.")
    ]
    debug = list(client.runs_events(run_id, stream_mode=["updates", "debug"]))
    assert [e.eventId for e in debug] == [e.eventId for e in everything]
    batched = list(client.runs_events(run_id, buffer_ms=50))
    assert [e.eventId for e in batched] == [e.eventId for e in everything]
    with pytest.raises(HTTPError) as refused:
        list(client.runs_events(run_id, stream_mode="values"))
    envelope = json.load(refused.value)
    assert refused.value.code == 400 and envelope["error"] == "unsupported_stream_mode"
    assert envelope["details"]["supported"] == ["debug", "updates"]


def test_sse_resumes_from_last_event_id(live: LiveHost) -> None:
    """RFC 0247: given Last-Event-ID N, the host sends sequence N+1 on, once."""
    client = live.client()
    run_id = create(client)
    everything = finished(client, run_id)
    resumed = list(client.runs_events(run_id, last_event_id="5"))
    assert [e.sequence for e in resumed] == list(range(6, len(everything)))
    assert list(client.runs_events(run_id, last_event_id=str(len(everything) - 1))) == []
    assert [e.sequence for e in client.runs_events(run_id, last_event_id="-1")] == [
        e.sequence for e in everything
    ]
    # Not a sequence this host sent (a negative one would count from the end): a 400 envelope.
    wire = run_id.replace("/", "~2F")
    for last in ("-5", "abc", "3.5"):
        status, _, body = live.raw("GET", f"/runs/{wire}/events", headers={"Last-Event-ID": last})
        assert status == 400 and json.loads(body)["details"] == {"field": "Last-Event-ID"}, last


def test_a_bounded_close_is_resumed_by_the_client_with_no_event_twice() -> None:
    """The host closes each stream after 4 frames; the client resumes with Last-Event-ID
    until run.completed and yields every event exactly once."""
    host = OpenWopHost([billing_suite()], settings=HostSettings(stream_frame_limit=4, retry_ms=5))
    seen_ids: list[str | None] = []
    with running(host) as live:
        client = live.client()
        run_id = create(client)
        finished_log = client.runs_poll_events(run_id, timeout_seconds=5)
        while not finished_log.isTerminal:
            finished_log = client.runs_poll_events(run_id, timeout_seconds=5)
        events = list(client.runs_events(run_id, timeout_seconds=10))
        assert [e.sequence for e in events] == list(range(finished_log.lastSequence + 1))
        # Raw: the first connection really stops after 4 frames, and Last-Event-ID resumes.
        path = f"/runs/{run_id.replace('/', '~2F')}/events"
        _, _, first = live.raw("GET", path)
        ids = [ln for ln in first.decode().splitlines() if ln.startswith("id: ")]
        assert ids == ["id: 0", "id: 1", "id: 2", "id: 3"]
        _, _, second = live.raw("GET", path, headers={"Last-Event-ID": "3"})
        seen_ids = [ln[4:] for ln in second.decode().splitlines() if ln.startswith("id: ")]
    assert seen_ids == ["4", "5", "6", "7"]


def test_poll_after_a_sequence_and_long_poll(live: LiveHost, gated: GatedAgent) -> None:
    client = live.client()
    run_id = create(client)
    events = finished(client, run_id)
    page = client.runs_poll_events(run_id, after_sequence=3)
    assert [e.sequence for e in page.events] == list(range(4, len(events)))
    assert page.lastSequence == len(events) - 1 and page.isTerminal and page.status == "completed"
    assert client.runs_poll_events(run_id, after_sequence=page.lastSequence).events == []
    whole = client.runs_poll_events(run_id)
    assert [e.eventId for e in whole.events] == [e.eventId for e in events]
    gated.gate.clear()
    slow = create(client, "gated")
    opened = client.runs_poll_events(slow, after_sequence=0, timeout_seconds=5)
    assert [e.type for e in opened.events] == ["agent.invocation-started"]  # blocked in trial 0
    started = time.monotonic()
    waiting = client.runs_poll_events(slow, after_sequence=1, timeout_seconds=1)
    assert time.monotonic() - started >= 0.9  # a long poll: nothing new, so it waited
    assert waiting.events == [] and not waiting.isTerminal and waiting.status == "running"
    gated.gate.set()
    assert finished(client, slow)[-1].type == "run.completed"


def test_summary_is_409_until_the_run_completes(live: LiveHost, gated: GatedAgent) -> None:
    """R43: GET /eval-summary answers 409 run_state_conflict while the run is running."""
    client = live.client()
    gated.gate.clear()
    run_id = create(client, "gated")
    deadline = time.monotonic() + 10
    while client.runs_get(run_id).status != "running" and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(WopError) as conflict:
        client.runs_eval_summary(run_id)
    _, _, running_snap = live.raw("GET", f"/runs/{run_id.replace('/', '~2F')}")
    assert snapshot_problems(json.loads(running_snap)) == []
    assert conflict.value.status == 409 and conflict.value.envelope is not None
    assert conflict.value.envelope.error == "run_state_conflict"
    assert conflict.value.envelope.details == {"runStatus": "running"}
    # The stream of a running run stays open with keep-alives, and ends with the run.
    gated.gate.set()
    assert finished(client, run_id)[-1].type == "run.completed"
    summary = client.runs_eval_summary(run_id)
    assert summary is not None and summary.passed and summary.taskCount == 1


def test_a_running_run_is_cancelled(live: LiveHost, gated: GatedAgent) -> None:
    client = live.client()
    gated.gate.clear()
    trials = {"version": 1, "extensions": {"workbench": {"trials": 3}}}
    run_id = create(client, "gated", configurable=trials)
    answer = client.runs_cancel(run_id)
    assert answer.status == "cancelling"
    gated.gate.set()
    events = finished(client, run_id)
    assert events[-1].type == "run.cancelled"
    assert client.runs_get(run_id).status == "cancelled"
    with pytest.raises(WopError) as no_summary:
        client.runs_eval_summary(run_id)
    assert no_summary.value.status == 409
    with pytest.raises(WopError) as ended:
        client.runs_cancel(run_id)
    assert ended.value.status == 409 and ended.value.envelope is not None
    assert ended.value.envelope.error == "run_terminal"


def test_creates_beyond_the_unfinished_bound_are_429_until_runs_finish() -> None:
    """A flood of creates does not queue without end (every log is held in memory): with
    ``max_unfinished_runs`` runs waiting or running, one more create or fork is ``429
    rate_limited`` with ``Retry-After``, leaving no run; once they finish, creates run again."""
    gate = GatedAgent()
    settings = HostSettings(max_unfinished_runs=2)
    host = OpenWopHost([billing_suite()], agents={"gated": gate}, settings=settings, workers=1)
    with running(host) as live:
        client = live.client()
        done = create(client)
        finished(client, done)
        held = [create(client, "gated"), create(client, "gated")]
        for attempt in (
            lambda: create(client),
            lambda: client.runs_fork(done, ForkRunRequest(fromSeq=0, mode="replay")),
        ):
            with pytest.raises(WopError) as limited:
                attempt()
            assert limited.value.status == 429 and limited.value.envelope is not None
            assert limited.value.envelope.error == "rate_limited"
            assert (
                schema_errors(
                    {"error": "rate_limited", "message": limited.value.envelope.message},
                    "error-envelope.schema.json",
                )
                == []
            )
        status, headers, _ = live.raw(
            "POST", "/runs", {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted"}
        )
        assert status == 429 and headers["retry-after"] == "1"
        assert len(live.host.store) == 3
        gate.gate.set()
        for run_id in held:
            assert finished(client, run_id)[-1].type == "run.completed"
        finished(client, create(client))  # the bound counts unfinished runs, not all runs
        assert len(live.host.store) == 4


def test_unknown_runs_are_404_or_none_as_the_client_reads_them(live: LiveHost) -> None:
    client = live.client()
    missing = "workbench/0000000000000000000000ff"
    with pytest.raises(WopError) as not_found:
        client.runs_get(missing)
    assert not_found.value.status == 404 and not_found.value.envelope is not None
    assert not_found.value.envelope.error == "not_found"
    assert client.runs_eval_summary(missing) is None
    assert client.runs_diff(missing, missing) is None
    with pytest.raises(HTTPError) as stream:
        list(client.runs_events(missing))
    assert stream.value.code == 404 and json.load(stream.value)["error"] == "not_found"


def test_unknown_paths_and_methods_answer_envelopes(live: LiveHost) -> None:
    status, _, body = live.raw("GET", "/workflows/x")
    assert status == 404 and json.loads(body)["error"] == "not_found"
    status, headers, body = live.raw("DELETE", "/runs")
    assert status == 405 and json.loads(body)["error"] == "workbench.method_not_allowed"
    assert "POST" in headers["allow"]


def test_the_notebook_host_serves_the_suite_as_edited(tmp_path: Any) -> None:
    """R43 from a notebook: serve_host(Workbench) runs what the widget holds when the run is
    created, so an edit made after the host started is what the next run runs."""
    from workbench.widgets import Workbench

    widget = Workbench(billing_suite())
    with wb.serve_host(widget) as served:
        assert served.url.startswith("http://127.0.0.1:") and served.api_key.startswith("wbk_")
        client = OpenwopClient(served.url, served.api_key, timeout=10)
        before = client.runs_create(
            CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="scripted")
        ).runId
        task = widget.suite.tasks[0]["taskId"]
        widget.edit(wb.toggle_error(widget.suite, task, 0))
        after = client.runs_create(
            CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="scripted")
        ).runId
        first = [e for e in client.runs_events(before) if e.type == "agent.tool-returned"]
        second = [e for e in client.runs_events(after) if e.type == "agent.tool-returned"]
        assert "outcome" in first[0].payload and "error" in second[0].payload
    assert not served.running


class _Meltdown(BaseException):
    """Not an Exception: the replay loop lets it through, as it would a host failure."""


class CrashingAgent:
    agent_id = "crashing-agent"

    def __init__(self, kind: type[BaseException]) -> None:
        self.kind = kind

    def run(self, task_input: Any, tools: wb.ToolInterface) -> wb.Decision:
        raise self.kind("boom")


def test_an_agent_crash_fails_its_trial_and_a_host_failure_fails_the_run(
    check_event_log: Any,
) -> None:
    """R25: an agent that raises fails its trial and the run completes; anything worse ends
    the log with run.failed, so no reader waits forever, and the summary stays 409."""
    agents = {"crash": CrashingAgent(RuntimeError), "melt": CrashingAgent(_Meltdown)}
    with running(OpenWopHost([billing_suite()], agents=agents)) as live:
        client = live.client()
        crashed = create(client, "crash")
        events = finished(client, crashed)
        assert events[-1].type == "run.completed"
        summary = client.runs_eval_summary(crashed)
        assert summary is not None and not summary.passed
        melted = create(client, "melt")
        events = finished(client, melted)
        assert events[-1].type == "run.failed"
        assert events[-1].payload["error"]["code"] == "internal_error"
        assert check_event_log([event_dict(e) for e in events]) == []
        snap = client.runs_get(melted)
        assert snap.status == "failed" and snap.error is not None
        _, _, raw = live.raw("GET", f"/runs/{melted.replace('/', '~2F')}")
        assert snapshot_problems(json.loads(raw)) == []
        with pytest.raises(WopError) as no_summary:
            client.runs_eval_summary(melted)
        assert no_summary.value.envelope is not None
        assert no_summary.value.envelope.details == {"runStatus": "failed"}


def test_a_body_nested_too_deeply_is_a_400(live: LiveHost) -> None:
    status, _, body = live.raw("POST", "/runs", b"[" * 100_000 + b"]" * 100_000)
    assert status == 400 and json.loads(body)["details"] == {"field": "body"}


def test_a_named_suite_file_is_found_by_path_name_and_uri(tmp_path: Any) -> None:
    from openwop_client import RunConfigurable

    path = tmp_path / "billing.suite.json"
    path.write_text(json.dumps(billing_suite().data))
    with running(OpenWopHost([str(path)])) as live:
        client = live.client()
        for ref in (str(path), "billing.suite.json", path.as_uri(), BILLING):
            body = CreateRunRequest(
                mode="eval",
                evalSuiteRef=ref,
                agentId="scripted",
                # The client's dataclass sends its unset sections as null: read as absent.
                configurable=RunConfigurable(extensions={"workbench": {"seed": 1}}),
            )
            run_id = client.runs_create(body).runId
            events = finished(client, run_id)
            assert events[0].payload["x-seed"] == 1, ref
            assert client.runs_poll_events(run_id, after_sequence=-1).events[0].sequence == 0
        with pytest.raises(WopError) as other:
            client.runs_create(
                CreateRunRequest(mode="eval", evalSuiteRef="/etc/passwd", agentId="scripted")
            )
        assert other.value.status == 400


def test_a_served_folder_never_serves_a_file_outside_it(tmp_path: Any) -> None:
    """evalSuiteRef into a served folder: ``..``, absolute paths, and a symlink leading out
    of the folder are refused naming evalSuiteRef, by path and by suite id alike; the suite
    inside the folder is served both ways (so the refusals are not a broken folder)."""
    served, outside = tmp_path / "served", tmp_path / "outside"
    served.mkdir()
    outside.mkdir()
    inside = billing_suite().data
    (served / "inside.suite.json").write_text(json.dumps(inside))
    secret = billing_suite().data
    secret["suiteId"] = "local.workbench.evals.outside"
    (outside / "secret.suite.json").write_text(json.dumps(secret))
    (served / "link.suite.json").symlink_to(outside / "secret.suite.json")
    (served / "linked-dir").symlink_to(outside, target_is_directory=True)
    with running(OpenWopHost([served])) as live:
        client = live.client()
        for ref in ("inside.suite.json", BILLING):
            finished(client, create_ref(client, ref))
        refs = (
            "link.suite.json",
            "linked-dir/secret.suite.json",
            "suite://local.workbench.evals.outside",
            "../outside/secret.suite.json",
            str(outside / "secret.suite.json"),
            (outside / "secret.suite.json").as_uri(),
        )
        for ref in refs:
            with pytest.raises(WopError) as refused:
                create_ref(client, ref)
            assert refused.value.status == 400 and refused.value.envelope is not None, ref
            assert refused.value.envelope.details == {"field": "evalSuiteRef"}, ref
            assert "outside" not in refused.value.envelope.message.replace(ref, ""), ref
        assert len(live.host.store) == 2


def create_ref(client: OpenwopClient, ref: str) -> str:
    body = CreateRunRequest(mode="eval", evalSuiteRef=ref, agentId="scripted")
    return str(client.runs_create(body).runId)


def test_a_quiet_stream_sends_keep_alives_at_the_set_interval(
    live: LiveHost, gated: GatedAgent
) -> None:
    """While a run is quiet the stream stays open and sends a comment every keepalive (0.2 s
    here): a few a second, not a stream of them."""
    import http.client

    client = live.client()
    gated.gate.clear()
    run_id = create(client, "gated")
    connection = http.client.HTTPConnection("127.0.0.1", int(live.url.rsplit(":", 1)[1]), timeout=5)
    connection.request(
        "GET",
        f"/runs/{run_id.replace('/', '~2F')}/events",
        headers={"Authorization": f"Bearer {live.key}", "Last-Event-ID": "1"},
    )
    response = connection.getresponse()
    comments = 0
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        line = response.fp.readline()
        comments += line.startswith(b": keep-alive")
    connection.close()
    gated.gate.set()
    assert 2 <= comments <= 8, comments
    assert finished(client, run_id)[-1].type == "run.completed"
