"""The bad-input corpus (issue 16): hundreds of hostile command lines, every command.

Malformed files, special files, hostile output paths, hostile content and argument errors come
from the tables in ``helpers/bad_inputs.py``; signals are the subprocess tests at the end. For
every case: the exit code is one of the documented ones it expects (never 3, an internal error),
there is no traceback, an exit 2 is one line on stderr naming the file, line or field, and no
file, link, FIFO or folder that was there before is lost or changed unless the case says the
command may write it (R2 "errors name the file, line and field"; R31 for outputs).
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from helpers.bad_inputs import BASE_FILES, Case, all_cases
from workbench.cli import main

ROOT = Path(__file__).resolve().parents[1]
BILLING = ROOT / "fixtures" / "billing-support.openwop.jsonl"
CASES = all_cases()


def test_the_corpus_covers_every_command_with_hundreds_of_cases() -> None:
    commands = {c.argv[0] for c in CASES if c.argv}
    assert commands >= {
        "boundaries", "promote", "validate", "replay", "sweep", "serve-mcp", "record-mcp",
    }  # fmt: skip
    assert len(CASES) >= 300, len(CASES)


def snapshot(folder: Path) -> dict[str, tuple[str, bytes | str | None]]:
    """Every entry under ``folder`` (not following links): its kind and content."""
    found: dict[str, tuple[str, bytes | str | None]] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            relative = str(path.relative_to(folder))
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                found[relative] = ("link", os.readlink(path))
            elif stat.S_ISREG(mode):
                found[relative] = ("file", path.read_bytes())
            elif stat.S_ISDIR(mode):
                found[relative] = ("dir", None)
            else:
                found[relative] = ("special", None)
    return found


def _covered(name: str, changes: tuple[str, ...]) -> bool:
    return any(name == c or name.startswith(c.rstrip("/") + "/") for c in changes)


@pytest.fixture
def case_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "case"
    folder.mkdir()
    for name, data in BASE_FILES.items():
        (folder / name).write_bytes(data)
    shutil.copyfile(BILLING, folder / "run.jsonl")
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "stdin", open(os.devnull, encoding="utf-8"))  # noqa: SIM115
    return folder


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, case_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, data in case.files.items():
        (case_folder / name).write_bytes(data)
    if case.setup is not None:
        case.setup(case_folder)
    before = snapshot(case_folder)
    devnull = os.stat("/dev/null").st_mode

    code = main(list(case.argv))
    out, err = capsys.readouterr()

    assert "Traceback" not in out + err, err[-2000:]
    assert code in case.expect, f"exit {code}, expected {case.expect}; stderr: {err[-800:]}"
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        for text in case.mentions:
            assert text in lines[0], f"{text!r} not in {lines[0]!r}"
    elif code == 1:
        for text in case.mentions:
            assert text in out, f"{text!r} not in stdout"
    for text in case.out_must_not_hold:
        assert text not in out, f"{text!r} reached stdout"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and os.stat("/dev/null").st_mode == devnull

    after = snapshot(case_folder)
    for name, entry in before.items():
        if _covered(name, case.changes):
            continue
        assert after.get(name) == entry, f"{name} was lost or changed"
    for name in after.keys() - before.keys():
        assert _covered(name, case.changes), f"{name} was written"
    assert not [n for n in after if n.endswith(".wbtmp")], "a temp file was left"


# --- signals ----------------------------------------------------------------------------------

SIGNAL_DEADLINE = 3.0
"""Seconds a command may take to stop after a signal here. The watchdog ends it 0.8 s after
the signal; the margin is for a shared CI machine (figures: docs/performance.md)."""


@pytest.fixture(scope="module")
def big_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3,000-call run: long enough to interrupt a sweep or a promotion part way (a sweep of
    400 calls, once enough, now ends within two seconds: variants resume from the baseline's
    prefix, R39)."""
    from workbench._load.synthetic import write_synthetic_log

    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    write_synthetic_log(path, n_calls=3000, error_every=0)
    return path


def _interrupt(argv: list[str], cwd: Path, delay: float, signum: int) -> tuple[int, float, str]:
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(
            [sys.executable, "-m", "workbench.cli", *argv],
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(delay)
        assert proc.poll() is None, "the command ended before the signal"
        sent = time.monotonic()
        os.killpg(proc.pid, signum)  # like a terminal: the whole process group
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        took = time.monotonic() - sent
        with __import__("contextlib").suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # anything left of the group
        errors.seek(0)
        return proc.returncode, took, errors.read().decode("utf-8", "replace")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "extra", "signum", "code", "delay"),
    [
        ("sweep-in-process-ctrl-c", [], signal.SIGINT, 130, 5.0),
        ("sweep-workers-ctrl-c", ["--workers", "2"], signal.SIGINT, 130, 5.0),
        ("sweep-workers-sigterm", ["--workers", "2"], signal.SIGTERM, 143, 5.0),
        ("sweep-dask-ctrl-c", ["--dask"], signal.SIGINT, 130, 12.0),
        # while distributed is imported and the local cluster starts: a Ctrl-C then was once
        # lost (SIGINT ignored during the start) and the sweep ran to its end
        ("sweep-dask-ctrl-c-while-starting", ["--dask"], signal.SIGINT, 130, 2.5),
        ("sweep-dask-sigterm-while-starting", ["--dask"], signal.SIGTERM, 143, 3.5),
        ("sweep-sighup", [], signal.SIGHUP, 129, 5.0),
    ],
)
def test_a_signal_stops_a_sweep_at_once_with_one_line(
    name: str,
    extra: list[str],
    signum: int,
    code: int,
    delay: float,
    big_run: Path,
    tmp_path: Path,
) -> None:
    """Ctrl-C stops any command within a second with exit 130 and one line, worker pools and
    Dask included (also while its cluster starts); SIGTERM 143, SIGHUP 129. No temp and no half
    report is left behind."""
    if "--dask" in extra:
        pytest.importorskip("distributed")
    argv = ["sweep", str(big_run), "--out", "report", *extra]
    returncode, took, err = _interrupt(argv, tmp_path, delay, signum)
    assert returncode == code, err
    assert took < SIGNAL_DEADLINE, f"{took:.2f} s to stop"
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1:] == [f"workbench: {err.strip().split(': ')[-1]}"]
    assert len([line for line in err.splitlines() if line.strip()]) == 1, err
    assert not (tmp_path / "report").exists()
    time.sleep(0.5)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".wbtmp")]


def test_a_dask_sweep_quiets_every_distributed_and_tornado_logger() -> None:
    """Stopping a Dask sweep cancels its futures, which Tornado reports on
    ``tornado.application`` with a traceback. distributed's logging config gives that logger
    (and ``distributed.client``, ``distributed.gc``) a level of its own, so quieting only the
    parents once let a cancelled future's traceback through a Ctrl-C (a CI failure)."""
    pytest.importorskip("distributed")
    import logging

    from workbench.cli._sweep import _dask_module

    loggers = {
        name: logger
        for name, logger in logging.root.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    saved = {name: logger.level for name, logger in loggers.items()}
    try:
        _dask_module()
        for name in ("tornado", "tornado.application", "distributed", "distributed.client"):
            assert not logging.getLogger(name).isEnabledFor(logging.CRITICAL), name
    finally:
        for name, level in saved.items():
            loggers[name].setLevel(level)


def test_a_stop_kills_a_local_clusters_workers_and_starts_no_new_ones() -> None:
    """A stopped sweep kills its cluster's worker processes, and their nannies do not start new
    ones (each restart was a worker starting while the command ended: a second of CPU, and a
    heartbeat traceback or a spawn's ``EOFError`` on stderr after the one line)."""
    distributed = pytest.importorskip("distributed")
    from distributed.core import Status

    from workbench.cli._sweep import _kill_workers

    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        nannies = list(cluster.workers.values())
        first = {nanny.pid for nanny in nannies}
        _kill_workers(cluster)
        deadline = time.monotonic() + 20
        while not all(nanny.status == Status.closed for nanny in nannies):
            restarted = {nanny.pid for nanny in nannies} - first - {None}
            assert not restarted, f"workers restarted: {restarted}"
            assert time.monotonic() < deadline, [nanny.status for nanny in nannies]
            time.sleep(0.05)


_RELAY_CHILD = """
import sys, time
from pathlib import Path

folder = Path(sys.argv[1])

def wait(name):
    deadline = time.monotonic() + 60  # never left behind by a failed test
    while not (folder / name).exists() and time.monotonic() < deadline:
        time.sleep(0.01)

print("child before", file=sys.stderr, flush=True)
(folder / "said").touch()
wait("go")
print("child after", file=sys.stderr, flush=True)
(folder / "wrote").touch()
wait("go-again")
try:
    print("child later", file=sys.stderr, flush=True)
    (folder / "wrote-again").touch()
except BrokenPipeError:
    (folder / "epipe").touch()
"""

_RELAY_PARENT = """
import os, subprocess, sys, time
from pathlib import Path
import workbench.cli as cli
from workbench.cli._sweep import _ChildrenStderr

mode, folder = sys.argv[1], Path(sys.argv[2])

def wait(name):
    while not (folder / name).exists():
        time.sleep(0.01)

def forwarded():
    # the relay has read all that was written and finished writing it on (a loaded machine
    # may run its thread late: a fixed sleep once let the stop drop "parent before")
    import select
    poller = select.poll()
    poller.register(relay._read_end, select.POLLIN)
    while poller.poll(0):
        time.sleep(0.01)
    time.sleep(0.05)
    with relay._lock:
        pass

cli._WATCHDOG.armed = True  # as `main` run as the program does
cli._WATCHDOG.line_fd = os.dup(2)
relay = _ChildrenStderr()
child = subprocess.Popen([sys.executable, str(folder / "child.py"), str(folder)])
wait("said")
forwarded()
print("parent before", file=sys.stderr, flush=True)
if mode == "stop":
    forwarded()
    cli._WATCHDOG.arm(143, "terminated")  # what the first SIGTERM does
    print("parent after the stop", file=sys.stderr, flush=True)
    (folder / "go").touch()
    wait("wrote")
    time.sleep(0.2)  # the relay would have forwarded it
    cli._WATCHDOG.say("terminated")
    os._exit(143)
(folder / "go").touch()
wait("wrote")
(folder / "go-again").touch()
child.wait()
relay.close()
print("parent after the close", file=sys.stderr, flush=True)
"""


@pytest.mark.parametrize("mode", ["stop", "close"])
def test_a_local_clusters_children_reach_stderr_until_a_stop_and_never_after(
    mode: str, tmp_path: Path
) -> None:
    """A local Dask cluster's processes inherit a stderr that a thread of the command forwards.
    Before a stop their output reaches the real stderr, in order with the command's own; from
    the first signal nothing of theirs or the command's does, and once the command is gone a
    child still writing (a worker that lost its scheduler, one still spawning) gets EPIPE."""
    (tmp_path / "child.py").write_text(_RELAY_CHILD)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _RELAY_PARENT, mode, str(tmp_path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,  # only the command holds it: its children have the relay's
            text=True,
            timeout=30,
        )
        lines = done.stderr.splitlines()
        if mode == "close":
            assert done.returncode == 0, done.stderr
            assert lines == [
                "child before", "parent before", "child after", "child later",
                "parent after the close",
            ]  # fmt: skip
            return
        assert done.returncode == 143, done.stderr
        assert lines == ["child before", "parent before", "workbench: terminated"]
        (tmp_path / "go-again").touch()  # the child writes again, its parent gone
        deadline = time.monotonic() + 10
        while not {"epipe", "wrote-again"} & {p.name for p in tmp_path.iterdir()}:
            assert time.monotonic() < deadline, "the child never wrote"
            time.sleep(0.05)
        assert (tmp_path / "epipe").exists()
    finally:
        for name in ("go", "go-again"):  # the child ends whatever happened
            (tmp_path / name).touch()


@pytest.mark.slow
def test_ctrl_c_during_a_promotion_leaves_no_output(tmp_path: Path) -> None:
    from workbench._load.synthetic import write_synthetic_log

    run = tmp_path / "huge.jsonl"
    write_synthetic_log(run, n_calls=40_000, error_every=0)
    out = tmp_path / "suite.json"
    returncode, took, err = _interrupt(
        ["promote", str(run), "-o", str(out)], tmp_path, 2.5, signal.SIGINT
    )
    if returncode == 0:
        pytest.fail("the promotion finished before the signal: make the run longer")
    assert returncode == 130 and err.strip() == "workbench: interrupted", err
    assert took < SIGNAL_DEADLINE
    assert not out.exists()


@pytest.mark.slow
def test_a_killed_write_leaves_a_temp_that_the_next_write_removes(tmp_path: Path) -> None:
    """SIGKILL cannot be caught: the temp stays until the next write into that folder."""
    script = textwrap.dedent(
        f"""
        import os, signal
        import workbench as wb
        runs = wb.load_runs({str(BILLING)!r})
        suite = wb.promote(runs).suite
        from workbench._common import atomic
        real = atomic.os.replace
        def killed(src, dst):
            os.kill(os.getpid(), signal.SIGKILL)
        atomic.os.replace = killed
        suite.save({str(tmp_path / "suite.json")!r})
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].endswith(".wbtmp") and "suite.json" in left[0]
    assert main(["promote", str(BILLING), "-o", str(tmp_path / "again.json")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.json"]


_STUCK_WRITER = """
import os, sys, time
from pathlib import Path
import workbench.cli as cli
from workbench._common.atomic import atomic_file, replace_folder

folder = Path(sys.argv[1])
cli._WATCHDOG.armed = True  # as `main` run as the program does
cli._WATCHDOG.line_fd = os.dup(2)
with replace_folder(folder / "report") as new, atomic_file(folder / "suite.json") as handle:
    (new / "index.html").write_text("half")
    handle.write(b"half")
    cli._WATCHDOG.arm(130, "interrupted")  # what the first Ctrl-C does
    time.sleep(30)  # stuck where no exception reaches (native code): the watchdog ends it
"""


def test_a_stop_that_outlasts_the_deadline_leaves_no_temp(tmp_path: Path) -> None:
    """When a stop takes longer than the watchdog allows (a loaded machine, a library stuck
    in native code), the process ends by ``os._exit`` and unwinds nothing: the temporary
    folder and file of the outputs it was writing are removed before it goes (a CI run once
    found a report's ``.wbtmp`` left by a Dask sweep stopped mid-write)."""
    (tmp_path / "stuck.py").write_text(_STUCK_WRITER)
    done = subprocess.run(
        [sys.executable, str(tmp_path / "stuck.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip().splitlines() == ["workbench: interrupted"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stuck.py"]
