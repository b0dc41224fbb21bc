"""Packaging metadata agrees with itself: pyproject.toml, environment.yml, the CLI entry point."""

from __future__ import annotations

import importlib
import re
import tomllib
from typing import Any

from helpers.paths import ROOT

NOT_PACKAGES = {"python", "pip"}  # conda entries that are the environment, not dependencies


def _normalize(name: str) -> str:
    """PEP 503 name normalisation: case and runs of -, _ and . do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _split_requirement(requirement: str) -> tuple[str, str]:
    """'pandas>=3.1' -> ('pandas', '>=3.1'); extras and markers are not used in this project."""
    match = re.fullmatch(
        r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;]*?)\s*", requirement
    )
    assert match is not None, f"cannot read requirement {requirement!r}"
    return _normalize(match.group(1)), match.group(3).replace(" ", "")


def _pyproject() -> dict[str, Any]:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)


def _conda_dependencies() -> list[str]:
    """The top-level `dependencies:` list of environment.yml, without the nested `pip:` list.

    A small reader for this file's known shape (block sequences of plain scalars), so the test
    needs no YAML library.
    """
    entries: list[str] = []
    in_dependencies = False
    for raw in (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines():
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):  # a top-level key
            in_dependencies = line == "dependencies:"
            continue
        if in_dependencies:
            item = re.fullmatch(r"  - (\S.*)", line)  # direct children only (pip's list is deeper)
            if item is not None and not item.group(1).endswith(":"):
                entries.append(item.group(1).strip().strip("'\""))
    return entries


def test_environment_yml_names_the_same_runtime_dependencies_as_pyproject() -> None:
    from_pyproject = {_split_requirement(r)[0] for r in _pyproject()["project"]["dependencies"]}
    from_conda = {_split_requirement(r)[0] for r in _conda_dependencies()} - NOT_PACKAGES
    assert from_conda == from_pyproject, (
        f"only in environment.yml: {sorted(from_conda - from_pyproject)}; "
        f"only in pyproject.toml: {sorted(from_pyproject - from_conda)}"
    )


def test_environment_yml_uses_the_same_lower_bounds_as_pyproject() -> None:
    from_pyproject = dict(_split_requirement(r) for r in _pyproject()["project"]["dependencies"])
    from_conda = dict(_split_requirement(r) for r in _conda_dependencies())
    assert {name: from_conda.get(name) for name in from_pyproject} == from_pyproject


def test_environment_yml_installs_the_package_itself_with_pip() -> None:
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert re.search(r"^  - pip:\n      - -e \.$", text, flags=re.MULTILINE)
    assert "python>=3.11" in _conda_dependencies()
    assert _pyproject()["project"]["requires-python"] == ">=3.11"


def test_console_script_points_at_a_callable_cli_main() -> None:
    """`workbench` on the command line runs workbench.cli:main."""
    assert _pyproject()["project"]["scripts"] == {"workbench": "workbench.cli:main"}
    main = importlib.import_module("workbench.cli").main
    assert callable(main)
