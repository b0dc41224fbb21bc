"""The Workbench widget, headless: built in plain Python, driven as the browser drives it.

Widgets are a thin view: each test compares what a click did with the library call it stands
for (``toggle_error``, ``apply_faults``, ``replay``, ``sweep``, ``Suite.save``, ``check_suite``).
The boundary table is an anywidget: a test sends it the messages its JavaScript sends
(``grid.handle({...})``) and reads the patches it answers with (``grid.sent``).
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

from helpers.paths import BILLING, HOSTILE, ROOT
from workbench import (
    BASELINE,
    FAULT_KINDS,
    Fault,
    HostProfile,
    HostRefusal,
    Suite,
    apply_faults,
    check_suite,
    error_payload,
    load_runs,
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


def entries(suite: Suite, index: int = 0) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = suite.tasks[index]["fixtures"]["toolResponses"]
    return result


def click_toggle(wb: Workbench, index: int) -> dict[str, Any]:
    """What a click on row ``index``'s isError toggle sends; the message answered."""
    grid = wb.boundaries.grid
    grid.handle({"kind": "edit", "op": "flip", "index": index, "v": grid.rows[index]["v"]})
    answer: dict[str, Any] = grid.sent[-1]
    return answer


@pytest.fixture
def wb(tmp_path: Path) -> Workbench:
    return Workbench(str(BILLING), folder=tmp_path)


# -- boundaries ------------------------------------------------------------------------------


def test_row_toggle_changes_the_suite_exactly_as_toggle_error(wb: Workbench) -> None:
    """R32 flip: the row-5 toggle is ``toggle_error(suite, task, 5)``, nothing more; the browser
    gets one row patch marking the row edited (flip), apart from a recorded failure."""
    task_id = wb.suite.tasks[0]["taskId"]
    expected = toggle_error(wb.suite, task_id, 5)
    answer = click_toggle(wb, 5)
    assert wb.suite == expected
    assert entries(wb.suite)[5]["isError"] is True
    assert answer["kind"] == "patch" and [r["i"] for r in answer["rows"]] == [5]
    row = answer["rows"][0]
    assert (row["err"], row["rec"], row["kind"], row["v"]) == (True, False, "flip", 1)
    recorded = wb.boundaries.row(3)
    assert (recorded["err"], recorded["rec"], recorded["kind"]) == (True, True, "")


def test_toggling_a_flip_again_undoes_it_and_restores_the_bytes(wb: Workbench) -> None:
    before = wb.suite.to_json()
    click_toggle(wb, 3)  # a recorded failure made a success
    assert "isError" not in entries(wb.suite)[3]
    assert wb.boundaries.row(3)["kind"] == "flip"
    click_toggle(wb, 3)
    assert wb.suite.to_json() == before
    assert wb.boundaries.row(3)["kind"] == ""


def test_a_stale_edit_is_refused_for_its_row_only(wb: Workbench) -> None:
    """Each row has a version: a click sent before the row's last patch is refused (and the row
    re-sent), while a quick click on another row is not stale."""
    grid = wb.boundaries.grid
    grid.handle({"kind": "edit", "op": "flip", "index": 2, "v": 0})
    grid.handle({"kind": "edit", "op": "flip", "index": 4, "v": 0})  # another row: fine
    assert [e.boundary for e in wb.boundaries.edits] == [2, 4]
    grid.handle({"kind": "edit", "op": "flip", "index": 2, "v": 0})  # stale: row 2 is at v1
    assert grid.sent[-2]["kind"] == "error" and "changed since" in grid.sent[-2]["message"]
    assert grid.sent[-1] == {"kind": "patch", "rows": [grid.rows[2]]}
    assert [e.boundary for e in wb.boundaries.edits] == [2, 4]


def test_every_fault_kind_of_the_library_is_offered_per_row(wb: Workbench) -> None:
    """New kinds the library adds (R39's empty and truncated) appear by themselves."""
    kinds = wb.boundaries.grid.kinds
    assert set(kinds) == set(FAULT_KINDS) and kinds[0] == "flip"
    assert set(wb.sweep_panel.kinds.options) == set(FAULT_KINDS)


def test_a_row_fault_is_apply_faults_with_the_editors_payload(wb: Workbench) -> None:
    """R32 transient, with the rate-limited preset: the held suite is ``apply_faults``'s."""
    task_id = wb.suite.tasks[0]["taskId"]
    payload = error_payload("rate_limited")
    expected = apply_faults(wb.suite, [Fault(task_id, 6, "transient")], payload=payload)
    wb.boundaries.payload.preset.value = "rate_limited"
    grid = wb.boundaries.grid
    grid.handle({"kind": "edit", "op": "set", "fault": "transient", "index": 6, "v": 0})
    assert wb.suite == expected
    assert entries(wb.suite)[6] == {**entries(wb.suite)[7], "isError": True, "response": payload}
    row = grid.rows[6]
    assert row["kind"] == "transient" and "2 entries served" in row["note"]
    assert "x-variant" not in wb.suite.data


def test_the_inject_form_matches_the_library(wb: Workbench) -> None:
    """The form under the table does what a row's menu does."""
    task_id = wb.suite.tasks[0]["taskId"]
    expected = apply_faults(wb.suite, [Fault(task_id, 2, "hard")], hard_repeats=2)
    panel = wb.boundaries
    panel.boundary.value = 2
    panel.kind.value = "hard"
    panel.repeats.value = 2
    panel.inject_button.click()
    assert wb.suite == expected
    assert [e.get("isError") for e in entries(wb.suite)[2:5]] == [True, True, True]


def test_each_edit_is_undone_alone_and_rows_keep_their_boundaries(wb: Workbench) -> None:
    """Three edits; undoing the middle one leaves the other two exactly as the library makes
    them (the transient at 0 still shifts the later entries, the hard at 7 still fails)."""
    task_id = wb.suite.tasks[0]["taskId"]
    panel = wb.boundaries
    panel.set_edit(0, "transient")
    panel.flip(4)
    panel.set_edit(7, "hard")
    assert [(e.boundary, e.kind) for e in panel.edits] == [
        (0, "transient"),
        (4, "flip"),
        (7, "hard"),
    ]
    panel.undo(4)
    expected = apply_faults(
        wb.baseline, [Fault(task_id, 0, "transient"), Fault(task_id, 7, "hard")]
    )
    assert entries(wb.suite) == entries(expected)
    assert panel.row(4)["kind"] == "" and panel.row(7)["kind"] == "hard"
    undone = panel.undo_last()
    assert undone is not None and undone.boundary == 7
    assert [e.boundary for e in panel.edits] == [0]
    panel.undo(0)
    assert wb.suite.to_json() == wb.baseline.to_json()
    assert panel.undo_button.disabled


def test_a_new_edit_on_an_edited_boundary_replaces_it(wb: Workbench) -> None:
    panel = wb.boundaries
    panel.set_edit(6, "transient")
    panel.set_edit(6, "hard")
    assert [(e.boundary, e.kind) for e in panel.edits] == [(6, "hard")]
    assert len(entries(wb.suite)) == 12 + 3
    panel.flip(6)  # edited otherwise: the toggle says to undo first
    assert "undo that edit" in panel.message.value
    assert [(e.boundary, e.kind) for e in panel.edits] == [(6, "hard")]


def test_flip_says_it_keeps_the_recorded_payload(wb: Workbench) -> None:
    """Honest controls: with flip (and the silent kinds) the payload editor is greyed out and the
    note says why; transient and hard use it."""
    panel = wb.boundaries
    panel.kind.value = "flip"
    assert panel.payload.preset.disabled and panel.payload.text.disabled
    assert "flip keeps the recorded payload" in panel.payload_note.value
    panel.kind.value = "transient"
    assert not panel.payload.preset.disabled
    assert "serves the payload" in panel.payload_note.value
    panel.payload.preset.value = "timeout"
    panel.flip(2)
    assert entries(wb.suite)[2]["response"] == entries(wb.baseline)[2]["response"]


def test_inject_error_is_shown_not_raised(wb: Workbench) -> None:
    panel = wb.boundaries
    panel.payload.preset.value = "custom"  # custom with no text: error_payload refuses
    before = wb.suite.to_json()
    panel.kind.value = "transient"
    panel.inject_button.click()
    assert "custom preset needs text" in panel.message.value
    assert wb.suite.to_json() == before
    assert panel.edits == ()


def test_a_refused_row_edit_answers_with_an_error_and_the_unchanged_row(wb: Workbench) -> None:
    wb.boundaries.payload.preset.value = "custom"
    grid = wb.boundaries.grid
    grid.handle({"kind": "edit", "op": "set", "fault": "hard", "index": 1, "v": 0})
    assert grid.sent[-2]["kind"] == "error" and "custom preset" in grid.sent[-2]["message"]
    assert grid.sent[-1]["rows"][0]["kind"] == ""
    grid.handle({"kind": "edit", "op": "flip", "index": 99, "v": 0})
    assert grid.sent[-1] == {"kind": "error", "index": 99, "message": "no boundary 99"}


def test_reset_restores_the_suite_and_clears_every_message(wb: Workbench, tmp_path: Path) -> None:
    before = wb.suite.to_json()
    wb.boundaries.flip(0)
    wb.replay_panel.run()
    wb.sweep_panel.kinds.value = ()
    wb.sweep_panel.run()  # an error message
    wb.export.validate()
    assert wb.suite.to_json() != before
    wb.boundaries.reset_button.click()
    assert wb.suite.to_json() == before
    assert wb.boundaries.edits == ()
    assert all(row["kind"] == "" for row in wb.boundaries.grid.rows)
    assert wb.replay_panel.status.value == "" and wb.replay_panel.results.value == ""
    assert wb.sweep_panel.status.value == "" and wb.export.output.value == ""
    assert "reset" in wb.boundaries.message.value


def test_the_full_view_of_a_call_is_its_whole_args_and_result(wb: Workbench) -> None:
    """A row click asks for the detail: the whole args and result, pretty JSON (the row's
    preview stops at 200 characters), the text blocks as the agent reads them, and what an edit
    serves in the boundary's place."""
    grid = wb.boundaries.grid
    grid.handle({"kind": "detail", "index": 6, "req": 7})
    answer = grid.sent[-1]
    assert answer["kind"] == "detail" and answer["req"] == 7
    parts = dict(answer["parts"])
    recorded = entries(wb.suite)[6]["response"]
    assert json.loads(parts["recorded result"]) == recorded
    assert json.loads(parts["args"]) == entries(wb.suite)[6]["args"]
    assert "\n  " in parts["args"]  # pretty-printed
    assert json.loads(parts["its text, as the agent reads it"]) == json.loads(
        recorded["content"][0]["text"]
    )
    wb.boundaries.set_edit(6, "transient")
    grid.handle({"kind": "detail", "index": 6, "req": 8})
    served = dict(grid.sent[-1]["parts"])["served now (2 entries)"]
    assert json.loads(served)[0]["isError"] is True
    assert "edited: transient" in grid.sent[-1]["title"]


def test_a_10000_boundary_run_ships_previews_once_and_patches_one_row(tmp_path: Path) -> None:
    """Long runs stay usable: 10,000 row previews sent once (the browser searches, filters,
    sorts and scrolls them); an edit answers with one row."""
    log = tmp_path / "big.openwop.jsonl"
    write_synthetic_log(log, n_calls=10_000)
    wb = Workbench(str(log), folder=tmp_path)
    grid = wb.boundaries.grid
    assert len(grid.rows) == 10_000
    assert max(len(r["args"]) for r in grid.rows) <= 160
    assert max(len(r["result"]) for r in grid.rows) <= 200
    answer = click_toggle(wb, 1234)
    assert [r["i"] for r in answer["rows"]] == [1234]
    expected = toggle_error(wb.baseline, wb.suite.tasks[0]["taskId"], 1234)
    assert wb.suite == expected


def test_a_toggle_never_edits_the_previous_json_in_place(wb: Workbench) -> None:
    """R32: the widget's edits are the library's copy-on-write calls: the JSON the held suite
    had before (a snapshot a cell took with ``Suite(wb.suite.data)``) keeps its bytes; the held
    suite object stays the same (the overwrite guard still knows its file)."""
    suite = wb.suite
    taken = Suite(suite.data)
    before = taken.to_json()
    for boundary in range(len(entries(suite))):
        wb.boundaries.flip(boundary)
    assert taken.to_json() == before
    assert wb.suite is suite
    flipped = [e.get("isError") is True for e in entries(wb.suite)]
    assert flipped == [e.get("isError") is not True for e in entries(taken)]


def test_a_toggle_out_of_range_is_shown_not_raised(wb: Workbench) -> None:
    before = wb.suite.to_json()
    wb.boundaries.flip(99)
    assert "boundary 99 out of range" in wb.boundaries.message.value
    assert wb.suite.to_json() == before


def test_setting_the_suite_from_a_cell_starts_the_edits_again(wb: Workbench) -> None:
    wb.boundaries.flip(1)
    task_id = wb.suite.tasks[0]["taskId"]
    wb.suite = toggle_error(wb.suite, task_id, 2)  # a cell's own edit
    assert wb.boundaries.edits == ()
    assert wb.boundaries.row(2)["rec"] is True  # the new base
    assert "set from Python" in wb.boundaries.message.value
    wb.boundaries.flip(2)
    assert "isError" not in entries(wb.suite)[2]
    assert entries(wb.suite)[1]["isError"] is True


# -- tasks -------------------------------------------------------------------------------------


def test_the_task_picker_scopes_the_table_the_replay_and_the_sweep(tmp_path: Path) -> None:
    """Two recorded runs: the picker above the tabs scopes every part; an edit applies to the
    picked task, a replay and a sweep cover it alone (or every task when asked)."""
    log = tmp_path / "two.openwop.jsonl"
    write_synthetic_log(log, n_calls=30, runs=2, error_every=0)
    wb = Workbench(str(log), folder=tmp_path)
    first, second = (str(t["taskId"]) for t in wb.suite.tasks)
    assert wb.task.layout.display is None and [v for _l, v in wb.task.options] == [first, second]
    wb.task.value = second
    assert wb.task_id == second and wb.boundaries.task_id == second
    assert len(wb.boundaries.grid.rows) == 15
    expected = toggle_error(wb.suite, second, 0)
    wb.boundaries.flip(0)
    assert wb.suite == expected
    wb.replay_panel.run()
    assert [t.task_id for t in wb.replay_result.tasks] == [second]
    assert wb.task.value == second and wb.task_id == second  # a Run keeps the task picked
    wb.replay_panel.compare.pick(left=("base", 0), right=("run", 0))
    assert wb.replay_panel.compare.divergence == 0
    wb.sweep_panel.kinds.value = ("hard",)
    result = wb.sweep_panel.run()
    assert result is not None and result.task_ids == (second,)
    assert wb.task_id == second and wb.sweep_panel.compare.keys[0] == (BASELINE, 0)
    wb.task.value = first
    assert "did not cover task" in wb.sweep_panel.chart_box.children[0].value
    wb.sweep_panel.scope.value = "all tasks"
    result = wb.sweep_panel.run()
    assert result is not None and result.task_ids == (first, second)
    assert wb.sweep_panel.chart is not None


def test_the_replay_view_keeps_the_picked_trial_after_a_run(wb: Workbench) -> None:
    panel = wb.replay_panel
    panel.trials.value = 3
    panel.run()
    panel.compare.pick(left=("base", 2), right=("run", 1))
    wb.boundaries.flip(2)
    panel.run()
    assert panel.compare.keys == (("base", 2), ("run", 1))


# -- payload presets ---------------------------------------------------------------------------


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


# -- replay ------------------------------------------------------------------------------------


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
    assert panel.results.value.count("<tr>") == 1 + 3  # header + one row per trial
    assert ("failed" if not direct.passed else "passed") in panel.status.value


def test_the_replay_diff_aligns_the_flipped_call_and_its_retry(wb: Workbench) -> None:
    """R17, R33: flip boundary 2; the diff against the baseline shows the call changed (failed),
    the retry (a fixture miss) added, and the baseline's later calls removed; the identical
    prefix is folded and the jump goes to the first difference."""
    wb.boundaries.flip(2)
    wb.replay_panel.button.click()
    compare = wb.replay_panel.compare
    assert compare.divergence == 2
    ops = [row.op for row in compare.aligned]
    assert ops[:4] == ["same", "same", "changed", "added"]
    assert set(ops[4:]) == {"removed"}
    table = compare.table
    assert table.fold == [0, 2] and table.first_diff == 2
    changed = table.rows[2]
    assert changed["r"] == "changed" and changed["m"][3] == "fail"
    assert "\u2717 failed" in changed["c"][3]
    assert "fixture miss" in table.rows[3]["c"][3]
    assert "diverges at step 2: 1 changed, 1 added" in compare.summary.value


def test_the_baseline_against_itself_is_the_same_trajectory(wb: Workbench) -> None:
    wb.replay_panel.button.click()
    compare = wb.replay_panel.compare
    assert compare.divergence is None
    assert "the same trajectory" in compare.summary.value
    assert compare.table.first_diff == -1 and compare.table.fold == [0, 0]


def test_replay_refusal_is_shown_with_its_body(wb: Workbench) -> None:
    """R11: an invalid suite is refused before it runs; the widget shows the 400 body."""
    entries(wb.suite)[3]["isError"] = "true"
    wb.replay_panel.button.click()
    assert wb.replay_result is None
    assert isinstance(wb.replay_panel.error, HostRefusal)
    assert "validation_error" in wb.replay_panel.status.value
    assert wb.replay_panel.progress.bar_style == "danger"


def test_the_policy_note_says_promoted_steps_carry_their_own_and_override_applies_it(
    wb: Workbench,
) -> None:
    """R23: a promoted suite's steps all carry onError, so the default reaches none of them;
    the note says so, and the override applies the policy to every step."""
    panel = wb.replay_panel
    assert "applies to none of them" in panel.policy_note.value
    panel.policy.value = 0  # abort
    panel.run()
    base = wb.replay_result
    assert base is not None and base.passed  # the recorded retry recovers boundary 3
    panel.override.value = True
    assert "handles every failed step" in panel.policy_note.value
    panel.run()
    aborted = wb.replay_result
    assert aborted is not None and not aborted.passed
    assert aborted.tasks[0].trials[0].decision.outcome == "failed"


def test_agent_object_from_python_is_used(tmp_path: Path) -> None:
    """R25: any object with the agent interface replaces the scripted agent."""
    from workbench import Decision

    class GiveUp:
        agent_id = "test.give-up"

        def run(self, task_input: Any, tools: Any) -> Decision:
            return Decision("escalated", None)

    wb = Workbench(str(BILLING), folder=tmp_path)
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


# -- sweep -------------------------------------------------------------------------------------


def test_sweep_runs_the_library_sweep_and_the_diff_shows_a_variant(wb: Workbench) -> None:
    panel = wb.sweep_panel
    panel.kinds.value = ("hard",)
    got = panel.run()
    direct = sweep(wb.suite, faults="single", kinds=("hard",), progress=False)
    assert got is not None, panel.status.value
    assert list(got.frame["variant"]) == list(direct.frame["variant"])
    assert got.frame.drop(columns=[]).equals(direct.frame)
    assert panel.complete
    panel.compare.pick(right=("b03-hard", 0))
    assert panel.compare.keys == (("baseline", 0), ("b03-hard", 0))
    assert "wb-branch-chart" in panel.chart_box._dom_classes
    assert {row["k"] for row in panel.table.rows} == set(direct.frame["variant"])


def test_the_sweep_button_runs_in_the_background_and_reports_each_batch(
    wb: Workbench,
) -> None:
    """The Run button returns at once (the kernel stays free); the bar moves per batch and ends
    full; the status counts batches while it runs."""
    panel = wb.sweep_panel
    panel.kinds.value = ("transient", "hard")
    seen: list[tuple[int, int]] = []
    panel.progress.observe(lambda c: seen.append((c["new"], panel.progress.max)), names="value")
    panel.button.click()
    job = panel.job
    assert job is not None
    assert job.join(timeout=60)
    assert job.complete and job.total == 24
    values = [v for v, _m in seen]
    assert values == sorted(values) and values[-1] == 24 and len(set(values)) >= 3
    assert panel.progress.bar_style == "success"
    assert panel.result is not None and len(panel.result.variants) == 24
    assert not panel.button.disabled and panel.cancel_button.disabled


def _chart_nodes(chart: Any) -> list[dict[str, Any]]:
    """The node rows of the branch chart a JupyterChart shows (the layer with the shapes)."""
    spec = chart.spec
    layer = next(x for x in spec["layer"] if x["encoding"].get("shape", {}).get("field"))
    rows: list[dict[str, Any]] = spec["datasets"][layer["data"]["name"]]
    return rows


def test_selecting_a_branch_in_the_chart_compares_its_variant(wb: Workbench) -> None:
    """R33 chart: a click on a branch node reaches the kernel as the JupyterChart's
    ``_vl_selections`` (what its front end sets); the diff shows the node's first variant. A
    double click (empty selection) keeps the diff as it was."""
    panel = wb.sweep_panel
    panel.kinds.value = ("transient", "hard")
    panel.run()
    chart = panel.chart
    assert chart is not None, panel.chart_box.children
    assert isinstance(chart, alt.JupyterChart)
    assert chart in panel.chart_box.children
    first = panel.compare.keys[1]
    node = next(
        r
        for r in _chart_nodes(chart)
        if not r["spine"] and "," in r["variants"] and (r["variant"], 0) != first
    )
    picked = node["variant"]
    assert picked == node["variants"].split(",")[0].strip()

    def click(values: list[dict[str, Any]]) -> None:
        signal = {"vlPoint": {"or": values}, "variant": [v["variant"] for v in values]}
        chart._vl_selections = {"branch": {"value": signal if values else None, "store": []}}

    click([{"variant": picked}])
    assert panel.compare.keys == (("baseline", 0), (picked, 0))
    click([])  # double click clears the selection
    assert panel.compare.keys[1] == (picked, 0)
    click([{"variant": ""}])  # the baseline's end (no variant through it): nothing changes
    assert panel.compare.keys[1] == (picked, 0)


def test_a_click_on_a_sweep_table_row_compares_that_variant(wb: Workbench) -> None:
    panel = wb.sweep_panel
    panel.kinds.value = ("hard",)
    panel.run()
    panel.table.selected = "b07-hard"
    assert panel.compare.keys[1] == ("b07-hard", 0)
    assert panel.compare.divergence == 7


def test_the_chart_follows_the_dark_theme(wb: Workbench) -> None:
    wb.sweep_panel.kinds.value = ("hard",)
    wb.sweep_panel.run()
    chart = wb.sweep_panel.chart
    assert chart is not None and "theme" not in (chart.embed_options or {})
    wb.style.dark = True  # what the browser reports on JupyterLab Dark
    assert chart.embed_options["theme"] == "dark"
    wb.style.dark = False
    assert "theme" not in chart.embed_options


def test_sweep_offers_per_tool_sweeps(wb: Workbench) -> None:
    values = [value for _label, value in wb.sweep_panel.faults.options]
    assert values[:2] == ["single", "pairs"]
    assert "tool:billing:get-invoice" in values


def test_sweep_errors_are_shown(wb: Workbench) -> None:
    wb.sweep_panel.kinds.value = ()
    wb.sweep_panel.button.click()
    assert "at least one fault kind" in wb.sweep_panel.status.value


# -- export ------------------------------------------------------------------------------------


def test_export_refuses_to_overwrite_a_file_changed_on_disk(tmp_path: Path) -> None:
    """Suite.save's guard: FileChangedError shown, file untouched, until overwrite is ticked."""
    path = tmp_path / "suite.json"
    promote(load_runs(BILLING)).suite.save(path)
    wb = Workbench(str(path), folder=tmp_path)
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


def test_export_defaults_next_to_the_notebook_never_into_the_data_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    notebooks = tmp_path / "notebooks"
    data.mkdir()
    notebooks.mkdir()
    log = data / "billing.openwop.jsonl"
    log.write_bytes(BILLING.read_bytes())
    wb = Workbench(str(log), folder=notebooks)
    assert wb.export.path.value == str(notebooks / "billing.suite.json")
    wb.export.version.value = "2.0.0"
    wb.export.save_button.click()
    saved = Suite.load(notebooks / "billing.suite.json")
    assert saved.version == "2.0.0" and saved == wb.suite
    assert not list(data.glob("*.suite.json"))
    # A relative path is the notebook's folder's, and the message names the file in full.
    wb.export.path.value = "out/other.suite.json"
    wb.export.save_button.click()
    assert (notebooks / "out" / "other.suite.json").exists()
    assert str(notebooks / "out" / "other.suite.json") in wb.export.output.value
    # An existing file the suite was not loaded from is not replaced silently.
    other = notebooks / "other.json"
    other.write_text("{}", encoding="utf-8")
    wb.export.path.value = str(other)
    wb.export.save_button.click()
    assert "tick overwrite" in wb.export.output.value
    assert other.read_text(encoding="utf-8") == "{}"


def test_validation_problems_are_listed_by_json_path(wb: Workbench, tmp_path: Path) -> None:
    """R5: ``isError: "true"`` is invalid; the problem names its JSON path; nothing is saved."""
    entries(wb.suite)[3]["isError"] = "true"
    wb.export.path.value = str(tmp_path / "x.json")
    wb.export.save_button.click()
    assert "tasks[0].fixtures.toolResponses[3].isError" in wb.export.output.value
    assert not (tmp_path / "x.json").exists()


def test_host_refusal_shows_the_validation_error_body(wb: Workbench) -> None:
    """R11: a host without fixtureErrors refuses the first isError entry, by field; the refusal
    is kept (``last_refusal``) so a cell can print it as it was."""
    wb.export.profile.value = "no fixture errors"
    assert wb.export.check_host() is False
    with pytest.raises(HostRefusal) as refusal:
        check_suite(wb.suite.data, HostProfile(name="x", fixture_errors=False))
    out = wb.export.output.value
    assert "validation_error" in out
    assert refusal.value.field in out
    assert wb.export.last_refusal is not None
    assert wb.export.last_refusal.body == refusal.value.body | {
        "message": wb.export.last_refusal.body["message"]
    }
    wb.export.profile.value = "workbench"
    assert wb.export.check_host() is True
    assert "accepts the suite" in wb.export.output.value
    assert wb.export.last_refusal is None


# -- loading -----------------------------------------------------------------------------------


def test_load_errors_are_shown_in_place_naming_file_and_line(tmp_path: Path) -> None:
    """R2: a line that is not JSON is named by file and line; the widget stays usable."""
    bad = tmp_path / "broken.openwop.jsonl"
    lines = BILLING.read_text(encoding="utf-8").splitlines()
    lines[2] = "{not json"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    wb = Workbench(folder=tmp_path)
    wb.load.path.value = str(bad)
    wb.load.button.click()
    status = wb.load.status.value
    assert "broken.openwop.jsonl" in status
    assert "line 3" in status
    wb.load.path.value = str(BILLING)
    wb.load.button.click()
    assert "Loaded" in wb.load.status.value
    assert len(entries(wb.suite)) == 12


def test_relative_paths_resolve_against_the_notebooks_folder_and_errors_name_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cell may change the working directory; a path typed in the widget still means the
    notebook's folder, and a failed one says which folder it was resolved against."""
    notebooks = tmp_path / "notebooks"
    (notebooks / "data").mkdir(parents=True)
    (notebooks / "data" / "run.openwop.jsonl").write_bytes(BILLING.read_bytes())
    monkeypatch.chdir(tmp_path)  # not the notebook's folder
    wb = Workbench(folder=notebooks)
    assert wb.load.load_path("data/run.openwop.jsonl")
    assert wb.source_path == str(notebooks / "data" / "run.openwop.jsonl")
    assert not wb.load.load_path("data/missing.jsonl")
    status = wb.load.status.value
    assert "missing.jsonl" in status
    assert f"resolved against the notebook&#x27;s folder {notebooks}" in status


def test_the_notebook_folder_is_the_kernels_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a kernel started by Jupyter Server, ``__session__`` is the notebook's path."""
    from IPython.testing.globalipapp import get_ipython

    from workbench.widgets._paths import notebook_folder

    shell = get_ipython()  # type: ignore[no-untyped-call]
    notebook = tmp_path / "nb" / "analysis.ipynb"
    notebook.parent.mkdir()
    monkeypatch.setitem(shell.user_ns, "__session__", str(notebook))
    assert notebook_folder() == notebook.parent
    monkeypatch.setitem(shell.user_ns, "__session__", "not-a-notebook")
    monkeypatch.chdir(tmp_path)
    assert notebook_folder() == tmp_path.resolve()


def test_a_bad_path_given_to_the_constructor_is_shown_not_raised(tmp_path: Path) -> None:
    wb = Workbench(str(tmp_path / "missing.json"), folder=tmp_path)
    assert wb.load_error is not None
    assert "missing.json" in wb.load.status.value
    assert wb.tabs.selected_index == 0


def test_upload_loads_the_file(tmp_path: Path) -> None:
    data = BILLING.read_bytes()
    upload = {
        "name": "up.openwop.jsonl",
        "type": "",
        "size": len(data),
        "content": memoryview(data),
        "last_modified": datetime.datetime(2026, 11, 20, tzinfo=datetime.UTC),
    }
    blank = Workbench(folder=tmp_path)
    blank.load.upload.value = (upload,)
    assert len(entries(blank.suite)) == 12
    assert blank.load.path.value.endswith("up.openwop.jsonl")


def test_workbench_takes_a_suite_object_and_cells_read_it_back(tmp_path: Path) -> None:
    suite = promote(load_runs(BILLING)).suite
    wb = Workbench(suite, folder=tmp_path)
    assert wb.suite is suite
    wb.boundaries.flip(0)
    assert entries(suite)[0]["isError"] is True  # the cell's own object changed


# -- escaping ----------------------------------------------------------------------------------


def test_hostile_payloads_render_as_text_everywhere(tmp_path: Path) -> None:
    """Recorded text never runs: no raw ``<img`` or ``<script`` in any HTML widget value; the
    table's rows and details are text (the browser writes them with ``textContent``)."""
    wb = Workbench(str(HOSTILE), folder=tmp_path)
    wb.replay_panel.button.click()
    wb.boundaries.flip(0)
    wb.replay_panel.button.click()
    wb.export.validate_button.click()
    wb.sweep_panel.kinds.value = ("flip",)
    wb.sweep_panel.run()
    joined = "\n".join(html_values(wb))
    assert "<img" not in joined.lower()
    assert "<script" not in joined.lower()
    rows = json.dumps(wb.boundaries.grid.rows)
    assert "onerror=alert(1)" in rows
    diff = json.dumps(wb.replay_panel.compare.table.rows)
    assert "web:fetch" in diff


def test_hostile_load_error_text_is_escaped(tmp_path: Path) -> None:
    bad = tmp_path / "<img src=x onerror=alert(3)>.json"
    bad.write_text("[", encoding="utf-8")
    wb = Workbench(folder=tmp_path)
    wb.load.path.value = str(bad)
    wb.load.button.click()
    assert "<img" not in wb.load.status.value
    assert "&lt;img" in wb.load.status.value


def test_the_grid_module_writes_recorded_text_only_as_text() -> None:
    """Structural escaping: the table's JavaScript never assigns HTML (no innerHTML,
    outerHTML, insertAdjacentHTML or document.write)."""
    source = (ROOT / "workbench" / "widgets" / "_static" / "grid.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert sink not in source, sink
    assert source.count("textContent") >= 10


# -- DOM hooks and settings --------------------------------------------------------------------


def test_stable_css_classes_for_the_browser_test(wb: Workbench) -> None:
    classes = {c for x in walk(wb.widget) for c in getattr(x, "_dom_classes", ())}
    for name in (
        "wb-workbench",
        "wb-task-picker",
        "wb-boundary-table",
        "wb-replay-button",
        "wb-trajectory",
        "wb-branch-chart",
        "wb-sweep-cancel",
        "wb-save-button",
        "wb-overwrite",
    ):
        assert name in classes, name
    assert wb.tabs.titles == ("Load", "Boundaries", "Replay", "Sweep & branches", "Export")


def test_offline_charts_are_enabled_only_when_asked_outside_a_kernel() -> None:
    from workbench.widgets import enable_offline_charts
    from workbench.widgets._settings import in_kernel

    assert in_kernel() is False
    before = alt.renderers.active
    try:
        assert enable_offline_charts(force="jupyter") == "jupyter"
        assert alt.renderers.active == "workbench"
        assert enable_offline_charts() == "png"
        assert alt.renderers.active == "png"
    finally:
        alt.renderers.enable(before)


def test_the_widgets_charts_carry_vega_in_their_module(wb: Workbench) -> None:
    """Offline by construction: the chart's ES module has no import from a CDN, whatever was
    displayed before (nothing was, here)."""
    wb.sweep_panel.kinds.value = ("hard",)
    wb.sweep_panel.run()
    chart = wb.sweep_panel.chart
    assert chart is not None
    esm = chart._esm
    assert "esm.sh" not in esm and "cdn.jsdelivr" not in esm and "https://" not in esm[:2000]
    assert len(esm) > 500_000  # vega, vega-lite and vega-embed bundled


def test_the_widget_displays_as_its_root_widget(wb: Workbench) -> None:
    bundle = wb._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == wb.widget.model_id


def test_a_view_made_after_edits_is_sent_the_edited_rows(wb: Workbench) -> None:
    """Edits made before the table is shown (in the same cell) reach the view: rows are changed
    in place, not re-sent, so a new view says hello and gets the rows patched since."""
    wb.boundaries.flip(2)
    wb.boundaries.set_edit(6, "hard")
    grid = wb.boundaries.grid
    grid.handle({"kind": "hello"})
    answer = grid.sent[-1]
    assert answer["kind"] == "patch" and [r["i"] for r in answer["rows"]] == [2, 6]
    assert [r["kind"] for r in answer["rows"]] == ["flip", "hard"]
    wb.task.value = wb.task.value  # nothing new
    wb.reset()
    before = len(grid.sent)
    grid.handle({"kind": "hello"})
    assert len(grid.sent) == before  # a full load since: nothing to send


def test_a_chart_over_altairs_5000_rows_still_shows() -> None:
    """A sweep of a 2,000-call run has a branch tree over Altair's 5,000-row guard (the spine
    has a node per step): the live chart carries it, up to MAX_CHART_ROWS, and the guard is
    back in place afterwards for everything else."""
    import pandas as pd

    from workbench.widgets._charts import MAX_CHART_ROWS, live_chart

    big = alt.Chart(pd.DataFrame({"x": range(6_000)})).mark_point().encode(x="x")
    live = live_chart(big)
    assert len(next(iter(live.spec["datasets"].values()))) == 6_000
    with pytest.raises(alt.MaxRowsError):
        big.to_dict()
    too_big = alt.Chart(pd.DataFrame({"x": range(MAX_CHART_ROWS + 1)})).mark_point()
    with pytest.raises(alt.MaxRowsError):
        live_chart(too_big)
