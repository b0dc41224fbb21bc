"""Every load benchmark's file loads as its format, with the calls it was written with.

``benchmarks/load_formats.py`` writes a SYNTHETIC file of each format and reports the rate it
loads at (docs/performance.md). Its figures mean something only while each file still is
that format: a line whose file stopped loading, or loaded as another format, would report a
rate of nothing. Each is written here small (200 calls) and loaded as the benchmark loads it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

import workbench as wb
from helpers.paths import ROOT


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "load_formats", ROOT / "benchmarks" / "load_formats.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("load_formats", module)
    spec.loader.exec_module(module)
    return module


_BENCH = _benchmark()


@pytest.mark.parametrize("name", list(_BENCH.FORMATS))
def test_each_benchmark_file_loads_as_its_format(tmp_path: Path, name: str) -> None:
    file_name, write = _BENCH.FORMATS[name]
    path = tmp_path / file_name
    write(path, 200)
    result = wb.load_runs(path, strict=False)
    assert result.format == _BENCH._FORMAT_OF.get(name, name)
    assert not result.problems, result.problems[:3]
    assert 190 <= len(result.boundaries) <= 200, len(result.boundaries)
    assert any(b.is_error for b in result.boundaries)
