"""``wb.serve_host`` from a notebook: in a fresh Jupyter kernel it starts the host in the
background and shows the URL and the key; a client in another process (a colleague's) runs the
suite the notebook holds, an edit made in the notebook afterwards is what the next run runs,
and ``stop()`` ends it without touching the kernel (SPEC R43).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from openwop_client import CreateRunRequest, OpenwopClient, WopError

from helpers.openwop_host import BILLING_LOG, ROOT

BILLING = "suite://local.workbench.evals.billing-support"
CELLS = [
    # 0: the author's notebook: the widget on the recording, served.
    "import workbench as wb\n"
    "from workbench.widgets import Workbench\n"
    f"w = Workbench({str(BILLING_LOG)!r})\n"
    "served = wb.serve_host(w)\n"
    "served.url, served.api_key",
    # 1: the author flips the recorded failure into a success, after the host started.
    "task = w.suite.tasks[0]['taskId']\n"
    "errors = [i for i, e in enumerate(w.suite.tasks[0]['fixtures']['toolResponses'])"
    " if e.get('isError')]\n"
    "w.edit(wb.toggle_error(w.suite, task, errors[0]))\n"
    "errors[0]",
    # 2: the author stops serving; the kernel goes on.
    "served.stop()\nserved.running, 1 + 1",
]


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[tuple[NotebookClient, Any]]:
    """A fresh python3 kernel (importing this checkout) with the notebook above."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    with pytest.MonkeyPatch.context() as patch:
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        patch.setenv("PYTHONPATH", path)
        patch.setenv("IPYTHONDIR", str(tmp_path / ".ipython"))
        client = NotebookClient(
            nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
        )
        with client.setup_kernel():
            yield client, nb


def _run(client: NotebookClient, nb: Any, index: int) -> Any:
    """Run cell ``index``; its value (the ``text/plain`` of its result) as a Python literal."""
    cell = nb.cells[index]
    client.execute_cell(cell, index)  # raises CellExecutionError on an error in the cell
    results = [o for o in cell.outputs if o.get("output_type") == "execute_result"]
    assert results, cell.outputs
    return ast.literal_eval(results[-1]["data"]["text/plain"])


def _tool_results(client: OpenwopClient, run_id: str) -> list[dict[str, Any]]:
    return [e.payload for e in client.runs_events(run_id) if e.type == "agent.tool-returned"]


@pytest.mark.slow
def test_serve_host_in_a_kernel_gives_a_url_and_key_a_colleague_can_use(
    kernel: tuple[NotebookClient, Any],
) -> None:
    client, nb = kernel
    url, key = _run(client, nb, 0)
    assert url.startswith("http://127.0.0.1:") and key.startswith("wbk_")
    # A colleague's client, in this process, not the kernel's.
    colleague = OpenwopClient(url, key, timeout=30)
    assert colleague.discovery_capabilities().protocolVersions == ["2.0"]
    body = CreateRunRequest(mode="eval", evalSuiteRef=BILLING, agentId="scripted")
    before = colleague.runs_create(body).runId
    flipped = _run(client, nb, 1)
    after = colleague.runs_create(body).runId
    assert "error" in _tool_results(colleague, before)[flipped]
    assert "outcome" in _tool_results(colleague, after)[flipped]  # the edit reached the URL
    running, two = _run(client, nb, 2)
    assert running is False and two == 2  # stopped, and the kernel still answers
    with pytest.raises(WopError) as gone:
        colleague.discovery_capabilities()
    assert gone.value.status == 0  # no answer: nothing listens there any more
