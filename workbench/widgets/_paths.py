"""Where the notebook is: relative paths typed in the widget resolve against its folder.

A kernel started by Jupyter Server knows its notebook (``__session__``, from the server's
``JPY_SESSION_NAME``); VS Code sets ``__vsc_ipynb_file__``. The kernel's working directory is the
notebook's folder when it starts, but a cell may change it, and a path typed later must still
mean the same file. Without either, the working directory is the folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["notebook_folder", "resolve"]


def _notebook_file() -> Path | None:
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None) if ipython else None
    shell = get_ipython() if callable(get_ipython) else None
    namespace = getattr(shell, "user_ns", None)
    if not isinstance(namespace, dict):
        return None
    for name in ("__vsc_ipynb_file__", "__session__"):
        value = namespace.get(name)
        if isinstance(value, str) and value.endswith(".ipynb"):
            path = Path(value)
            if path.is_absolute() and path.parent.is_dir():
                return path
    return None


def notebook_folder() -> Path:
    """The folder of the notebook this kernel runs (else the working directory), absolute."""
    found = _notebook_file()
    return found.parent if found is not None else Path(os.getcwd()).resolve()


def resolve(path: str | os.PathLike[str], folder: Path) -> Path:
    """``path`` (``~`` expanded) as an absolute path, a relative one taken from ``folder``."""
    given = Path(os.path.expanduser(os.fspath(path)))
    return given if given.is_absolute() else folder / given
