"""A sweep report of many tasks stays small: charts for the most affected tasks only, every task
in the tables, task ids escaped everywhere, the same bytes twice (SPEC R33, R37, R38).

A report used to draw three charts per task, so its size and time grew with the task count
(20 tasks of 100 calls: 27 MB of HTML, 19 s; 800 tasks: 185 s). These tests bound the report by
its structure (how many charts, which tasks, which tables), not by wall time.
"""

from __future__ import annotations

import base64
import csv
import gzip
import json
import re
from pathlib import Path
from typing import cast

import pytest

from helpers.many_tasks import HOSTILE_IDS, Renamed, many_task_suite
from workbench import SweepResult, sweep, write_report
from workbench._report.overview import MAX_TASK_CHARTS, rank_tasks


@pytest.fixture(scope="module")
def many() -> SweepResult:
    """30 tasks; tasks 7, 12, 25 abort on any fault (the most affected), the rest recover."""
    return sweep(many_task_suite(30, {7, 12, 25}), progress=False)


@pytest.fixture(scope="module")
def many_report(many: SweepResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(many, tmp_path_factory.mktemp("many"), task_charts=2)


def _other_tasks(text: str) -> str:
    """The section of the tasks without charts."""
    start = text.index('id="other-tasks"')
    return text[start : text.index("</section>", start)]


def _chart_ids(text: str) -> list[str]:
    return re.findall(r'<div class="chart" data-spec="spec-([^"]+)">', text)


def test_only_the_most_affected_tasks_get_their_own_charts(many_report: Path) -> None:
    """30 tasks, task_charts=2: one chart of recovery by task, and three charts for each of the
    two most affected tasks (tasks 7 and 12: every fault unrecovered; suite order breaks the
    tie with task 25), not 90 charts."""
    text = many_report.read_text(encoding="utf-8")
    assert _chart_ids(text) == [
        "tasks",
        "branches-8", "recovery-8", "divergence-8",
        "branches-13", "recovery-13", "divergence-13",
    ]  # fmt: skip
    assert len(re.findall(r'data-spec="spec-[^"]+"><svg', text)) == 7  # a static SVG each
    assert len(re.findall(r'<script type="application/(?:json|gzip)" id="spec-', text)) == 7
    assert 'id="task-8"' in text and 'id="task-13"' in text and 'id="task-26"' not in text
    assert "the 2 most affected" in text and 'id="other-tasks"' in text


def test_every_task_is_still_in_the_report_tables(many: SweepResult, many_report: Path) -> None:
    text = many_report.read_text(encoding="utf-8")
    others = _other_tasks(text)
    for task_id in many.task_ids:
        if task_id in ("task-007", "task-012"):
            continue
        # each uncharted task's boundaries are in the one table of tasks without charts
        assert others.count(f"<td>{task_id}</td>") == 4, task_id  # 2 boundaries x 2 kinds
    recovery = list(csv.DictReader((many_report.parent / "recovery.csv").open(encoding="utf-8")))
    assert {r["taskId"] for r in recovery if r["level"] == "task"} == set(many.task_ids)


def test_the_pngs_hold_the_charted_tasks_only(many_report: Path) -> None:
    """The PNGs stack the charted tasks' charts (and recovery.png the chart by task first): their
    height follows task_charts, not the task count."""
    heights = {}
    for name in ("branches.png", "recovery.png", "divergence.png"):
        data = (many_report.parent / name).read_bytes()
        heights[name] = int.from_bytes(data[20:24], "big")
    assert heights["branches.png"] < 2 * 400
    assert heights["divergence.png"] < 2 * 400


def test_ranking_puts_unrecovered_tasks_first(many: SweepResult) -> None:
    ranks = rank_tasks(many.recovery(), many.task_ids)
    assert [r.task_id for r in ranks[:3]] == ["task-007", "task-012", "task-025"]
    assert [r.position for r in ranks[:3]] == [8, 13, 26]
    assert all(r.recovered == 0 and r.triggered == 4 for r in ranks[:3])
    assert [r.task_id for r in ranks[3:]] == [
        t for t in many.task_ids if t not in ("task-007", "task-012", "task-025")
    ]


def test_no_task_charts_leaves_the_chart_by_task(many: SweepResult, tmp_path: Path) -> None:
    report = write_report(many, tmp_path, task_charts=0, interactive=False)
    text = report.read_text(encoding="utf-8")
    assert _chart_ids(text) == ["tasks"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "branches.csv", "recovery.csv", "recovery.png", "report.html", "sweep.csv",
    ]  # fmt: skip
    assert "none (no task charts were asked for)" in text


def test_few_tasks_are_all_charted_as_before(tmp_path: Path) -> None:
    """A sweep of no more tasks than task_charts keeps a section with three charts per task."""
    result = sweep(many_task_suite(3, {1}), progress=False)
    text = write_report(result, tmp_path, interactive=False).read_text(encoding="utf-8")
    assert _chart_ids(text) == [
        "tasks",
        *(f"{name}-{n}" for n in (1, 2, 3) for name in ("branches", "recovery", "divergence")),
    ]
    assert "Each of the 3 tasks has its own section" in text
    assert 'id="other-tasks"' not in text


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3"])
def test_task_charts_must_be_a_count(many: SweepResult, tmp_path: Path, bad: object) -> None:
    with pytest.raises(ValueError, match="task_charts"):
        write_report(many, tmp_path / "out", task_charts=bad)  # type: ignore[arg-type]
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def hostile() -> SweepResult:
    """Six tasks, four with ids built to break out of HTML, SVG, scripts and spreadsheets."""
    result = sweep(many_task_suite(6, {0, 1, 2, 3}), progress=False)
    names = {f"task-{i:03d}": name for i, name in enumerate(HOSTILE_IDS)}
    return cast(SweepResult, Renamed(result, names))


def test_hostile_task_ids_are_escaped_everywhere(hostile: SweepResult, tmp_path: Path) -> None:
    """Task ids with markup, a script end, a formula and control characters appear as text in
    the page, the chart specs, the static SVGs and the CSVs (charted and uncharted tasks)."""
    report = write_report(hostile, tmp_path, task_charts=2)
    text = report.read_text(encoding="utf-8")
    assert "<img src=x" not in text
    assert "<script>window.__wbRan" not in text and "</script><script>" not in text
    assert "\x1b" not in text
    assert "&lt;img src=x onerror=window.__wbRan=1&gt;" in text
    for svg in re.findall(r"<svg.*?</svg>", text, re.S):
        assert "<img" not in svg and "<script" not in svg
    for kind, block in re.findall(
        r'<script type="application/(json|gzip)"[^>]*>(.*?)</script>', text, re.S
    ):
        assert "<" not in block and ">" not in block
        if kind == "gzip":
            assert "<img" not in gzip.decompress(base64.b64decode(block)).decode("utf-8")
    for name in ("sweep.csv", "branches.csv", "recovery.csv"):
        with (tmp_path / name).open(encoding="utf-8", newline="") as handle:
            for row in csv.reader(handle):
                for cell in row:
                    assert not cell.startswith(("=", "+", "@")), (name, cell)
                    assert "\x1b" not in cell


def test_a_many_task_report_is_the_same_bytes_twice(hostile: SweepResult, tmp_path: Path) -> None:
    first = write_report(hostile, tmp_path / "a", task_charts=2).parent
    second = write_report(hostile, tmp_path / "b", task_charts=2).parent
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in second.iterdir())
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_cli_task_charts_draws_that_many_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`workbench sweep SUITE --task-charts 1`: the chart by task and one task's three charts;
    its help names the report's default."""
    from workbench.cli import main

    path = tmp_path / "suite.json"
    path.write_text(json.dumps(many_task_suite(4, {2}).data), encoding="utf-8")
    code = main(["sweep", str(path), "--task-charts", "1", "--out", str(tmp_path / "out")])
    assert code == 0
    text = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert _chart_ids(text) == ["tasks", "branches-3", "recovery-3", "divergence-3"]
    capsys.readouterr()
    assert main(["sweep", "--help"]) == 0
    assert f"(default {MAX_TASK_CHARTS};" in " ".join(capsys.readouterr().out.split())


def test_a_large_chart_spec_is_gzipped_and_a_small_one_stays_json() -> None:
    """A spec over SPEC_GZIP_OVER bytes goes into the page gzipped and base64-encoded (the same
    bytes every time: gzip's header time is 0), and unpacks to the spec; a small one is JSON."""
    from workbench._report.embed import SPEC_GZIP_OVER, _spec_element

    small = {"data": {"values": [{"tool": "</script><b>"}]}}
    assert _spec_element("s", small) == (
        '<script type="application/json" id="spec-s">'
        '{"data":{"values":[{"tool":"\\u003c/script\\u003e\\u003cb\\u003e"}]}}</script>'
    )
    large = {"data": {"values": [{"step": i, "tool": "</script>"} for i in range(2000)]}}
    element = _spec_element("l", large)
    assert element == _spec_element("l", large)
    found = re.fullmatch(
        r'<script type="application/gzip" id="spec-l">([A-Za-z0-9+/=]+)</script>', element
    )
    assert found is not None and len(element) < SPEC_GZIP_OVER
    assert json.loads(gzip.decompress(base64.b64decode(found.group(1)))) == large


@pytest.mark.slow
def test_a_200_task_report_is_bounded_by_its_structure(tmp_path: Path) -> None:
    """200 tasks: the default number of charted tasks, one table row per uncharted boundary and
    kind, and an HTML file whose size does not grow with three charts a task."""
    result = sweep(many_task_suite(200, set(range(0, 200, 9))), progress=False)
    report = write_report(result, tmp_path)
    text = report.read_text(encoding="utf-8")
    assert len(_chart_ids(text)) == 1 + 3 * MAX_TASK_CHARTS
    others = _other_tasks(text)
    assert others.count("<tr>") == 1 + (200 - MAX_TASK_CHARTS) * 4
    assert report.stat().st_size < 4_000_000
