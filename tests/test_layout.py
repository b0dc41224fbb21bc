"""The package's layout: rooms with docstrings, and no module over ~400 lines without a reason.

The import contract itself (layers, no circles, views on public names only) is import-linter's,
configured in pyproject.toml and run by .ci/run; these are the checks it does not make.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import workbench

PACKAGE = Path(workbench.__file__).resolve().parent
MODULES = sorted(PACKAGE.rglob("*.py"))
ROOMS = ["_common", "_load", "_suite", "_replay", "_grade", "_promote", "_sweep", "_report"]
LIMIT = 400


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_long_module_says_why_at_its_top(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if text.count("\n") <= LIMIT:
        return
    doc = ast.get_docstring(ast.parse(text)) or ""
    assert "Longer than 400 lines" in doc, f"{path}: {text.count(chr(10))} lines and no reason"


@pytest.mark.parametrize("room", ROOMS)
def test_every_room_says_what_it_holds(room: str) -> None:
    doc = ast.get_docstring(ast.parse((PACKAGE / room / "__init__.py").read_text())) or ""
    assert len(doc.split()) >= 12, f"{room}/__init__.py needs a docstring naming its rules"
    assert "R" in doc


ROOT = PACKAGE.parent
LARGEST_TRACKED = 2 * 1024 * 1024
"""No file the repository tracks is larger (a fixture is cut down or gzipped first)."""


def test_no_tracked_file_is_over_2_mib() -> None:
    """A scratch file once landed in a commit (31 MB of generated JSON at the root): the
    repository holds its own files only, each small enough to read in review."""
    import subprocess

    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if listed.returncode == 0:
        names = [n for n in listed.stdout.decode().split("\0") if n]
    else:  # not a git checkout (an unpacked archive): the project's own folders, walked
        own = ("workbench", "tests", "fixtures", "notebooks", "docs", "benchmarks")
        names = [str(p.relative_to(ROOT)) for d in own for p in (ROOT / d).rglob("*")]
    assert names
    large = [
        n for n in names if (ROOT / n).is_file() and (ROOT / n).stat().st_size > LARGEST_TRACKED
    ]
    assert large == []
