"""``workbench serve-host`` on the command line: it prints the URL and a generated key, serves
an OpenWOP client, stops on SIGINT, and answers bad input with exit 2 and one line (R43)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from openwop_client import CreateRunRequest, OpenwopClient, WopError

import workbench as wb
from helpers.openwop_host import BILLING_LOG, ROOT, billing_suite
from workbench._suite.capabilities import MAX_TRIALS
from workbench.cli import main


def _serve(args: list[str]) -> tuple[subprocess.Popen[str], str, list[str]]:
    """Start serve-host; return the process, its URL and what it printed (read on a thread,
    so the list keeps filling while the test runs)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    process = subprocess.Popen(
        [sys.executable, "-m", "workbench.cli", "serve-host", *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    lines: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        serving = [ln for ln in lines if ln.startswith("workbench serve-host: serving ")]
        if serving:
            time.sleep(0.3)  # the rest of the banner follows at once
            return process, serving[0].split()[-1], lines
        time.sleep(0.02)
    process.kill()
    raise AssertionError(f"serve-host did not start: {lines}")


@pytest.mark.slow
def test_serve_host_prints_url_and_key_and_serves_the_client(tmp_path: Path) -> None:
    suite_file = tmp_path / "billing.suite.json"
    suite_file.write_text(json.dumps(billing_suite().data), encoding="utf-8")
    process, url, lines = _serve([str(suite_file), "--runs", str(BILLING_LOG), "--port", "0"])
    try:
        banner = list(lines)
        assert url.startswith("http://127.0.0.1:")
        key = next(ln.split()[1] for ln in banner if ln.strip().startswith("key: "))
        assert key.startswith("wbk_") and len(key) > 40
        assert any("local.workbench.evals.billing-support@1.0.0" in ln for ln in banner)
        assert any("northwind/run-2026-11-03-billing-7f3a9c2e" in ln for ln in banner)
        client = OpenwopClient(url, key, timeout=10)
        run = client.runs_create(
            CreateRunRequest(
                mode="eval",
                evalSuiteRef="suite://local.workbench.evals.billing-support",
                agentId="scripted",
                fixtureRuns={"run": "northwind/run-2026-11-03-billing-7f3a9c2e"},
            )
        )
        events = list(client.runs_events(run.runId, timeout_seconds=10))
        assert events[0].payload["x-fixtureRuns"] == {
            "run": "northwind/run-2026-11-03-billing-7f3a9c2e"
        }
        assert events[-1].type == "run.completed"
        summary = client.runs_eval_summary(run.runId)
        assert summary is not None and summary.passed
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(30)
    assert code == 0


@pytest.mark.slow
def test_serve_host_takes_keys_from_a_file(tmp_path: Path) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_text("# keys\nfull-access-key-0123456789\nreadonly-key-0123456789 read viewer\n")
    process, url, lines = _serve([str(tmp_path), "--port", "0", "--api-key-file", str(keys)])
    try:
        banner = list(lines)
        assert not any("wbk_" in ln for ln in banner)  # no key generated, none printed
        assert OpenwopClient(url, "full-access-key-0123456789").runs_list() is not None
        reader = OpenwopClient(url, "readonly-key-0123456789")
        assert reader.runs_list() is not None
        body = CreateRunRequest(mode="eval", evalSuiteRef="nothing-here", agentId="scripted")
        with pytest.raises(WopError) as forbidden:  # a read key may only GET
            reader.runs_create(body)
        assert forbidden.value.status == 403
        with pytest.raises(WopError) as unknown:  # a key not in the file
            OpenwopClient(url, "wbk_" + "x" * 40).runs_list()
        assert unknown.value.status == 401 and unknown.value.envelope is not None
        assert unknown.value.envelope.error == "unauthenticated"
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(30)
    assert code == 0


@pytest.mark.slow
def test_serve_host_profile_narrows_discovery_and_refusals(tmp_path: Path) -> None:
    """R10, R11 through --profile: what the profile does not advertise is absent from discovery
    and refused at create naming the first offending field, before anything runs; what it does
    advertise still runs (so the refusals are the profile's doing)."""
    suite_file = tmp_path / "billing.suite.json"
    suite_file.write_text(json.dumps(billing_suite().data), encoding="utf-8")
    narrow = wb.HostProfile(
        name="narrow", fixture_errors=False, trials=False, recorded_fixtures=False
    )
    profile = tmp_path / "narrow.json"
    profile.write_text(json.dumps(narrow.to_json()), encoding="utf-8")
    args = [str(suite_file), "--runs", str(BILLING_LOG), "--profile", str(profile), "--port", "0"]
    process, url, lines = _serve(args)
    billing = "suite://local.workbench.evals.billing-support"
    recorded = "northwind/run-2026-11-03-billing-7f3a9c2e"
    try:
        key = next(ln.split()[1] for ln in list(lines) if ln.strip().startswith("key: "))
        client = OpenwopClient(url, key, timeout=10)
        facets = client.discovery_capabilities().family("agents").facets["evalSuite"]
        assert facets["fixtureErrors"] is False and facets["trials"] is False
        assert facets["recordedFixtures"] is False and facets["fixtureMatching"] is True

        def refused(**body: Any) -> object:
            with pytest.raises(WopError) as caught:
                client.runs_create(CreateRunRequest(mode="eval", agentId="scripted", **body))
            assert caught.value.status == 400 and caught.value.envelope is not None
            assert caught.value.envelope.error == "validation_error"
            return caught.value.envelope.details["field"]

        trials = {"version": 1, "extensions": {"workbench": {"trials": 2}}}
        assert refused(evalSuiteRef=billing) == "tasks[0].fixtures.toolResponses[3].isError"
        assert (
            refused(evalSuiteRef="conformance-eval-fixture-error")
            == "tasks[0].fixtures.toolResponses[0].isError"
        )
        assert refused(evalSuiteRef=billing, fixtureRuns={"run": recorded}) == "fixtureRuns"
        assert (
            refused(evalSuiteRef=billing, configurable=trials)
            == "configurable.extensions.workbench.trials"
        )
        listing = client.runs_list(limit=100)
        assert listing is not None and listing.runs == []  # nothing ran
        # A suite using only what the profile advertises runs.
        clean = billing_suite().data
        clean["suiteId"] = "local.workbench.evals.billing-clean"
        for entry in clean["tasks"][0]["fixtures"]["toolResponses"]:
            entry.pop("isError", None)
        (tmp_path / "clean.suite.json").write_text(json.dumps(clean), encoding="utf-8")
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(30)
    assert code == 0
    process, url, lines = _serve(
        [str(tmp_path / "clean.suite.json"), "--profile", str(profile), "--port", "0"]
    )
    try:
        key = next(ln.split()[1] for ln in list(lines) if ln.strip().startswith("key: "))
        client = OpenwopClient(url, key, timeout=10)
        run = client.runs_create(
            CreateRunRequest(
                mode="eval", evalSuiteRef="local.workbench.evals.billing-clean", agentId="scripted"
            )
        )
        events = list(client.runs_events(run.runId, timeout_seconds=10))
        assert events[-1].type == "run.completed"
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(30)
    assert code == 0


def _bad(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["serve-host", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return err[0]


def _bad_before_serving(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """:func:`_bad`, failing (not hanging) when serve-host serves instead of refusing."""

    def too_long(signum: int, frame: object) -> None:
        raise TimeoutError("serve-host started serving instead of refusing")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(60)
    try:
        return _bad(args, capsys)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_bad_input_is_exit_2_and_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "s.json"
    suite.write_text(json.dumps(billing_suite().data))
    invalid = billing_suite().data
    invalid["tasks"][0]["fixtures"]["toolResponses"][2]["isError"] = "yes"
    bad_suite = tmp_path / "bad.json"
    bad_suite.write_text(json.dumps(invalid))
    assert "tasks[0].fixtures.toolResponses[2].isError" in _bad([str(bad_suite)], capsys)
    not_json = tmp_path / "broken.json"
    not_json.write_text("{")
    assert "broken.json" in _bad([str(not_json)], capsys)
    assert "no such file" in _bad([str(tmp_path / "missing.json")], capsys)
    assert "workbench promote" in _bad([str(BILLING_LOG)], capsys)  # a recording, not a suite
    assert "--port" in _bad([str(suite), "--port", "70000"], capsys)
    keys = tmp_path / "keys.txt"
    keys.write_text("short\n")
    assert "keys.txt:1" in _bad([str(suite), "--api-key-file", str(keys)], capsys)
    keys.write_text("a-long-enough-key-000000 admin\n")
    assert "keys.txt:1" in _bad([str(suite), "--api-key-file", str(keys)], capsys)
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps({"agents": {"evalSuite": {"modes": []}}, "toolHooks": {}}))
    assert "p.json" in _bad([str(suite), "--profile", str(profile)], capsys)
    runs = tmp_path / "runs.jsonl"
    runs.write_text("not an event\n")
    assert "runs.jsonl" in _bad([str(suite), "--runs", str(runs)], capsys)
    runs.write_text("not an event\n{\n[\n")  # several problems: the first, and how many more
    assert _bad([str(suite), "--runs", str(runs)], capsys).endswith("(and 2 more problems)")
    # a suite the host would refuse at every run create is refused before it serves
    over = billing_suite().data
    over["trials"] = MAX_TRIALS + 1
    over_file = tmp_path / "over.json"
    over_file.write_text(json.dumps(over))
    line = _bad_before_serving([str(over_file)], capsys)
    assert "the host would refuse every run of it: trials:" in line, line


def test_an_address_that_cannot_be_served_is_exit_2_and_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A port in use and an address that is not this machine's are refused before serving, in
    one line (uvicorn would exit from inside its loop with a traceback); a name that is not an
    address is refused without a DNS lookup (which can hang)."""
    suite = tmp_path / "s.json"
    suite.write_text(json.dumps(billing_suite().data))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = _bad([str(suite), "--port", str(port)], capsys)
        assert f"127.0.0.1:{port}" in line and "in use" in line
        with pytest.raises(OSError, match=f"127.0.0.1:{port}"):
            wb.serve_host(billing_suite(), port=port)
    for host in ("256.1.1.1", "no-such-host.invalid", "::1x"):
        assert "--host" in _bad([str(suite), "--host", host], capsys)


def test_ctrl_c_before_serving_is_a_quiet_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the suite files are still being checked (seconds on a busy machine) ends
    the command with 130 and no traceback; nothing was served, so nothing is printed."""
    import workbench.cli._serve_host as command

    def interrupted(path: str, profile: object) -> str | None:
        raise KeyboardInterrupt

    suite = tmp_path / "s.json"
    suite.write_text(json.dumps(billing_suite().data))
    monkeypatch.setattr(command, "_check_suite_file", interrupted)
    assert main(["serve-host", str(suite), "--port", "0"]) == 130
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
