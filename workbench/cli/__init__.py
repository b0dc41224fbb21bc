"""The ``workbench`` command line: one module per subcommand, registered here.

Exit codes (every command): 0 done (passed, valid); 1 a check failed (a replay failed, a suite
has problems, a promotion's self-test differs); 2 bad input or a refused output path, with one
line on stderr naming the file, line or field; 130 interrupted (Ctrl-C), 143 terminated
(SIGTERM), 129 hung up (SIGHUP), each with one line; 3 an internal error (a bug: one line, and
the traceback with ``WORKBENCH_DEBUG=1``).

Start-up is kept short: a command imports only its own module, and each module imports the
library's heavier parts (pandas, jsonschema, Altair) inside the function that needs them, so
``workbench --help`` and ``workbench boundaries`` never load them.
"""

from __future__ import annotations

import _thread
import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import Any

from ._common import OneLineParser, error_line, fail

__all__ = ["main"]

_COMMANDS: tuple[tuple[str, str], ...] = (
    ("boundaries", "_boundaries"),
    ("promote", "_promote"),
    ("validate", "_validate"),
    ("replay", "_replay"),
    ("serve-mcp", "_mcp"),
    ("record-mcp", "_mcp"),
    ("serve-host", "_serve_host"),
    ("sweep", "_sweep"),
    ("demo", "_sweep"),
)
"""Each subcommand and the module (in this package) that registers and runs it."""


class Interrupted(KeyboardInterrupt):
    """A signal that ends the command (SIGTERM, SIGHUP), raised like Ctrl-C's KeyboardInterrupt
    so every clean-up (temp files, worker pools) runs on the way out."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _OnlyOne:
    """Passed to a module's ``register`` in place of the subparsers action: registers the one
    command asked for and gives the module's other commands a throwaway parser."""

    def __init__(self, sub: Any, wanted: str | None) -> None:
        self._sub = sub
        self._wanted = wanted

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if self._wanted is None or name == self._wanted:
            parser: argparse.ArgumentParser = self._sub.add_parser(name, **kwargs)
            return parser
        return OneLineParser(prog=name, add_help=False)


def _version() -> str:
    import workbench

    return f"workbench {workbench.__version__}"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every subcommand, or only ``command`` (a faster start)."""
    parser = OneLineParser(
        prog="workbench",
        description="Record-and-replay eval workbench for how agents recover from tool "
        "failures: read recorded runs, promote them into OpenWOP eval suites, replay and sweep "
        "faults through them.",
        epilog="Exit codes: 0 done, 1 a check failed, 2 bad input or a refused output, "
        "130 interrupted. 'workbench COMMAND --help' lists a command's options.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=OneLineParser
    )
    done: set[str] = set()
    for name, module_name in _COMMANDS:
        if command is not None and name != command:
            continue
        if module_name in done:
            continue
        done.add(module_name)
        module = importlib.import_module(f"{__name__}.{module_name}")
        module.register(_OnlyOne(sub, command))
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option), if known."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in {name for name, _ in _COMMANDS} else None
    return None


_DEADLINE = 0.8
"""Seconds from a stopping signal to the process's end, whatever the command was doing."""


class _Watchdog:
    """Ends the process ``_DEADLINE`` seconds after the first stopping signal.

    A signal raises KeyboardInterrupt in the main thread, and the command cleans up on the way
    out (temp files, pools, clusters). That is not always enough: the interrupt can land in a
    garbage-collector callback that swallows it, or in native code that does not return for
    seconds. The watchdog then kills this process's children, prints the one line and exits
    with the signal's code. Armed only when ``main`` runs as the program, never in-process.

    From the first signal on, this process's stderr points at /dev/null: whatever a library,
    thread or exit hook prints while the command stops (asyncio's "Task exception was never
    retrieved" for a Dask nanny whose worker the signal killed) is an echo of the stop, not
    news. The one line goes to ``line_fd``, a copy of stderr taken when ``main`` started.
    Hooks in ``on_stop`` run first (a local Dask cluster's stderr relay stops forwarding its
    children's output: ``_sweep._ChildrenStderr``).
    """

    def __init__(self) -> None:
        self.armed = False
        self.reported = False
        self.owed = False  # a signal caught off the main thread, still to raise in it
        self.timer: threading.Timer | None = None
        self.line_fd: int | None = None
        self.on_stop: list[Callable[[], None]] = []
        self._saying = threading.Lock()

    def arm(self, code: int, what: str) -> None:
        if not self.armed or self.timer is not None:
            return
        self.timer = threading.Timer(_DEADLINE, self._fire, args=(code, what))
        self.timer.daemon = True
        self.timer.start()
        for hook in list(self.on_stop):
            with contextlib.suppress(Exception):
                hook()
        stderr_to_devnull()

    def say(self, what: str) -> None:
        """The one line, once, on the stderr the program started with."""
        with self._saying:
            if self.reported:
                return
            self.reported = True
            fd = 2 if self.line_fd is None else self.line_fd
            with contextlib.suppress(OSError, ValueError):
                os.write(fd, f"workbench: {what}\n".encode())

    def _fire(self, code: int, what: str) -> None:
        _kill_children()
        atomic = sys.modules.get("workbench._common.atomic")  # not loaded: nothing written
        if atomic is not None:  # os._exit runs no clean-up: a half-written output goes first
            with contextlib.suppress(Exception):
                atomic.remove_live_temps()
        self.say(what)
        os._exit(code)


_WATCHDOG = _Watchdog()


def _kill_children() -> None:
    """SIGKILL this process's child processes (worker pools, a local Dask cluster), leaving
    multiprocessing's resource tracker to exit on its own (Linux; elsewhere nothing)."""
    own = str(os.getpid())
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            if fields[1] != own:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if b"multiprocessing.resource_tracker import main" in handle.read():
                    continue
            os.kill(int(entry), signal.SIGKILL)
        except (OSError, IndexError, ValueError):
            continue


def when_stopping(hook: Callable[[], None]) -> None:
    """Run ``hook`` at the first stopping signal, as the program (see :class:`_Watchdog`)."""
    _WATCHDOG.on_stop.append(hook)


def forget_stopping(hook: Callable[[], None]) -> None:
    with contextlib.suppress(ValueError):
        _WATCHDOG.on_stop.remove(hook)


def running_as_program() -> bool:
    """Whether ``main`` runs as the program (not called in-process): it may then take over
    the process's file descriptors and signals."""
    return _WATCHDOG.armed


def stderr_to_devnull() -> None:
    """Point this process's stderr (fd 2) at /dev/null."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)


def _stop_exception(signum: int) -> KeyboardInterrupt:
    return KeyboardInterrupt() if signum == signal.SIGINT else Interrupted(signum)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _WATCHDOG.timer is not None and not _WATCHDOG.owed:
        return  # a second signal while cleaning up: the first one is being handled
    _WATCHDOG.owed = False
    exc = _stop_exception(signum)
    _WATCHDOG.arm(*_interrupt_code(exc))
    raise exc


def interrupt_from_thread(signum: int) -> None:
    """A stopping signal taken by a helper thread (``sigwait``) while the main thread has it
    blocked: the watchdog starts now, and the main thread raises the interrupt as soon as it
    runs Python code again (``_thread.interrupt_main``), as if the signal had reached it."""
    _WATCHDOG.owed = True
    _WATCHDOG.arm(*_interrupt_code(_stop_exception(signum)))
    _thread.interrupt_main(signal.Signals(signum))


def _quiet_unraisable(previous: Any) -> Any:
    """An unraisable hook that drops an interrupt swallowed in a callback (the watchdog ends the
    process), and any callback's error once a stop is under way, instead of printing their
    tracebacks; anything else goes to ``previous``."""

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return
        if _WATCHDOG.timer is not None:
            # Stopping: an error in a callback now is an echo of the interrupt (an interrupt
            # that landed in distributed's GC-timing callback leaves its next call asserting).
            return
        previous(unraisable)

    return hook


@contextlib.contextmanager
def _signals_as_interrupts() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt (:class:`Interrupted` for the last
    two) while the command runs; the previous handlers come back afterwards."""
    previous: dict[int, Any] = {}
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _quiet_unraisable(previous_hook)
    try:
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is None:
                continue
            current = signal.getsignal(number)
            if current is signal.SIG_IGN:  # started with the signal ignored (nohup): keep it
                continue
            with contextlib.suppress(ValueError, OSError):  # not the main thread
                previous[number] = signal.signal(number, _on_signal)
        yield
    finally:
        sys.unraisablehook = previous_hook
        # Interrupted as the program: stay deaf to signals until the process ends.
        if _WATCHDOG.timer is None:
            for number, handler in previous.items():
                with contextlib.suppress(ValueError, OSError, TypeError):
                    signal.signal(number, handler)


def _interrupt_code(exc: KeyboardInterrupt) -> tuple[int, str]:
    if isinstance(exc, Interrupted):
        sighup = getattr(signal, "SIGHUP", None)
        if exc.signum == sighup:
            return 129, "hung up"
        return 128 + int(exc.signum), "terminated"
    return 130, "interrupted"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    words = list(sys.argv[1:] if argv is None else argv)
    _WATCHDOG.armed = argv is None
    if _WATCHDOG.armed and _WATCHDOG.line_fd is None:
        with contextlib.suppress(OSError):  # no stderr at all (2>&-): the line goes nowhere
            _WATCHDOG.line_fd = os.dup(2)
    with _signals_as_interrupts():
        try:
            parser = build_parser(_command_in(words))
            args = parser.parse_args(words)
            code: int = args.handler(args)
            return code
        except KeyboardInterrupt as exc:
            code, what = _interrupt_code(exc)
            if _WATCHDOG.armed:
                _WATCHDOG.say(what)
                _quiet_exit()
            else:
                _WATCHDOG.reported = True
                print(f"workbench: {what}", file=sys.stderr, flush=True)
            return code
        except BrokenPipeError:  # `workbench boundaries ... | head`
            _silence_stdout()
            return 0
        except SystemExit as exc:  # argparse: --help, --version and usage errors
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        except Exception as exc:
            line = error_line(exc)
            if line is not None:
                return fail(line)
            if os.environ.get("WORKBENCH_DEBUG"):
                traceback.print_exc()
            kind = type(exc).__name__
            return fail(
                f"internal error ({kind}: {str(exc)[:200]}); this is a bug: please report it "
                "with the output of WORKBENCH_DEBUG=1 and the command",
                code=3,
            )


def _quiet_exit() -> None:
    """After a stopping signal, as the program: the clean-up has run and the one line is out.
    Child processes still starting (a worker pool's, a local Dask cluster's) are killed, and
    stderr points at /dev/null (as since the signal: again, should anything have pointed it
    back), so library exit hooks that trip over the half-started pieces (distributed's cluster
    close) print no traceback after it. A child's stderr is its own: see ``_ChildrenStderr``
    in ``_sweep``."""
    _kill_children()
    stderr_to_devnull()


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush does not fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
