"""What the host refuses, and how: R11 bodies naming the first offending field before anything
runs, auth failures in OpenWOP's error envelope, idempotency keys (SPEC R11, R43).

Through the official client, whose ``WopError`` carries the envelope; raw HTTP where the test
needs a body the client would not send (member order, a non-JSON body, a wrong content type).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openwop_client import CreateRunRequest, OpenwopClient, WopError

import workbench as wb
from helpers.openwop_host import SCHEMAS, LiveHost, billing_suite, running, schema_errors, start
from workbench.server import ApiKey, OpenWopHost

BILLING = "suite://local.workbench.evals.billing-support"
READ_KEY = "read-only-key-0123456789"


class CountingAgent:
    """An agent that records that it ran (a refused run must never reach it)."""

    agent_id = "counting-agent"

    def __init__(self) -> None:
        self.runs = 0

    def run(self, task_input: Any, tools: wb.ToolInterface) -> wb.Decision:
        self.runs += 1
        return wb.ScriptedAgent().run(task_input, tools)


@pytest.fixture(scope="module")
def counting() -> CountingAgent:
    return CountingAgent()


@pytest.fixture(scope="module")
def live(counting: CountingAgent, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveHost]:
    folder = tmp_path_factory.mktemp("served")
    bad = billing_suite().data
    bad["tasks"][0]["fixtures"]["toolResponses"][3]["isError"] = "true"
    (folder / "bad.suite.json").write_text(json.dumps(bad))
    keys = [ApiKey("run-key-0123456789abcdef"), ApiKey(READ_KEY, "read", "reader")]
    host = OpenWopHost(
        [billing_suite(), folder],
        runs=[Path(__file__).resolve().parents[1] / "fixtures" / "billing-support.openwop.jsonl"],
        agents={"counting": counting},
        api_keys=keys,
    )
    served = start(host)
    yield served
    served.served.stop()


def refusal(live: LiveHost, body: Any) -> dict[str, Any]:
    """The envelope of a refused raw POST /runs (asserting it is a 400)."""
    status, headers, raw = live.raw("POST", "/runs", body)
    assert status == 400, raw
    assert headers["content-type"].startswith("application/json")
    envelope: dict[str, Any] = json.loads(raw)
    assert schema_errors(envelope, "error-envelope.schema.json") == []
    return envelope


def field_of(error: WopError) -> str:
    assert error.status == 400 and error.envelope is not None
    assert error.envelope.error == "validation_error"
    return str(error.envelope.details["field"])


def run_count(live: LiveHost) -> int:
    return len(live.host.store)


def test_a_refusal_names_the_first_offending_field_in_document_order(live: LiveHost) -> None:
    """R11: two bad members; which one is named follows the body's own order."""
    a = refusal(live, {"mode": "eval", "agentId": "nobody", "evalSuiteRef": "nope"})
    b = refusal(live, {"mode": "eval", "evalSuiteRef": "nope", "agentId": "nobody"})
    assert a["details"] == {"field": "agentId"} and b["details"] == {"field": "evalSuiteRef"}
    assert "nobody" in a["message"] and "scripted" in a["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "workflow", "evalSuiteRef": BILLING, "agentId": "scripted"}, "mode"),
        ({"evalSuiteRef": BILLING, "agentId": "scripted"}, "mode"),
        ({"mode": "eval", "agentId": "scripted"}, "evalSuiteRef"),
        ({"mode": "eval", "evalSuiteRef": BILLING}, "agentId"),
        ({"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted", "x": 1}, "x"),
        ({"mode": "eval", "evalSuiteRef": "../etc/passwd", "agentId": "scripted"}, "evalSuiteRef"),
        ({"mode": "eval", "evalSuiteRef": "missing.json", "agentId": "scripted"}, "evalSuiteRef"),
        (
            {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "a b"},
            "agentId",
        ),
        (
            {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted", "callbackUrl": "x"},
            "callbackUrl",
        ),
        (
            {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted", "tags": [1]},
            "tags[0]",
        ),
        (
            {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted",
             "configurable": {"extensions": {"workbench": {"seed": 1}}}},
            "configurable.version",
        ),
        (
            {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted",
             "configurable": {"version": 1, "extensions": {"workbench": {"seed": -1}}}},
            "configurable.extensions.workbench.seed",
        ),
        (
            {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted",
             "configurable": {"version": 1, "extensions": {"workbench": {"speed": 1}}}},
            "configurable.extensions.workbench.speed",
        ),
        (
            {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted",
             "configurable": {"version": 1, "extensions": {"workbench": {"trials": 10**9}}}},
            "configurable.extensions.workbench.trials",
        ),
        (
            {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted",
             "fixtureRuns": {"no-such-task": "northwind/run-2026-11-03-billing-7f3a9c2e"}},
            "fixtureRuns.no-such-task",
        ),
        (
            {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted",
             "fixtureRuns": {"run": "northwind/not-loaded"}},
            "fixtureRuns.run",
        ),
        (
            {"mode": "eval", "evalSuiteRef": "bad.suite.json", "agentId": "scripted"},
            "tasks[0].fixtures.toolResponses[3].isError",
        ),
    ],
)  # fmt: skip
def test_bad_run_creates_are_refused_naming_the_field(
    live: LiveHost, body: dict[str, Any], field: str
) -> None:
    assert refusal(live, body)["details"] == {"field": field}


def test_refusals_come_before_anything_runs(live: LiveHost, counting: CountingAgent) -> None:
    """R11: a refused create leaves no run, no event, no agent call."""
    client = live.client("run-key-0123456789abcdef")
    before, calls = run_count(live), counting.runs
    with pytest.raises(WopError) as refused:
        client.runs_create(
            CreateRunRequest(mode="eval", evalSuiteRef="bad.suite.json", agentId="counting")
        )
    assert field_of(refused.value) == "tasks[0].fixtures.toolResponses[3].isError"
    assert run_count(live) == before and counting.runs == calls
    listing = client.runs_list(limit=100)
    assert listing is not None and len(listing.runs) == before
    # The same agent does run an acceptable suite (so the count above could have moved).
    done = client.runs_create(
        CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="counting")
    )
    list(client.runs_events(done.runId))
    assert counting.runs == calls + 1


def test_a_script_the_scripted_agent_cannot_run_is_refused(tmp_path: Path) -> None:
    """R23 at create: a task input that is not a script is a 400 naming it, before a run."""
    suite = billing_suite().data
    suite["tasks"][0]["input"] = {"script": [{"tool": "x", "onError": "panic"}]}
    with running(OpenWopHost([suite])) as live:
        with pytest.raises(WopError) as refused:
            live.client().runs_create(
                CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="scripted")
            )
        assert field_of(refused.value) == "tasks[0].input.script[0].onError"
        assert len(live.host.store) == 0


def test_a_body_that_is_not_json_or_not_an_object(live: LiveHost) -> None:
    status, _, raw = live.raw("POST", "/runs", b"{not json")
    assert status == 400 and json.loads(raw)["details"] == {"field": "body"}
    assert refusal(live, [1, 2])["details"] == {"field": "body"}
    status, _, raw = live.raw("POST", "/runs", b'{"mode": NaN}')
    assert status == 400


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b'{"mode": "eval", "evalSuiteRef": "\xff"}', "UTF-8"),
        (b"\xef\xbb\xbf{}", "not JSON"),
        (b'{"mode": "eval", "metadata": {"a": ' + b"9" * 5000 + b"}}", "more than 100 digits"),
        (b'{"mode": "eval", "metadata": {"a": 1e999}}', "range"),
        (b'{"mode": "eval", "metadata": {"a": -Infinity}}', "not JSON"),
        (b"[" * 50_000 + b"]" * 50_000, "nested too deeply"),
    ],
)
def test_hostile_bodies_are_400_naming_the_body(live: LiveHost, raw: bytes, says: str) -> None:
    """R11, hostile input: bytes that are not UTF-8, integers Python will not convert, numbers
    a double cannot hold (they came back as ``Infinity``, which is not JSON) and deep nesting
    are each a 400 naming ``body``, never a 500 or a run."""
    before = run_count(live)
    status, _, answer = live.raw("POST", "/runs", raw)
    assert status == 400, answer
    envelope = json.loads(answer)
    assert envelope["details"] == {"field": "body"} and says in envelope["message"]
    assert "sys." not in envelope["message"]  # no Python hint about its own settings
    assert run_count(live) == before


def test_a_client_that_leaves_mid_body_leaves_no_traceback(
    live: LiveHost, caplog: pytest.LogCaptureFixture
) -> None:
    """A body cut off by the client (it promised more than it sent) is logged as a disconnect,
    not as a host failure with a traceback; the host keeps serving."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(live.url)
    with caplog.at_level("INFO", logger="workbench.server"):
        with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
            sock.sendall(
                b"POST /runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Authorization: Bearer " + live.key.encode() + b"\r\n"
                b'Content-Length: 1000\r\n\r\n{"mode": '
            )
        deadline = time.monotonic() + 5
        while "disconnected" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.02)
    assert "disconnected" in caplog.text
    assert "Traceback" not in caplog.text and "failed" not in caplog.text
    assert live.client().runs_list() is not None


def test_a_wrong_content_type_or_a_huge_body(live: LiveHost) -> None:
    status, _, raw = live.raw("POST", "/runs", b"mode=eval", {"Content-Type": "text/plain"})
    assert status == 415 and json.loads(raw)["error"] == "unsupported_media_type"
    status, _, raw = live.raw("POST", "/runs", b"[" + b"0," * 600_000 + b"0]")
    assert status == 413 and json.loads(raw)["error"] == "payload_too_large"


def test_auth_failures_are_401_and_403_envelopes(live: LiveHost) -> None:
    """R43: no key or a wrong key is 401 unauthenticated; a read-only key creating is 403."""
    status, headers, raw = live.raw("GET", "/runs", auth=False)
    assert status == 401 and json.loads(raw)["error"] == "unauthenticated"
    assert headers["www-authenticate"].startswith("Bearer")
    assert schema_errors(json.loads(raw), "error-envelope.schema.json") == []
    status, _, raw = live.raw("GET", "/runs", headers={"Authorization": "Basic abc"})
    assert status == 401
    with pytest.raises(WopError) as wrong:
        OpenwopClient(live.url, "not-the-key-at-all-0000").runs_list()
    assert wrong.value.status == 401 and wrong.value.envelope is not None
    assert wrong.value.envelope.error == "unauthenticated"
    reader = OpenwopClient(live.url, READ_KEY)
    assert reader.runs_list() is not None  # a read key reads
    with pytest.raises(WopError) as forbidden:
        reader.runs_create(CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="scripted"))
    assert forbidden.value.status == 403 and forbidden.value.envelope is not None
    assert forbidden.value.envelope.error == "forbidden"
    # Discovery needs no key (the client sends none).
    assert OpenwopClient(live.url, "anything").discovery_capabilities().preferredVersion == "2.0"


def test_sse_without_a_key_is_a_401_envelope(live: LiveHost) -> None:
    from urllib.error import HTTPError

    client = live.client("run-key-0123456789abcdef")
    run_id = client.runs_create(
        CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="scripted")
    ).runId
    with pytest.raises(HTTPError) as denied:
        list(OpenwopClient(live.url, "wrong-key-wrong-key-00").runs_events(run_id))
    assert denied.value.code == 401 and json.load(denied.value)["error"] == "unauthenticated"


def test_an_idempotency_key_answers_the_first_create_again(live: LiveHost) -> None:
    client = live.client("run-key-0123456789abcdef")
    body = CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="scripted", tags=["a"])
    before = run_count(live)
    first = client.runs_create(body, idempotency_key="create-1")
    again = client.runs_create(body, idempotency_key="create-1")
    assert again.runId == first.runId and run_count(live) == before + 1
    status, headers, raw = live.raw(
        "POST",
        "/runs",
        {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted", "tags": ["a"]},
        {"Idempotency-Key": "create-1", "Authorization": "Bearer run-key-0123456789abcdef"},
    )
    assert status == 201 and json.loads(raw)["runId"] == first.runId
    assert headers["openwop-idempotent-replay"] == "true"
    other = CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="scripted", tags=["b"])
    with pytest.raises(WopError) as mismatch:
        client.runs_create(other, idempotency_key="create-1")
    assert mismatch.value.status == 409 and mismatch.value.envelope is not None
    assert mismatch.value.envelope.error == "idempotency_key_mismatch"
    with pytest.raises(WopError) as invalid:
        client.runs_create(body, idempotency_key="k" * 256)
    assert invalid.value.status == 400 and invalid.value.envelope is not None
    assert invalid.value.envelope.error == "idempotency_key_invalid"
    assert client.runs_create(body, idempotency_key="create-2").runId != first.runId


def test_a_refused_create_is_not_remembered_by_its_idempotency_key(live: LiveHost) -> None:
    client = live.client("run-key-0123456789abcdef")
    bad = CreateRunRequest(mode="eval", evalSuiteRef="nope", agentId="scripted")
    for _ in range(2):
        with pytest.raises(WopError) as refused:
            client.runs_create(bad, idempotency_key="refused-1")
        assert field_of(refused.value) == "evalSuiteRef"


def test_a_profile_without_trials_refuses_asking_for_them() -> None:
    """R10, R11: ``trials`` needs ``agents.evalSuite.trials``, whether a suite or a request asks
    for them: a create's ``configurable`` and a fork's overlay are refused naming the member,
    before anything runs."""
    from openwop_client import ForkRunRequest

    clean = billing_suite().data
    for entry in clean["tasks"][0]["fixtures"]["toolResponses"]:
        entry.pop("isError", None)
    narrow = wb.HostProfile(name="no-trials", trials=False)
    trials = {"version": 1, "extensions": {"workbench": {"trials": 3}}}
    with running(OpenWopHost([clean], profile=narrow)) as live:
        client = live.client()
        with pytest.raises(WopError) as refused:
            client.runs_create(
                CreateRunRequest(
                    mode="eval", evalSuiteRef=BILLING, agentId="scripted", configurable=trials
                )
            )
        assert field_of(refused.value) == "configurable.extensions.workbench.trials"
        assert len(live.host.store) == 0
        run_id = client.runs_create(
            CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="scripted")
        ).runId
        list(client.runs_events(run_id, timeout_seconds=10))
        with pytest.raises(WopError) as forked:
            client.runs_fork(
                run_id,
                ForkRunRequest(
                    fromSeq=0, mode="branch", runOptionsOverlay={"configurable": trials}
                ),
            )
        assert field_of(forked.value) == (
            "runOptionsOverlay.configurable.extensions.workbench.trials"
        )
        assert len(live.host.store) == 1


def test_every_error_answer_is_an_official_envelope_with_its_code_s_status(
    live: LiveHost,
) -> None:
    """Each kind of error the host answers is valid against the official
    ``error-envelope.schema.json`` (its per-code ``details`` rules included), and its HTTP
    status is the one the schema's ``x-openwop-http-status`` gives the code."""
    statuses = json.loads((SCHEMAS / "error-envelope.schema.json").read_text(encoding="utf-8"))[
        "x-openwop-http-status"
    ]
    ok = {"mode": "eval", "evalSuiteRef": BILLING, "agentId": "scripted"}
    client = live.client("run-key-0123456789abcdef")
    done = client.runs_create(CreateRunRequest(**ok)).runId
    list(client.runs_events(done, timeout_seconds=10))
    wire = done.replace("/", "~2F")
    requests: list[tuple[str, str, Any, dict[str, str]]] = [
        ("POST", "/runs", {"mode": "workflow"}, {}),
        ("POST", "/runs", b"x" * (2 << 20), {}),
        ("POST", "/runs", b"mode=eval", {"Content-Type": "text/plain"}),
        ("GET", "/runs", None, {"Authorization": "Bearer not-a-key-not-a-key"}),
        ("POST", "/runs", ok, {"Authorization": f"Bearer {READ_KEY}"}),
        ("GET", "/runs", None, {"OpenWOP-Version": "3.0"}),
        ("GET", "/runs/workbench~2F000000000000000000000000", None, {}),
        ("GET", "/nothing-here", None, {}),
        ("DELETE", "/runs", None, {}),
        ("POST", f"/runs/{wire}/cancel", None, {}),
        ("POST", f"/runs/{wire}:fork", {"mode": "replay", "fromSeq": 999}, {}),
        ("GET", f"/runs/{wire}/events?streamMode=values", None, {}),
        ("POST", "/runs", ok, {"Idempotency-Key": "\t"}),
    ]
    codes = set()
    for method, path, body, headers in requests:
        status, answered, raw = live.raw(method, path, body, headers)
        assert answered["content-type"].startswith("application/json"), path
        envelope = json.loads(raw)
        assert schema_errors(envelope, "error-envelope.schema.json") == [], (path, envelope)
        code = envelope["error"]
        if not code.startswith("workbench."):  # an extension code: not in the registry
            assert statuses[code] == status, (path, code, status)
        codes.add(code)
    assert len(codes) == len(requests) - 1  # the two 404s share not_found
    # The schema's rules can fail: an unknown code, and a stream-mode refusal whose details
    # do not list the modes.
    envelope_schema = "error-envelope.schema.json"
    assert schema_errors({"error": "oops", "message": "x"}, envelope_schema) != []
    no_modes = {"error": "unsupported_stream_mode", "message": "x", "details": {}}
    assert schema_errors(no_modes, envelope_schema) != []
