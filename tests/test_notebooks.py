"""The notebooks in notebooks/ run top to bottom on the bundled data, in a fresh kernel.

Plain ``pytest`` runs them: each notebook is executed with nbclient in a new ``python3`` kernel
whose working directory is the notebook's folder, exactly as JupyterLab would start it. They run
in a temporary copy of ``notebooks/`` and ``fixtures/`` so the files a notebook exports never land
in the repository. Committed notebooks carry no outputs and no execution counts.
"""

from __future__ import annotations

import base64
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from helpers.paths import NOTEBOOK_DIR, ROOT

NOTEBOOKS = (
    "01-quickstart.ipynb",
    "02-tau-bench-recovery.ipynb",
    "03-authoring-suites.ipynb",
)
# Each notebook is meant to take well under 30 s; the bound leaves room for a slow CI machine.
CELL_TIMEOUT_S = 120
NOTEBOOK_BUDGET_S = 90.0
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _read(name: str) -> Any:
    return nbformat.read(NOTEBOOK_DIR / name, as_version=4)


def _outputs(nb: Any) -> list[dict[str, Any]]:
    return [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]


def test_notebook_folder_holds_exactly_the_documented_notebooks() -> None:
    """The guide and the README name these three notebooks; no other notebook is shipped."""
    found = sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb"))
    assert found == sorted(NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_committed_without_outputs(name: str) -> None:
    """Committed notebooks are clean: no outputs, no execution counts, a python3 kernelspec."""
    nb = _read(name)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code, f"{name} has no code cells"
    for i, cell in enumerate(code):
        assert cell.get("outputs") == [], f"{name}: code cell {i} has outputs"
        assert cell.get("execution_count") is None, f"{name}: code cell {i} has an execution count"
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"


@pytest.fixture(scope="module")
def notebook_copy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A scratch copy of notebooks/ and fixtures/ in the repository's layout; the kernel imports
    workbench from this checkout whether or not the package is installed."""
    root = tmp_path_factory.mktemp("notebooks")
    shutil.copytree(NOTEBOOK_DIR, root / "notebooks")
    shutil.copytree(ROOT / "fixtures", root / "fixtures")
    with pytest.MonkeyPatch.context() as patch:
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        patch.setenv("PYTHONPATH", path)
        # Keep the kernel's IPython state out of the user's home directory.
        patch.setenv("IPYTHONDIR", str(root / ".ipython"))
        patch.setenv("MPLBACKEND", "agg")
        yield root / "notebooks"


_EXECUTED: dict[tuple[Path, str], tuple[Any, float]] = {}


def _execute(name: str, cwd: Path) -> tuple[Any, float]:
    """Run the notebook once per test module (later tests read the same executed copy)."""
    key = (cwd, name)
    if key not in _EXECUTED:
        nb = nbformat.read(cwd / name, as_version=4)
        client = NotebookClient(
            nb,
            timeout=CELL_TIMEOUT_S,
            kernel_name="python3",
            resources={"metadata": {"path": str(cwd)}},
        )
        start = time.perf_counter()
        client.execute()  # raises CellExecutionError naming the cell on the first error
        _EXECUTED[key] = (nb, time.perf_counter() - start)
    return _EXECUTED[key]


def _text(nb: Any) -> str:
    return "\n".join(
        str(out.get("text", "")) + str(out.get("data", {}).get("text/plain", ""))
        for out in _outputs(nb)
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_top_to_bottom_in_a_fresh_kernel(name: str, notebook_copy: Path) -> None:
    """Every cell runs without an error, from the notebook's own folder, within the budget."""
    nb, seconds = _execute(name, notebook_copy)
    outputs = _outputs(nb)
    errors = [out for out in outputs if out.get("output_type") == "error"]
    assert not errors, f"{name}: error outputs {errors}"
    assert seconds < NOTEBOOK_BUDGET_S, f"{name} took {seconds:.1f} s"
    # Each notebook shows something interactive: the Workbench widget or an offline chart.
    widgets = [out for out in outputs if WIDGET_MIME in out.get("data", {})]
    assert widgets, f"{name}: no widget or chart was displayed"


@pytest.mark.slow
def test_quickstart_shows_the_flipped_boundary_failing_on_replay(notebook_copy: Path) -> None:
    """The quickstart's replay after the flip prints a trajectory with the flipped call marked
    failed (`!`, R17), and the untouched recording still has its recorded failure."""
    nb, _ = _execute("01-quickstart.ipynb", notebook_copy)
    text = _text(nb)
    assert "billing:list-invoices!" in text
    assert "billing:lookup!" in text


@pytest.mark.slow
def test_authoring_notebook_shows_the_refusal_and_reruns_the_export(notebook_copy: Path) -> None:
    """03 shows the 400 validation_error body naming the isError field (R11); the exported
    suites are replayed by the `workbench replay` command: exit 0 passed, 1 failed, 2 refused."""
    nb, _ = _execute("03-authoring-suites.ipynb", notebook_copy)
    text = _text(nb)
    assert "validation_error" in text
    assert "isError" in text
    for code in (0, 1, 2):  # passed, failed, refused by the host profile
        assert f"exit code {code}" in text
    assert list(notebook_copy.glob("**/*summary*.json")), "no summary was written by the rerun"


@pytest.mark.slow
def test_the_refusal_cell_shows_its_own_refusal(notebook_copy: Path) -> None:
    """03's Check host cell prints the refusal it got (R11), not what the live Export tab shows
    after the next cell saved the suite."""
    nb, _ = _execute("03-authoring-suites.ipynb", notebook_copy)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "check_host()" in c.source)
    text = "".join(str(out.get("text", "")) for out in cell.outputs)
    assert "accepted: False" in text
    assert '"error": "validation_error"' in text and "isError" in text
    assert "saved" not in text


@pytest.mark.slow
@pytest.mark.parametrize("name", ["01-quickstart.ipynb", "02-tau-bench-recovery.ipynb"])
def test_each_chart_keeps_a_static_png_in_the_saved_notebook(
    name: str, notebook_copy: Path
) -> None:
    """A chart cell's outputs are a PNG (vl-convert) and then the live offline JupyterChart: a
    notebook opened without a kernel (GitHub, a restart) still shows the picture."""
    nb, _ = _execute(name, notebook_copy)
    charts = [
        c
        for c in nb.cells
        if c.cell_type == "code" and ("_chart(" in c.source or "recovery_matrix(" in c.source)
    ]
    assert charts, f"{name}: no chart cell"
    for cell in charts:
        kinds = [
            "png" if "image/png" in out.get("data", {}) else
            "widget" if WIDGET_MIME in out.get("data", {}) else "other"
            for out in cell.outputs
        ]  # fmt: skip
        assert kinds[-2:] == ["png", "widget"], f"{name}: {cell.source!r} gave {kinds}"
        png = next(o for o in cell.outputs if "image/png" in o.get("data", {}))
        assert base64.b64decode(png["data"]["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_tau_bench_notebook_compares_recovery_with_pass_hat_k(notebook_copy: Path) -> None:
    """02 loads the 20 tau-bench records with the `Error:` rule (R3), reports pass^k for k up to
    the 4 trials (R28) and the sweep's recovery per fault kind (R32)."""
    nb, _ = _execute("02-tau-bench-recovery.ipynb", notebook_copy)
    text = _text(nb)
    assert "20 tasks" in text
    assert "pass^4" in text
    assert "transient" in text and "hard" in text
