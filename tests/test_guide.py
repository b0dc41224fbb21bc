"""The user guide runs as written (issue 16: its commands named files that did not exist and its
Python used undefined names).

Every ``sh`` and ``python`` block of ``docs/guide.md`` runs in document order, from a folder that
holds the repository's ``fixtures/`` (as the guide's "from the repository's root" says): shell
blocks with bash, Python blocks in one shared namespace, like a notebook's cells. A block is
left out only when the line before it says ``<!-- not run by the guide test: REASON -->``; a
JSON block marked ``<!-- the guide test compares this with FILE -->`` must equal that file. The
README's quick start is checked the same way: its one command is what it says, and its demo runs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
SKIP = re.compile(r"<!-- not run by the guide test: (?P<reason>[^>]+?) -->\s*$")
COMPARE = re.compile(r"<!-- the guide test compares this with (?P<file>\S+) -->\s*$")


def blocks(text: str) -> list[tuple[str, str, str]]:
    """``(language, code, the line before the fence)`` for every top-level fenced block."""
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        found.append((match.group(1), match.group(2), before))
    return found


def run_shell(code: str, cwd: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, f"{code}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"


@pytest.mark.slow
def test_every_command_and_snippet_of_the_guide_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    (tmp_path / "notebooks").symlink_to(ROOT / "notebooks")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "guide"}
    ran = skipped = 0
    found = blocks((ROOT / "docs" / "guide.md").read_text("utf-8"))
    runnable = sum(1 for language, _, _ in found if language in ("sh", "python"))
    for language, code, before in found:
        skip = SKIP.search(before)
        compare = COMPARE.search(before)
        if skip:
            assert skip.group("reason").strip()
            skipped += 1
        elif compare:
            expected = json.loads(code)
            assert json.loads((tmp_path / compare.group("file")).read_text("utf-8")) == expected
        elif language == "sh":
            run_shell(code, tmp_path)
            ran += 1
        elif language == "python":
            exec(compile(code, "docs/guide.md", "exec"), namespace)
            ran += 1
    assert skipped == 2 and ran == runnable - skipped and ran >= 7, (ran, skipped)


def test_the_quick_start_installs_only_what_the_demo_needs() -> None:
    """The README's first command makes a virtual environment, installs the package without
    the test tools, and runs the demo."""
    readme = (ROOT / "README.md").read_text("utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [code for language, code, _ in blocks(quick) if language == "sh"]
    assert commands[0].strip() == (
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && workbench demo"
    )
    assert "[test" not in commands[0]


@pytest.mark.slow
def test_the_demo_runs_from_a_fresh_folder(tmp_path: Path) -> None:
    """``workbench demo`` (the quick start's last step) writes its two reports under out/demo."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["workbench", "demo"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    for folder in ("billing", "tau-bench"):
        assert (tmp_path / "out" / "demo" / folder / "report.html").is_file()
