"""What a load read, as plain values for tests to compare two loads by."""

from __future__ import annotations

from pathlib import Path

from workbench import LoadError, LoadResult, load_runs


def calls_of(path: Path) -> list[tuple[object, ...]]:
    """Each boundary's call, result and failure as loaded (problems set aside)."""
    return [
        (b.call_id, b.tool, b.args, b.response, b.is_error, b.error_code, b.error_message, b.extra)
        for b in load_runs(path, strict=False).boundaries
    ]


def loaded_around_or_refused(path: Path) -> LoadResult | None:
    """R35 for a changed recording: it loads what it can (every problem placed, every boundary
    a table row) or is refused with places; the load, or ``None`` when refused."""
    try:
        result = load_runs(path, strict=False)
    except LoadError as refused:
        assert refused.problems and all(p.where for p in refused.problems)
        return None
    for boundary in result.boundaries:
        boundary.to_row()
    assert all(p.where for p in result.problems)
    return result
