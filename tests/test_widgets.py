"""The Workbench widget, headless: built in plain Python, driven by ``.value`` and ``.click()``.

Widgets are a thin view: each test compares what a click did with the library call it stands
for (``toggle_error``, ``inject``, ``replay``, ``Suite.save``, ``check_suite``).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import altair as alt
import ipywidgets as w
import pytest

from helpers.paths import BILLING, HOSTILE
from helpers.suites import tool_responses
from workbench import (
    Fault,
    HostProfile,
    HostRefusal,
    Suite,
    check_suite,
    error_payload,
    inject,
    promote,
    replay,
    sweep,
    toggle_error,
)
from workbench._load.synthetic import write_synthetic_log
from workbench._sweep.variants import DEFAULT_PAYLOAD
from workbench.widgets import Workbench


def walk(widget: Any) -> Iterator[Any]:
    """Every widget under ``widget`` (children, and a Tab's pages)."""
    yield widget
    for child in getattr(widget, "children", ()) or ():
        yield from walk(child)


def html_values(wb: Workbench) -> list[str]:
    """The value of every HTML widget in the workbench."""
    return [x.value for x in walk(wb.widget) if isinstance(x, w.HTML | w.HTMLMath)]


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.openwop.jsonl"
    write_synthetic_log(path, n_calls=2000)
    return path


@pytest.fixture
def wb() -> Workbench:
    return Workbench(str(BILLING))


# -- boundaries ------------------------------------------------------------------------------


def test_row_toggle_changes_the_suite_exactly_as_toggle_error(wb: Workbench) -> None:
    """R5/R32 flip: the row-5 toggle is ``toggle_error(suite, task, 5)``, nothing more."""
    task_id = wb.suite.tasks[0]["taskId"]
    expected = toggle_error(wb.suite, task_id, 5)
    toggle = wb.boundaries.toggle(5)
    assert toggle.value is False
    toggle.value = True
    assert wb.suite == expected
    assert tool_responses(wb.suite)[5]["isError"] is True
    assert toggle.description == "isError"


def test_toggling_a_recorded_error_off_and_on_restores_the_bytes(wb: Workbench) -> None:
    """Boundary 3 of the billing run is a recorded failure: off then on gives the same JSON."""
    before = wb.suite.to_json()
    toggle = wb.boundaries.toggle(3)
    assert toggle.value is True
    toggle.value = False
    assert "isError" not in tool_responses(wb.suite)[3]
    toggle.value = True
    assert wb.suite.to_json() == before


def test_inject_button_matches_the_library_inject(wb: Workbench) -> None:
    """R32 transient, with the rate-limited preset: the held suite gets inject()'s task."""
    task_id = wb.suite.tasks[0]["taskId"]
    payload = error_payload("rate_limited")
    variant = inject(wb.suite, [Fault(task_id, 6, "transient")], payload=payload)
    panel = wb.boundaries
    panel.boundary.value = 6
    panel.kind.value = "transient"
    panel.payload.preset.value = "rate_limited"
    panel.inject_button.click()
    assert tool_responses(wb.suite) == tool_responses(variant)
    assert tool_responses(wb.suite)[6]["isError"] is True
    assert tool_responses(wb.suite)[6]["response"] == payload
    assert "x-variant" not in wb.suite.data


def test_hard_fault_inserts_the_chosen_number_of_failing_copies(wb: Workbench) -> None:
    """R32 hard: the entry fails and ``repeats`` more isError copies follow it."""
    n = len(tool_responses(wb.suite))
    panel = wb.boundaries
    panel.boundary.value = 2
    panel.kind.value = "hard"
    panel.repeats.value = 2
    panel.inject_button.click()
    got = tool_responses(wb.suite)
    assert len(got) == n + 2
    assert [e.get("isError") for e in got[2:5]] == [True, True, True]


def test_inject_error_is_shown_not_raised(wb: Workbench) -> None:
    panel = wb.boundaries
    panel.payload.preset.value = "custom"  # custom with no text: error_payload refuses
    before = wb.suite.to_json()
    panel.inject_button.click()
    assert "custom preset needs text" in panel.message.value
    assert wb.suite.to_json() == before


def test_reset_restores_the_suite_as_loaded(wb: Workbench) -> None:
    before = wb.suite.to_json()
    wb.boundaries.flip(0)
    assert wb.suite.to_json() != before
    wb.boundaries.reset_button.click()
    assert wb.suite.to_json() == before


def test_a_2000_boundary_run_renders_one_page_of_rows(big_log: Path) -> None:
    """Long runs stay usable: 25 row widgets, whatever the run's length; paging reuses them."""
    wb = Workbench(str(big_log))
    assert len(tool_responses(wb.suite)) == 2000
    toggles = [x for x in walk(wb.widget) if isinstance(x, w.ToggleButton)]
    assert len(toggles) == 25
    panel = wb.boundaries
    assert panel.page_count == 80
    assert "wb-toggle-0" in toggles[0]._dom_classes
    panel.next.click()
    assert panel.page.value == 2
    assert "wb-toggle-25" in toggles[0]._dom_classes
    assert "wb-toggle-0" not in toggles[0]._dom_classes
    panel.page.value = 80
    assert "wb-toggle-1999" in toggles[24]._dom_classes
    panel.next.click()  # clamped at the last page
    assert panel.page.value == 80
    toggle = panel.toggle(1234)
    assert panel.page.value == 50
    expected = toggle_error(wb.suite, wb.suite.tasks[0]["taskId"], 1234)
    toggle.value = not toggle.value
    assert wb.suite == expected


def test_multi_run_files_show_a_task_picker(tmp_path: Path) -> None:
    log = tmp_path / "two.openwop.jsonl"
    write_synthetic_log(log, n_calls=30, runs=2)
    wb = Workbench(str(log))
    assert len(wb.suite.tasks) == 2
    panel = wb.boundaries
    second = panel.task.options[1]
    panel.task.value = second
    expected = toggle_error(wb.suite, second, 0)
    panel.toggle(0).value = not panel.toggle(0).value
    assert wb.suite == expected


def test_a_toggle_never_edits_the_previous_json_in_place(wb: Workbench) -> None:
    """R32: the widget's toggle is the library's copy-on-write ``toggle_error``: the JSON the
    held suite had before (a snapshot a cell took with ``Suite(wb.suite.data)``) keeps its
    bytes; the held suite object stays the same (the overwrite guard still knows its file)."""
    suite = wb.suite
    taken = Suite(suite.data)
    before = taken.to_json()
    for boundary in range(len(tool_responses(suite))):
        wb.boundaries.flip(boundary)
    assert taken.to_json() == before
    assert wb.suite is suite
    flipped = [e.get("isError") is True for e in tool_responses(wb.suite)]
    assert flipped == [e.get("isError") is not True for e in tool_responses(taken)]


def test_a_toggle_out_of_range_is_shown_not_raised(wb: Workbench) -> None:
    before = wb.suite.to_json()
    wb.boundaries.flip(99)
    assert "boundary 99 out of range" in wb.boundaries.message.value
    assert wb.suite.to_json() == before


# -- payload presets -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "text"),
    [
        ("upstream_down", '{"error":"upstream_down"}'),
        ("rate_limited", '{"error":"rate_limited","status":429}'),
        ("timeout", '{"error":"timeout"}'),
        ("permission_denied", '{"error":"permission_denied","status":403}'),
        ("invalid_arguments", '{"error":"invalid_arguments","status":400}'),
    ],
)
def test_presets_produce_mcp_text_content(preset: str, text: str) -> None:
    """R5: an error response is an MCP CallToolResult body with one text block."""
    assert error_payload(preset) == {"content": [{"type": "text", "text": text}]}


def test_preset_message_and_custom_text() -> None:
    assert json.loads(error_payload("timeout", "no answer in 30 s")["content"][0]["text"]) == {
        "error": "timeout",
        "message": "no answer in 30 s",
    }
    assert error_payload("custom", "Error: gateway 502") == {
        "content": [{"type": "text", "text": "Error: gateway 502"}]
    }
    with pytest.raises(ValueError, match="needs text"):
        error_payload("custom")
    with pytest.raises(ValueError, match="unknown payload preset"):
        error_payload("teapot")


def test_upstream_down_preset_is_the_sweeps_default_payload() -> None:
    """The preset and inject()'s default serve the same bytes."""
    assert error_payload("upstream_down") == DEFAULT_PAYLOAD


def test_payload_editor_preview_follows_the_preset(wb: Workbench) -> None:
    editor = wb.boundaries.payload
    editor.preset.value = "custom"
    editor.text.value = "<b>bold</b>"
    assert editor.payload() == error_payload("custom", "<b>bold</b>")
    assert "&lt;b&gt;bold&lt;/b&gt;" in editor.preview.value
    assert "<b>bold" not in editor.preview.value


# -- replay ----------------------------------------------------------------------------------


def test_run_button_calls_replay_and_shows_its_results(wb: Workbench) -> None:
    """The Run button is ``replay(suite, agent, trials, seed)``; progress counts trials."""
    wb.boundaries.flip(4)  # the successful retry now fails too
    panel = wb.replay_panel
    panel.trials.value = 3
    panel.seed.value = 7
    panel.button.click()
    direct = replay(wb.suite, trials=3, seed=7)
    got = wb.replay_result
    assert got is not None
    assert got.summary == direct.summary
    assert panel.progress.value == panel.progress.max == 3
    assert "wb-table" in panel.results.value
    assert panel.results.value.count("<tr>") == 1 + 3  # header + one row per trial
    assert ("failed" if not direct.passed else "passed") in panel.status.value


def test_trajectory_marks_divergence_and_failed_calls(wb: Workbench) -> None:
    """R17: a failed call is marked failed; the first differing step is marked diverged."""
    wb.boundaries.flip(0)
    wb.replay_panel.button.click()
    html = wb.replay_panel.trajectory.value
    assert 'class="wb-diverged"' in html
    assert "diverges from the baseline at step 0" in html
    assert "wb-failed" in html


def test_baseline_trajectory_shows_no_divergence(wb: Workbench) -> None:
    wb.replay_panel.button.click()
    assert "same trajectory as the baseline" in wb.replay_panel.trajectory.value
    assert 'class="wb-diverged"' not in wb.replay_panel.trajectory.value


def test_replay_refusal_is_shown_with_its_body(wb: Workbench) -> None:
    """R11: an invalid suite is refused before it runs; the widget shows the 400 body."""
    tool_responses(wb.suite)[3]["isError"] = "true"
    wb.replay_panel.button.click()
    assert wb.replay_result is None
    assert isinstance(wb.replay_panel.error, HostRefusal)
    assert "validation_error" in wb.replay_panel.status.value
    assert wb.replay_panel.progress.bar_style == "danger"


def test_agent_object_from_python_is_used() -> None:
    """R25: any object with the agent interface replaces the scripted agent."""
    from workbench import Decision

    class GiveUp:
        agent_id = "test.give-up"

        def run(self, task_input: Any, tools: Any) -> Decision:
            return Decision("escalated", None)

    wb = Workbench(str(BILLING))
    assert wb.replay_panel.agent_choice.value == "scripted"
    wb.agent = GiveUp()
    assert wb.replay_panel.agent_choice.value == "object"
    wb.replay_panel.button.click()
    result = wb.replay_result
    assert result is not None
    assert result.tasks[0].trials[0].decision.outcome == "escalated"
    assert result.tasks[0].trials[0].calls == ()


def test_object_agent_choice_without_an_object_says_so(wb: Workbench) -> None:
    wb.replay_panel.agent_choice.value = "object"
    wb.replay_panel.button.click()
    assert "wb.agent" in wb.replay_panel.status.value


# -- sweep -----------------------------------------------------------------------------------


def test_sweep_button_runs_the_sweep_and_the_variant_picker_shows_trajectories(
    wb: Workbench,
) -> None:
    panel = wb.sweep_panel
    panel.kinds.value = ("hard",)
    panel.button.click()
    direct = sweep(wb.suite, faults="single", kinds=("hard",), progress=False)
    got = wb.sweep_result
    assert got is not None, panel.status.value
    assert list(got.frame["variant"]) == list(direct.frame["variant"])
    assert list(panel.variant.options) == [v.name for v in direct.variants]
    panel.variant.value = "b03-hard"
    html = panel.trajectory.value
    assert "b03-hard" in html
    assert "wb-failed" in html
    assert "wb-branch-chart" in panel.chart_box._dom_classes


def test_the_sweep_progress_bar_fills_as_batches_complete(wb: Workbench) -> None:
    """The bar follows ``sweep(on_progress=...)``: 24 variants in-process run in batches of
    16, so it shows 16 of 24, then 24 of 24, while the sweep runs."""
    panel = wb.sweep_panel
    panel.kinds.value = ("transient", "hard")
    seen: list[tuple[int, int]] = []
    panel.progress.observe(lambda c: seen.append((c["new"], panel.progress.max)), names="value")
    panel.button.click()
    assert seen == [(16, 24), (24, 24)]
    assert panel.progress.bar_style == "success"


def _chart_nodes(chart: Any) -> list[dict[str, Any]]:
    """The node rows of the branch chart a JupyterChart shows (the layer with the shapes)."""
    spec = chart.spec
    layer = next(x for x in spec["layer"] if x["encoding"].get("shape", {}).get("field"))
    rows: list[dict[str, Any]] = spec["datasets"][layer["data"]["name"]]
    return rows


def test_selecting_a_branch_in_the_chart_shows_that_variants_trajectory(wb: Workbench) -> None:
    """R33 chart: a click on a branch node reaches the kernel as the JupyterChart's
    ``_vl_selections`` (what its front end sets); the trajectory view shows the node's first
    variant and the dropdown follows. A double click (empty selection) keeps the variant."""
    panel = wb.sweep_panel
    panel.kinds.value = ("transient", "hard")
    panel.button.click()
    chart = panel.chart
    assert chart is not None, panel.chart_box.children
    assert isinstance(chart, alt.JupyterChart)
    assert chart in panel.chart_box.children
    first = panel.variant.value
    # A branch node off the spine, carrying several variants: the first one is shown.
    node = next(
        r
        for r in _chart_nodes(chart)
        if not r["spine"] and "," in r["variants"] and r["variant"] != first
    )
    picked = node["variant"]
    assert picked != first and picked == node["variants"].split(",")[0].strip()
    before = panel.trajectory.value

    def click(values: list[dict[str, Any]]) -> None:
        signal = {"vlPoint": {"or": values}, "variant": [v["variant"] for v in values]}
        chart._vl_selections = {"branch": {"value": signal if values else None, "store": []}}

    click([{"variant": picked}])
    assert panel.variant.value == picked
    assert panel.trajectory.value != before
    assert f"{picked}" in panel.trajectory.value
    shown = panel.trajectory.value
    click([])  # double click clears the selection
    assert panel.variant.value == picked and panel.trajectory.value == shown
    click([{"variant": ""}])  # the baseline's end (no variant through it): nothing changes
    assert panel.variant.value == picked


def test_sweep_offers_per_tool_sweeps(wb: Workbench) -> None:
    values = [value for _label, value in wb.sweep_panel.faults.options]
    assert values[:2] == ["single", "pairs"]
    assert "tool:billing:get-invoice" in values


def test_sweep_errors_are_shown(wb: Workbench) -> None:
    wb.sweep_panel.kinds.value = ()
    wb.sweep_panel.button.click()
    assert "at least one fault kind" in wb.sweep_panel.status.value


# -- export ----------------------------------------------------------------------------------


def test_export_refuses_to_overwrite_a_file_changed_on_disk(tmp_path: Path) -> None:
    """Suite.save's guard: FileChangedError shown, file untouched, until overwrite is ticked."""
    path = tmp_path / "suite.json"
    promote(__import__("workbench").load_runs(BILLING)).suite.save(path)
    wb = Workbench(str(path))
    assert wb.suite.path == str(path)
    wb.boundaries.flip(0)
    changed = path.read_text(encoding="utf-8").replace('"1.0.0"', '"1.0.1"')
    path.write_text(changed, encoding="utf-8")
    wb.export.save_button.click()
    assert "changed on disk" in wb.export.output.value
    assert path.read_text(encoding="utf-8") == changed
    wb.export.overwrite.value = True
    wb.export.save_button.click()
    assert "saved" in wb.export.output.value
    assert path.read_text(encoding="utf-8") == wb.suite.to_json()
    # Saved: the file is the suite's again, so a second save needs no overwrite.
    wb.boundaries.flip(1)
    wb.export.save_button.click()
    assert "saved" in wb.export.output.value


def test_export_saves_a_promoted_run_next_to_it(tmp_path: Path) -> None:
    log = tmp_path / "billing.openwop.jsonl"
    log.write_bytes(BILLING.read_bytes())
    wb = Workbench(str(log))
    assert wb.export.path.value == str(tmp_path / "billing.suite.json")
    wb.export.version.value = "2.0.0"
    wb.export.save_button.click()
    saved = Suite.load(tmp_path / "billing.suite.json")
    assert saved.version == "2.0.0"
    assert saved == wb.suite
    # An existing file the suite was not loaded from is not replaced silently.
    other = tmp_path / "other.json"
    other.write_text("{}", encoding="utf-8")
    wb.export.path.value = str(other)
    wb.export.save_button.click()
    assert "tick overwrite" in wb.export.output.value
    assert other.read_text(encoding="utf-8") == "{}"


def test_validation_problems_are_listed_by_json_path(wb: Workbench, tmp_path: Path) -> None:
    """R5: ``isError: "true"`` is invalid; the problem names its JSON path; nothing is saved."""
    tool_responses(wb.suite)[3]["isError"] = "true"
    wb.export.path.value = str(tmp_path / "x.json")
    wb.export.save_button.click()
    assert "tasks[0].fixtures.toolResponses[3].isError" in wb.export.output.value
    assert not (tmp_path / "x.json").exists()


def test_host_refusal_shows_the_validation_error_body(wb: Workbench) -> None:
    """R11: a host without fixtureErrors refuses the first isError entry, by field."""
    wb.export.profile.value = "no fixture errors"
    wb.export.host_button.click()
    with pytest.raises(HostRefusal) as refusal:
        check_suite(wb.suite.data, HostProfile(name="x", fixture_errors=False))
    out = wb.export.output.value
    assert "validation_error" in out
    assert refusal.value.field in out
    wb.export.profile.value = "workbench"
    wb.export.host_button.click()
    assert "accepts the suite" in wb.export.output.value


# -- loading ---------------------------------------------------------------------------------


def test_load_errors_are_shown_in_place_naming_file_and_line(tmp_path: Path) -> None:
    """R2: a line that is not JSON is named by file and line; the widget stays usable."""
    bad = tmp_path / "broken.openwop.jsonl"
    lines = BILLING.read_text(encoding="utf-8").splitlines()
    lines[2] = "{not json"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    wb = Workbench()
    wb.load.path.value = str(bad)
    wb.load.button.click()
    status = wb.load.status.value
    assert "broken.openwop.jsonl" in status
    assert "line 3" in status
    wb.load.path.value = str(BILLING)
    wb.load.button.click()
    assert "Loaded" in wb.load.status.value
    assert len(tool_responses(wb.suite)) == 12


def test_a_bad_path_given_to_the_constructor_is_shown_not_raised(tmp_path: Path) -> None:
    wb = Workbench(str(tmp_path / "missing.json"))
    assert wb.load_error is not None
    assert "missing.json" in wb.load.status.value
    assert wb.tabs.selected_index == 0


def test_upload_loads_the_file(wb: Workbench) -> None:
    data = BILLING.read_bytes()
    upload = {
        "name": "up.openwop.jsonl",
        "type": "",
        "size": len(data),
        "content": memoryview(data),
        "last_modified": datetime.datetime(2026, 11, 20, tzinfo=datetime.UTC),
    }
    blank = Workbench()
    blank.load.upload.value = (upload,)
    assert len(tool_responses(blank.suite)) == 12
    assert blank.load.path.value.endswith("up.openwop.jsonl")


def test_workbench_takes_a_suite_object_and_cells_read_it_back() -> None:
    suite = promote(__import__("workbench").load_runs(BILLING)).suite
    wb = Workbench(suite)
    assert wb.suite is suite
    wb.boundaries.flip(0)
    assert tool_responses(suite)[0]["isError"] is True  # the cell's own object changed


# -- escaping --------------------------------------------------------------------------------


def test_hostile_payloads_render_as_text_everywhere() -> None:
    """Recorded text never runs: no raw ``<img`` or ``<script`` in any HTML widget value."""
    wb = Workbench(str(HOSTILE))
    wb.replay_panel.button.click()
    wb.boundaries.flip(0)
    wb.replay_panel.button.click()
    wb.export.validate_button.click()
    if wb.sweep_panel.button.disabled is False:
        wb.sweep_panel.kinds.value = ("flip",)
        wb.sweep_panel.button.click()
    values = html_values(wb)
    joined = "\n".join(values)
    assert "<img" not in joined.lower()
    assert "<script" not in joined.lower()
    assert "&lt;img src=x onerror=alert(1)&gt;" in joined
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in joined


def test_hostile_load_error_text_is_escaped(tmp_path: Path) -> None:
    bad = tmp_path / "<img src=x onerror=alert(3)>.json"
    bad.write_text("[", encoding="utf-8")
    wb = Workbench()
    wb.load.path.value = str(bad)
    wb.load.button.click()
    assert "<img" not in wb.load.status.value
    assert "&lt;img" in wb.load.status.value


# -- DOM hooks and settings ------------------------------------------------------------------


def test_stable_css_classes_for_the_browser_test(wb: Workbench) -> None:
    classes = {c for x in walk(wb.widget) for c in getattr(x, "_dom_classes", ())}
    for name in (
        "wb-workbench",
        "wb-boundary-table",
        "wb-toggle-0",
        "wb-toggle-11",
        "wb-replay-button",
        "wb-trajectory",
        "wb-branch-chart",
        "wb-save-button",
        "wb-overwrite",
    ):
        assert name in classes, name
    assert wb.tabs.titles == ("Load", "Boundaries", "Replay", "Sweep & branches", "Export")


def test_offline_charts_are_enabled_only_when_asked_outside_a_kernel() -> None:
    import altair as alt

    from workbench.widgets import enable_offline_charts
    from workbench.widgets._settings import in_kernel

    assert in_kernel() is False
    before = alt.renderers.active
    try:
        assert enable_offline_charts(force="jupyter") == "jupyter"
        assert alt.renderers.active == "jupyter"
        assert alt.renderers.options.get("offline") is True
        assert enable_offline_charts() == "png"
        assert alt.renderers.active == "png"
    finally:
        alt.renderers.enable(before)


def test_the_widget_displays_as_its_root_widget(wb: Workbench) -> None:
    bundle = wb._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == wb.widget.model_id
