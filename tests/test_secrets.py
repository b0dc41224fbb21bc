"""Secrets do not survive promotion, in any output (SPEC R31, issue 16).

A corpus of 99 synthetic secret shapes (``helpers/secrets_corpus.py``: a seeded RNG, no literal
credential in the repository) is redacted one by one and, end to end, as one recorded run
whose args, results, error texts, headers, URLs and JSON-in-strings carry them: after ``promote``,
``replay --events-content`` and ``sweep``, no piece of any secret is left in the suite, the
event log, the summary, ``report.html`` or the CSVs. Ordinary payload text comes out unchanged.
The vendored gitleaks rule set stays byte for byte the released file, and every rule compiles.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from helpers.secrets_corpus import ALL, HELD_OUT, NEGATIVES, SHAPES, SecretShape, pieces
from workbench._promote.redact import REDACTED, gitleaks_rules, redact, redact_text
from workbench.cli import main

RULES = Path(__file__).resolve().parents[1] / "workbench" / "_promote" / "rules"


def survivors(shape: SecretShape, text: str) -> list[str]:
    return [piece for piece in pieces(shape.secret) if piece in text]


# --- the vendored rule set ----------------------------------------------------------------------


def test_the_vendored_rules_are_the_released_file_byte_for_byte() -> None:
    """SOURCE.md names the release and the SHA-256; the file must be exactly that."""
    source = (RULES / "SOURCE.md").read_text(encoding="utf-8")
    recorded = re.search(r"SHA-256 of the file: `([0-9a-f]{64})`", source)
    assert recorded is not None
    digest = hashlib.sha256((RULES / "gitleaks.toml").read_bytes()).hexdigest()
    assert digest == recorded.group(1)
    assert "MIT" in source and (RULES / "LICENSE-gitleaks").read_text().startswith("MIT License")


def test_every_payload_rule_compiles_with_re2() -> None:
    config = tomllib.loads((RULES / "gitleaks.toml").read_text(encoding="utf-8"))
    usable = [r for r in config["rules"] if "regex" in r and "path" not in r]
    assert len(usable) > 200
    assert len(gitleaks_rules().rules) == len(usable)


# --- shape by shape -----------------------------------------------------------------------------


def test_the_corpus_is_large_and_deterministic() -> None:
    assert len(ALL) >= 40 and len({s.name for s in ALL}) == len(ALL)
    assert len(SHAPES) == 70 and len(HELD_OUT) == 13


@pytest.mark.parametrize("shape", ALL, ids=[s.name for s in ALL])
def test_every_secret_shape_is_redacted(shape: SecretShape) -> None:
    """R31: no piece of the secret survives, wherever in a payload it sits."""
    for value in (
        {"t": shape.text},  # a bare string
        {"content": [{"type": "text", "text": shape.text}]},  # MCP text content
        {"body": json.dumps({"log": shape.text})},  # JSON inside a string
    ):
        out, found = redact(value, "args")
        text = json.dumps(out, ensure_ascii=False)
        assert survivors(shape, text) == [], (shape.name, text[:300])
        assert found and all(r.path.startswith("args") for r in found)
        assert not any(survivors(shape, json.dumps([r.to_json() for r in found])))


@pytest.mark.parametrize(("name", "text"), NEGATIVES, ids=[n for n, _ in NEGATIVES])
def test_ordinary_payload_text_is_left_alone(name: str, text: str) -> None:
    """No false positives on hashes, UUIDs, base64 images, token counts, prose, code..."""
    out, found = redact({"t": text})
    assert found == [] and out == {"t": text}, name


def test_redaction_is_idempotent_over_the_corpus() -> None:
    for shape in ALL:
        once, _ = redact({"t": shape.text})
        twice, again = redact(once)
        assert twice == once and again == [], shape.name


def test_a_masked_value_under_a_credential_key_is_redacted_again() -> None:
    """Already masked (``sk-...abcd``) is still a value under ``api_key``: replacing it is
    harmless, and keeping it would trust whoever masked it."""
    out, _ = redact({"api_key": "sk-...abcd"})
    assert out == {"api_key": REDACTED}


def test_scanning_stays_fast_on_long_hostile_strings() -> None:
    """RE2 keeps every rule linear: under Python's re four gitleaks rules took seconds on one
    40 KB base64-like string. A generous bound; the figures are in docs/performance.md."""
    hostile = [
        "token=" + "a1" * 20_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 40_000,
        "secret key token password " * 1600,
        "api_key" + " " * 10_000 + "=",
        "Authorization: " + "Bearer " * 5000,
    ]
    for text in hostile:
        redact_text.cache_clear()
        started = time.perf_counter()
        redact_text(text)
        assert time.perf_counter() - started < 5.0, text[:40]


# --- end to end: every output of promote, replay and sweep --------------------------------------


def _event(kind: str, sequence: int, payload: dict[str, Any]) -> str:
    return json.dumps(
        {
            "eventId": f"e{sequence}",
            "runId": "secrets-run",
            "type": kind,
            "sequence": sequence,
            "timestamp": f"2026-01-01T00:00:{sequence % 60:02d}Z",
            "schemaVersion": 1,
            "payload": payload,
        }
    )


def write_recording(path: Path) -> None:
    """One run whose every call carries a corpus secret: in args (four ways), in the result
    (text content, JSON in a string, structured) or in the error text of a failed call."""
    lines = [_event("run.started", 0, {"workflowId": "secrets"})]
    sequence = 1
    for number, shape in enumerate(ALL):
        call_id = f"c{number}"
        args: Any = [
            {"query": shape.text},
            {"headers": {"X-Note": shape.text}},
            {"url": "https://api.example.com/v1", "body": json.dumps({"note": shape.text})},
            {"command": shape.text},
        ][number % 4]
        called = {"toolName": "probe", "callId": call_id, "inputs": args}
        lines.append(_event("agent.tool-called", sequence, called))
        sequence += 1
        returned: dict[str, Any] = {"toolName": "probe", "callId": call_id}
        if number % 3 == 2:
            returned["error"] = {"code": "upstream", "message": f"failed: {shape.text}"}
            returned["status"] = "error"
        elif number % 3 == 1:
            returned["outcome"] = {"content": [{"type": "text", "text": json.dumps([shape.text])}]}
        else:
            returned["outcome"] = {"content": [{"type": "text", "text": shape.text}]}
        lines.append(_event("agent.tool-returned", sequence, returned))
        sequence += 1
    lines.append(_event("agent.tool-called", sequence, {"toolName": "finish", "callId": "z"}))
    lines.append(
        _event(
            "agent.tool-returned",
            sequence + 1,
            {
                "toolName": "finish",
                "callId": "z",
                "outcome": {"content": [{"type": "text", "text": "done"}]},
            },
        )
    )
    lines.append(_event("run.completed", sequence + 2, {"outputs": {"answer": "done"}}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_no_secret_survives_in_any_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R31 end to end: suite, promote's report, --events-content log, summary, report.html,
    sweep.csv and branches.csv hold no piece of any of the corpus's secrets."""
    recording = tmp_path / "run.openwop.jsonl"
    write_recording(recording)
    raw = recording.read_text(encoding="utf-8")
    assert all(not survivors(s, "") and survivors(s, raw) for s in ALL)  # they are all there

    suite = tmp_path / "suite.json"
    assert main(["promote", str(recording), "-o", str(suite)]) == 0
    promoted = capsys.readouterr().out
    events, summary = tmp_path / "events.jsonl", tmp_path / "summary.json"
    assert main(["replay", str(suite), "--events", str(events), "--events-content",
                 "--summary", str(summary)]) == 0  # fmt: skip
    capsys.readouterr()
    report = tmp_path / "report"
    code = main(["sweep", str(suite), "--faults", "tool:finish", "--kind", "flip",
                 "--out", str(report)])  # fmt: skip
    assert code == 0
    capsys.readouterr()

    suite_data = json.loads(suite.read_text(encoding="utf-8"))
    redactions = suite_data["x-promotion"]["redactions"]
    assert len(redactions) >= len(ALL)
    assert all(set(r) == {"path", "reason"} for r in redactions)
    outputs = {
        "promote's report": promoted,
        "suite": suite.read_text(encoding="utf-8"),
        "events": events.read_text(encoding="utf-8"),
        "summary": summary.read_text(encoding="utf-8"),
        **{
            name: (report / name).read_text(encoding="utf-8")
            for name in ("report.html", "sweep.csv", "branches.csv")
        },
    }
    assert '"probe"' in outputs["events"] and "probe" in outputs["branches.csv"]
    left = {
        (where, shape.name)
        for where, text in outputs.items()
        for shape in ALL
        if survivors(shape, text)
    }
    assert left == set()
