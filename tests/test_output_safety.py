"""Outputs never destroy data: what every writer refuses, and the temps it leaves (none).

Pins ``workbench._common.outputs`` and ``workbench._common.atomic`` (issue 16): an output that
is an input, a folder, a device, a FIFO or a symlink to one is refused; an existing file the
workbench did not write is replaced only with ``overwrite=True``; parents are created only when
asked; report folders are replaced whole; temps from killed runs are removed on the next write.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import workbench as wb
from workbench import OutputError
from workbench._common.atomic import TEMP_SUFFIX, atomic_file, replace_folder
from workbench._common.jsonio import (
    is_stable_json_file,
    write_json_atomic,
    write_text_atomic,
)
from workbench._common.markers import is_event_log_file
from workbench._common.outputs import check_distinct_outputs, check_output

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="POSIX special files")
BILLING = Path(__file__).resolve().parents[1] / "fixtures" / "billing-support.openwop.jsonl"


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX))


# --- what is refused -------------------------------------------------------------------------


def test_an_output_that_is_an_input_is_refused_even_through_a_link(tmp_path: Path) -> None:
    source = tmp_path / "run.json"
    source.write_text("{}\n", encoding="utf-8")
    link = tmp_path / "alias.json"
    link.symlink_to(source)
    hard = tmp_path / "hard.json"
    os.link(source, hard)
    for output in (source, link, hard):
        with pytest.raises(OutputError, match="is also an input of this command"):
            write_json_atomic(output, {}, inputs=[source], overwrite=True)
    assert source.read_text(encoding="utf-8") == "{}\n"


@POSIX_ONLY
@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: p.mkdir(), "is a folder"),
        (lambda p: os.mkfifo(p), "is a FIFO"),
        (lambda p: p.symlink_to("/dev/null"), "symbolic link to a device"),
        (lambda p: p.symlink_to(p.parent / "nowhere"), "symbolic link to nothing"),
    ],
    ids=["folder", "fifo", "link-to-device", "dangling-link"],
)
def test_special_files_are_refused_even_with_overwrite(
    tmp_path: Path, make: object, words: str
) -> None:
    target = tmp_path / "out.json"
    make(target)  # type: ignore[operator]
    with pytest.raises(OutputError, match=words):
        write_json_atomic(target, {}, overwrite=True)
    assert temps(tmp_path) == []


@POSIX_ONLY
def test_a_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="is a device"):
        write_json_atomic("/dev/null", {}, overwrite=True)
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_a_foreign_file_is_kept_unless_overwrite(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(OutputError, match="not written by the workbench") as info:
        write_json_atomic(notes, {"a": 1})
    assert info.value.needs_force
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    write_json_atomic(notes, {"a": 1}, overwrite=True)
    assert notes.read_text(encoding="utf-8") == '{\n  "a": 1\n}\n'


def test_the_workbench_replaces_its_own_json_without_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    write_json_atomic(target, {"v": 1})
    assert is_stable_json_file(target)
    write_json_atomic(target, {"v": 2})
    assert '"v": 2' in target.read_text(encoding="utf-8")
    # the same JSON written by hand (other indent) is not the workbench's
    target.write_text('{"v": 3}', encoding="utf-8")
    assert not is_stable_json_file(target)
    with pytest.raises(OutputError):
        write_json_atomic(target, {"v": 4})


def test_suite_save_refuses_an_unrelated_file(tmp_path: Path) -> None:
    """Issue 16: ``Suite.save(path, overwrite=False)`` used to overwrite any file."""
    suite = wb.promote(wb.load_runs(BILLING)).suite
    other = tmp_path / "other.json"
    other.write_text('{"mine": true}', encoding="utf-8")
    with pytest.raises(OutputError, match="not written by the workbench"):
        suite.save(other)
    assert other.read_text(encoding="utf-8") == '{"mine": true}'
    suite.save(other, overwrite=True)
    assert wb.Suite.load(other) == suite


def test_a_suite_the_workbench_wrote_is_replaced_by_a_rerun(tmp_path: Path) -> None:
    """Issue 16: a suite keeps its members' order (R42), which the stable-JSON marker (sorted
    keys) did not take for the workbench's: ``promote`` run twice to one ``-o`` refused the
    suite it had written itself. A fresh suite's save, and the command, replace it now; a file
    that is not a suite in the workbench's text is still kept."""
    from workbench.cli import main

    suite = wb.promote(wb.load_runs(BILLING)).suite
    target = tmp_path / "suite.json"
    suite.save(target)
    wb.promote(wb.load_runs(BILLING)).suite.save(target)  # a fresh object: not its own file
    assert main(["promote", str(BILLING), "-o", str(target)]) == 0
    assert main(["promote", str(BILLING), "-o", str(target)]) == 0
    target.write_text(target.read_text(encoding="utf-8").replace("\n  ", "\n   "), "utf-8")
    with pytest.raises(OutputError, match="not written by the workbench"):
        wb.promote(wb.load_runs(BILLING)).suite.save(target)


def test_event_logs_are_recognised_by_their_first_line(tmp_path: Path) -> None:
    result = wb.replay(wb.promote(wb.load_runs(BILLING)).suite)
    log = tmp_path / "events.jsonl"
    result.write_events(log)
    assert is_event_log_file(log)
    result.write_events(log)  # its own log: replaced
    with pytest.raises(OutputError):
        result.write_events(BILLING.parent / "README.md")


def test_parents_are_created_only_when_asked(tmp_path: Path) -> None:
    deep = tmp_path / "no" / "such" / "dir" / "x.json"
    with pytest.raises(OutputError, match="does not exist"):
        write_json_atomic(deep, {})
    assert not (tmp_path / "no").exists()
    write_json_atomic(deep, {}, parents=True)
    assert deep.exists()


def test_a_path_under_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    for parents in (False, True):
        with pytest.raises(OutputError, match="not a folder"):
            write_json_atomic(blocker / "x.json", {}, parents=parents)
    assert blocker.read_text(encoding="utf-8") == "x"


@pytest.mark.parametrize("name", ["", "dir/", ".", ".."])
def test_paths_that_name_no_file_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(OutputError):
        check_output(name)


def test_two_outputs_of_one_command_must_differ(tmp_path: Path) -> None:
    same = tmp_path / "x.json"
    with pytest.raises(OutputError, match="both --events and --summary"):
        check_distinct_outputs([("--events", same), ("--summary", tmp_path / "." / "x.json")])


# --- temps -----------------------------------------------------------------------------------


def test_a_failed_block_leaves_no_temp_and_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    write_json_atomic(target, {"old": True})
    with pytest.raises(RuntimeError), atomic_file(target, overwrite=True) as handle:
        handle.write(b"half")
        raise RuntimeError("boom")
    assert temps(tmp_path) == []
    assert '"old": true' in target.read_text(encoding="utf-8")


def test_temps_of_killed_runs_are_removed_on_the_next_write(tmp_path: Path) -> None:
    """A SIGKILLed writer leaves its temp; the next write into that folder removes it."""
    script = textwrap.dedent(
        f"""
        import os, signal
        from workbench._common.atomic import atomic_file
        with atomic_file({str(tmp_path / "big.json")!r}) as handle:
            handle.write(b"partial")
            handle.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], check=False)
    assert proc.returncode == -signal.SIGKILL
    left = temps(tmp_path)
    assert len(left) == 1 and left[0].startswith(".big.json.")
    write_json_atomic(tmp_path / "other.json", {})
    assert temps(tmp_path) == []
    assert not (tmp_path / "big.json").exists()


def test_temps_of_live_processes_are_left_alone(tmp_path: Path) -> None:
    live = tmp_path / f".x.json.{os.getppid()}.abcd1234{TEMP_SUFFIX}"
    live.write_bytes(b"in use")
    write_json_atomic(tmp_path / "y.json", {})
    assert live.exists()


# --- folders replaced whole -------------------------------------------------------------------


def test_a_folder_is_swapped_in_whole_or_not_at_all(tmp_path: Path) -> None:
    def marked(folder: Path) -> bool:
        return (folder / "MARK").exists()

    out = tmp_path / "report"
    with replace_folder(out, recognise=marked) as new:
        (new / "MARK").write_text("1", encoding="utf-8")
        (new / "a.csv").write_text("old", encoding="utf-8")
    assert sorted(os.listdir(out)) == ["MARK", "a.csv"]
    with pytest.raises(RuntimeError), replace_folder(out, recognise=marked) as new:
        (new / "MARK").write_text("2", encoding="utf-8")
        raise RuntimeError("the sweep failed half way")
    assert (out / "a.csv").read_text(encoding="utf-8") == "old"  # untouched
    assert temps(tmp_path) == []
    with replace_folder(out, recognise=marked) as new:
        (new / "MARK").write_text("3", encoding="utf-8")
    assert os.listdir(out) == ["MARK"]  # the old a.csv went with the old folder


def test_a_folder_with_foreign_files_is_never_replaced(tmp_path: Path) -> None:
    out = tmp_path / "home"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work", encoding="utf-8")
    for overwrite in (False, True):
        with (
            pytest.raises(OutputError, match=r"thesis\.tex"),
            replace_folder(out, overwrite=overwrite, known_names=("report.html",)),
        ):
            pass
    assert (out / "thesis.tex").read_text(encoding="utf-8") == "years of work"


def test_a_folder_output_may_not_hold_an_input(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    run = data / "run.jsonl"
    run.write_text("", encoding="utf-8")
    with pytest.raises(OutputError, match="holds an input"), replace_folder(data, inputs=[run]):
        pass


def test_a_file_where_a_folder_goes_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("x", encoding="utf-8")
    with pytest.raises(OutputError, match="not a folder"), replace_folder(out):
        pass


def test_text_writers_refuse_by_default(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("x", encoding="utf-8")
    with pytest.raises(OutputError):
        write_text_atomic(plain, "y")
    assert plain.read_text(encoding="utf-8") == "x"


@pytest.mark.parametrize("fails_as", [KeyboardInterrupt, PermissionError])
def test_a_signal_or_error_as_the_new_folder_is_made_leaves_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails_as: type[BaseException]
) -> None:
    """Ctrl-C arriving just after the temp folder was made (before its name came back) or an
    error right after leaves no ``.wbtmp`` behind (a dask sweep's report once kept one)."""
    made: list[str] = []
    real_mkdir = os.mkdir

    def mkdir_then_fail(name: str, mode: int = 0o777) -> None:
        real_mkdir(name, mode)
        made.append(name)
        raise fails_as()

    monkeypatch.setattr(os, "mkdir", mkdir_then_fail)
    expected = OutputError if fails_as is PermissionError else fails_as
    with pytest.raises(expected), replace_folder(tmp_path / "report"):
        pass
    assert made and not [p for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)]
