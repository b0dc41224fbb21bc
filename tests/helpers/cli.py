"""Running the ``workbench`` command in tests: in process, or as a child process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers.paths import ROOT
from workbench.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """Run ``workbench *argv`` in process: (exit code, stdout, stderr). Paths become strings."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def child_env(*keep: str) -> dict[str, str]:
    """A small environment for a child Python: ``PATH``, ``HOME``, ``LANG`` and ``keep`` from
    this one, and ``PYTHONPATH`` starting with the repository, so the child imports this tree."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", *keep)}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    return env
