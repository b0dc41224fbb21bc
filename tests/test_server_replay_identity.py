"""Runs over HTTP are ``workbench replay`` runs: the same bytes, valid against the official
schemas, and independent when twenty run at once (SPEC R18, R22, R29, R43).

The events a client reads over SSE or poll, and the summary it reads from ``/eval-summary``,
are byte-identical to what ``workbench replay SUITE --seed S --trials T --events --summary``
writes for the same suite and seed; each event is valid against ``run-event.schema.json`` and
its payload schema; the summary against the extended schema and, without its extension
members, the official ``eval-summary.schema.json``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openwop_client import CreateRunRequest, OpenwopClient

import workbench as wb
from helpers.openwop_host import LiveHost, billing_suite, event_dict, jsonl, running, start
from workbench.cli import main as cli
from workbench.server import OpenWopHost

REF = "suite://local.workbench.evals.billing-support"


def chancy_suite() -> wb.Suite:
    """The billing suite with a seeded choice on the recorded failure (R23): seeds differ."""
    suite = billing_suite()
    task = suite.tasks[0]
    for step in task["input"]["script"]:
        if step.get("onError") == "skip":
            step["onError"] = {
                "choose": [{"p": 0.5, "policy": "skip"}, {"p": 0.5, "policy": "abort"}]
            }
    task["trials"] = 3
    return suite


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("suite") / "billing.suite.json"
    path.write_text(json.dumps(chancy_suite().data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def live(suite_file: Path) -> Iterator[LiveHost]:
    served = start(OpenWopHost([suite_file]))
    yield served
    served.served.stop()


def cli_replay(suite_file: Path, out: Path, seed: int, trials: int | None) -> tuple[str, bytes]:
    """``workbench replay`` of the suite: (events file text, summary file bytes)."""
    events, summary = out / f"events-{seed}.jsonl", out / f"summary-{seed}.json"
    argv = [
        str(suite_file),
        "--seed",
        str(seed),
        "--events",
        str(events),
        "--summary",
        str(summary),
    ]
    if trials is not None:
        argv += ["--trials", str(trials)]
    assert cli(["replay", *argv]) in (0, 1)
    return events.read_text(encoding="utf-8"), summary.read_bytes()


def options(seed: int, trials: int | None) -> dict[str, Any]:
    mine: dict[str, Any] = {"seed": seed}
    if trials is not None:
        mine["trials"] = trials
    return {"version": 1, "extensions": {"workbench": mine}}


@pytest.mark.parametrize(("seed", "trials"), [(0, None), (7, None), (3, 5)])
def test_events_and_summary_are_byte_identical_to_workbench_replay(
    live: LiveHost, suite_file: Path, tmp_path: Path, seed: int, trials: int | None
) -> None:
    """R22, R43: SSE, poll and /eval-summary give the bytes ``workbench replay`` writes."""
    expected_events, expected_summary = cli_replay(suite_file, tmp_path, seed, trials)
    client = live.client()
    body = CreateRunRequest(
        mode="eval", evalSuiteRef=REF, agentId="scripted", configurable=options(seed, trials)
    )
    run_id = client.runs_create(body).runId
    streamed = [event_dict(e) for e in client.runs_events(run_id, timeout_seconds=10)]
    assert jsonl(streamed) == expected_events
    polled = client.runs_poll_events(run_id)
    assert jsonl([event_dict(e) for e in polled.events]) == expected_events
    wire = run_id.replace("/", "~2F")
    # The bytes themselves: each SSE data line and the poll body carry the JSONL lines.
    _, _, sse = live.raw("GET", f"/runs/{wire}/events")
    data = [ln[6:] for ln in sse.decode("utf-8").splitlines() if ln.startswith("data: ")]
    assert "".join(d + "\n" for d in data) == expected_events
    _, _, poll = live.raw("GET", f"/runs/{wire}/events/poll")
    assert ",".join(expected_events.splitlines()).encode() in poll
    status, headers, summary = live.raw("GET", f"/runs/{wire}/eval-summary")
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert summary == expected_summary
    parsed = client.runs_eval_summary(run_id)
    assert parsed is not None and parsed.aggregateScore == json.loads(summary)["aggregateScore"]


def test_the_wire_documents_are_valid_against_the_official_schemas(
    live: LiveHost, check_event_log: Any
) -> None:
    """R18, R29: events against run-event (+ payloads); the summary against the extended
    schema, and without its extension members against the official eval-summary schema."""
    client = live.client()
    run_id = client.runs_create(
        CreateRunRequest(
            mode="eval", evalSuiteRef=REF, agentId="scripted", configurable=options(2, 4)
        )
    ).runId
    events = [event_dict(e) for e in client.runs_events(run_id, timeout_seconds=10)]
    assert check_event_log(events) == []
    assert [e["sequence"] for e in events] == list(range(len(events)))
    _, _, raw = live.raw("GET", f"/runs/{run_id.replace('/', '~2F')}/eval-summary")
    summary = json.loads(raw)
    assert wb.validate_summary(summary) == []
    official = {k: v for k, v in summary.items() if k != "fixtureMissCount"}
    official["tasks"] = [
        {k: v for k, v in t.items() if k not in ("fixtureMissCount", "trials")}
        for t in summary["tasks"]
    ]
    assert wb.validate_summary(official, official=True) == []
    assert wb.validate_summary(summary, official=True) != []  # the extension is real


def test_the_seed_reaches_the_run(live: LiveHost) -> None:
    """Different seeds, different draws (R23): the host does not drop the option."""
    client = live.client()
    logs = []
    for seed in (0, 1, 2, 3):
        run_id = client.runs_create(
            CreateRunRequest(
                mode="eval", evalSuiteRef=REF, agentId="scripted", configurable=options(seed, None)
            )
        ).runId
        logs.append([e.type for e in client.runs_events(run_id, timeout_seconds=10)])
    assert len({tuple(t) for t in logs}) > 1


def _same_but_ids(events: list[dict[str, Any]], expected: list[dict[str, Any]]) -> bool:
    strip = ("eventId", "runId")
    return [{k: v for k, v in e.items() if k not in strip} for e in events] == [
        {k: v for k, v in e.items() if k not in strip} for e in expected
    ]


def test_twenty_runs_at_once_each_give_their_own_replay(suite_file: Path) -> None:
    """Twenty clients create runs at the same moment (seeds 0..4, four runs each) and read
    them over SSE at once: every run id is unique, every log is ``replay`` of its seed (the
    first run of a seed has replay's very id), and every summary its own."""
    expected = {seed: wb.replay(chancy_suite(), seed=seed) for seed in range(5)}
    with running(OpenWopHost([suite_file], workers=4)) as live:
        barrier = threading.Barrier(20)
        results: dict[int, tuple[str, list[dict[str, Any]], Any]] = {}
        failures: list[BaseException] = []

        def one(index: int) -> None:
            try:
                client = OpenwopClient(live.url, live.key, timeout=30)
                body = CreateRunRequest(
                    mode="eval",
                    evalSuiteRef=REF,
                    agentId="scripted",
                    configurable=options(index % 5, None),
                )
                barrier.wait(10)
                run_id = client.runs_create(body).runId
                events = [event_dict(e) for e in client.runs_events(run_id, timeout_seconds=30)]
                results[index] = (run_id, events, client.runs_eval_summary(run_id))
            except BaseException as exc:  # reported below, on the test's thread
                failures.append(exc)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert failures == []
        assert len(results) == 20
        assert len({run_id for run_id, _, _ in results.values()}) == 20
        for index, (run_id, events, summary) in results.items():
            replayed = expected[index % 5]
            assert all(e["runId"] == run_id for e in events)
            assert _same_but_ids(events, replayed.events), index
            assert (
                summary is not None and summary.aggregateScore == replayed.summary["aggregateScore"]
            )
        unsalted = {run_id for run_id, _, _ in results.values()} & {
            r.run_id for r in expected.values()
        }
        assert len(unsalted) == 5
