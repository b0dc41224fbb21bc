"""Typed ways to read a DataFrame's rows in tests.

pandas-stubs types ``DataFrame.itertuples()`` rows as plain tuples, so ``row.count`` would be
``tuple.count``; these read rows as dicts keyed by column, or as tuples of chosen columns.
"""

from __future__ import annotations

from typing import Any

import pandas as pd


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows, in order, each a ``{column: value}`` dict (``pd.NA`` kept as is)."""
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]


def rows(frame: pd.DataFrame, columns: list[str]) -> list[tuple[Any, ...]]:
    """The values of ``columns``, one tuple a row, in order, with ``pd.NA`` read as ``None``."""
    return [
        tuple(None if v is pd.NA else v for v in row)
        for row in frame[columns].itertuples(index=False)
    ]
