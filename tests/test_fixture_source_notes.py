"""Every fixture file has a one-line source note that a checker can read, and it names this file.

An external check once flagged fixture files "without a source note it could read": their
provenance sat in tables and prose only. Each folder's ``SOURCE.md`` now opens with
``## Source notes: one line a file``, a line per file:

    - `<name>`: REAL recording, ...; license: <SPDX id> (...); source: ... (sha256 `...`).

(or ``SYNTHETIC ...`` for a file generated here). The note for a file is in the nearest
``SOURCE.md`` up the folder tree, and names the file by its path relative to that ``SOURCE.md``'s
folder (or by its bare name). A note that gives a sha256 must give the file's current one, so a
fixture changed without its note fails here.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

from helpers.paths import FIXTURES

SKIPPED_NAMES = frozenset({"README.md", "SOURCE.md", "billing-support.openwop.jsonl"})
"""Not fixtures with a source of their own (the billing log is made by ``make_billing_log.py``)."""
SKIPPED_TOP_FOLDERS = frozenset({"samples"})
"""Hand-made samples, described by ``fixtures/README.md``."""

SHA256 = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
KIND = re.compile(r"\b(REAL|SYNTHETIC)\b")


def _is_fixture(path: Path) -> bool:
    rel = path.relative_to(FIXTURES)
    if rel.parts[0] in SKIPPED_TOP_FOLDERS:
        return False
    if any(part == "__pycache__" or part.startswith(".") for part in rel.parts):
        return False
    name = path.name
    return not (name in SKIPPED_NAMES or name.startswith("LICENSE") or path.suffix == ".py")


def _fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and _is_fixture(p))


def _nearest_source_md(path: Path) -> Path | None:
    folder = path.parent
    while True:
        candidate = folder / "SOURCE.md"
        if candidate.is_file():
            return candidate
        if folder == FIXTURES:
            return None
        folder = folder.parent


@cache
def _lines(source_md: Path) -> tuple[str, ...]:
    return tuple(source_md.read_text(encoding="utf-8").splitlines())


def _notes_for(path: Path, source_md: Path) -> list[str]:
    """The note lines for ``path``: `- `<name>`` lines with a kind, a licence and a source."""
    names = {path.relative_to(source_md.parent).as_posix(), path.name}
    starts = tuple(f"- `{name}`" for name in names)
    return [
        line
        for line in _lines(source_md)
        if line.startswith(starts)
        and KIND.search(line)
        and "license:" in line
        and "source:" in line
    ]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_walk_finds_the_fixtures() -> None:
    files = _fixture_files()
    assert len(files) > 100
    assert FIXTURES / "tau-bench" / "tau-bench-airline-task-3-trial-0.json" in files
    assert not any(p.name in SKIPPED_NAMES for p in files)


def test_every_fixture_has_a_one_line_note_with_kind_licence_and_source() -> None:
    missing: list[str] = []
    for path in _fixture_files():
        source_md = _nearest_source_md(path)
        rel = path.relative_to(FIXTURES).as_posix()
        if source_md is None:
            missing.append(f"{rel}: no SOURCE.md in its folder or above it")
        elif not _notes_for(path, source_md):
            where = source_md.relative_to(FIXTURES).as_posix()
            missing.append(
                f"{rel}: no '- `name`: REAL|SYNTHETIC ...; license: ...; source: ...' in {where}"
            )
    assert not missing, "fixture files without a readable source note:\n" + "\n".join(missing)


def test_a_note_that_gives_a_sha256_gives_the_files_current_one() -> None:
    stale: list[str] = []
    for path in _fixture_files():
        source_md = _nearest_source_md(path)
        if source_md is None:
            continue
        for line in _notes_for(path, source_md):
            given = SHA256.findall(line)
            if given and _sha256(path) not in given:
                rel = path.relative_to(FIXTURES).as_posix()
                stale.append(f"{rel}: now {_sha256(path)}, its note gives {', '.join(given)}")
    assert not stale, "fixtures changed without their note:\n" + "\n".join(stale)


def test_a_folder_readme_names_every_fixture_beside_it() -> None:
    """A folder's ``README.md`` (a plain index of what each file is, beside its ``SOURCE.md``)
    names each fixture file in that folder, so the index does not fall behind the files."""
    unnamed: list[str] = []
    for readme in sorted(FIXTURES.glob("*/README.md")):
        if readme.parent.name in SKIPPED_TOP_FOLDERS:
            continue
        text = readme.read_text(encoding="utf-8")
        for path in sorted(readme.parent.iterdir()):
            if path.is_file() and _is_fixture(path) and f"`{path.name}`" not in text:
                unnamed.append(path.relative_to(FIXTURES).as_posix())
    assert not unnamed, "fixtures a README.md beside them does not name:\n" + "\n".join(unnamed)
