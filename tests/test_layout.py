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
