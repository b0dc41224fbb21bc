"""The sweep report (workbench._report.html): self-contained, offline, escaped, deterministic."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers.hand_sweep import PNG_SIGNATURE, HandSweep, as_sweep_result, hand_sweep
from workbench import HostProfile, write_report
from workbench._report.html import REPORT_FILES

PAYLOAD = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def hostile() -> HandSweep:
    """A billing-like sweep whose recorded text (a tool name, args, variant names) is markup."""
    tools = ("tickets:get", PAYLOAD, "billing:lookup", "email:send")
    return hand_sweep(tools, recorded_error=None, arg_text=PAYLOAD, name_prefix="<b>")


@pytest.fixture(scope="module")
def report(hostile: HandSweep, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    profile = HostProfile(name="strict-host", modes=("golden",), trials=False)
    return write_report(as_sweep_result(hostile), out, profile=profile)


def test_report_writes_every_file(report: Path) -> None:
    folder = report.parent
    assert report.name == "report.html"
    assert sorted(p.name for p in folder.iterdir()) == sorted(REPORT_FILES)
    for name in ("branches.png", "recovery.png", "divergence.png"):
        data = (folder / name).read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 5_000
    assert (folder / "sweep.csv").read_text(encoding="utf-8").startswith("variant,taskId,")
    assert (folder / "branches.csv").read_text(encoding="utf-8").startswith("node,parent,depth,")


def test_report_opens_without_network(report: Path) -> None:
    """No script or stylesheet is fetched: every script is inline, no <link> loads anything."""
    text = report.read_text(encoding="utf-8")
    assert not re.search(r"<script\b[^>]*\bsrc\s*=", text, re.IGNORECASE)
    assert not re.search(r"<link\b[^>]*\bhref\s*=", text, re.IGNORECASE)
    assert not re.search(r"@import", text)
    # The charts are there twice: static inline SVG and a spec for the inlined Vega libraries.
    assert text.count("<svg") >= 3
    assert 'id="spec-branches"' in text and "window.vegaEmbed" in text


def test_recorded_text_is_escaped(report: Path) -> None:
    """A payload, a tool name or a variant name with markup appears as text, never as markup."""
    text = report.read_text(encoding="utf-8")
    assert PAYLOAD not in text
    assert "<img src=x" not in text
    assert "<b>b" not in text  # the variant names start with "<b>"
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "&lt;b&gt;b01-hard" in text


def test_report_names_suite_and_host_profile(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    assert "billing-support" in text and "1.0.0" in text
    assert "strict-host" in text
    assert "&quot;trials&quot;: false" in text
    assert "Recovery per boundary" in text and "Per variant" in text


def test_same_inputs_give_the_same_report_bytes(
    hostile: HandSweep, report: Path, tmp_path: Path
) -> None:
    again = write_report(
        as_sweep_result(hostile),
        tmp_path,
        profile=HostProfile(name="strict-host", modes=("golden",), trials=False),
    )
    for name in REPORT_FILES:
        assert (tmp_path / name).read_bytes() == (report.parent / name).read_bytes(), name
    assert again == tmp_path / "report.html"


def test_static_report_leaves_out_the_libraries(hostile: HandSweep, tmp_path: Path) -> None:
    path = write_report(as_sweep_result(hostile), tmp_path, interactive=False)
    text = path.read_text(encoding="utf-8")
    assert "vegaEmbed" not in text and text.count("<svg") >= 3
    assert '"name": "workbench"' in text.replace("&quot;", '"')
