"""The exit code of a GitHub Copilot CLI shell call, as its session events and its OpenTelemetry
spans say it (``copilot_cli``, ``copilot_history``, ``otel_js``): a command that exited non-zero
is reported a success by the CLI, and is read as a failure (``exit_code:N``, R36)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["SHELL_EXITED", "SHELL_TOOLS", "WrongExit", "exit_code_of"]

_EXIT_BLOCKS = ("terminal", "shell_exit")
SHELL_TOOLS = frozenset(
    {
        "bash",
        "powershell",
        "shell",
        "read_bash",
        "write_bash",
        "read_powershell",
        "write_powershell",
    }
)
"""Copilot's shell tools: a text ending in an exit code is theirs alone."""
SHELL_EXITED = re.compile(r"<(?:exited|shellId: \d+ completed) with exit code (-?\d{1,18})>\s*\Z")
"""How the CLI's shell tool ends its text when a command exited (older versions' only sign)."""


class WrongExit(NamedTuple):
    """An exit code of a type the CLI never writes (R35: a problem, never a success)."""

    field: str
    value: Any


def exit_code_of(
    data: Mapping[str, Any], result: Mapping[str, Any], text: str, shell: bool
) -> int | WrongExit | None:
    """A shell command's exit code: the event's ``shellExecution.exitCode``, else the result's
    ``terminal`` or ``shell_exit`` block's, else, for a shell call, the text's ``<... with exit
    code N>`` ending (another tool's text may end so: a file ``view`` showed). An exit code
    given that is no integer is a :class:`WrongExit` (``null``: none given)."""
    ran = data.get("shellExecution")
    code = ran.get("exitCode") if isinstance(ran, dict) else None
    if type(code) is int:
        return code
    if code is not None:
        return WrongExit("data.shellExecution.exitCode", code)
    blocks = result.get("contents")
    for index, block in enumerate(blocks if isinstance(blocks, list) else ()):
        if isinstance(block, dict) and block.get("type") in _EXIT_BLOCKS:
            code = block.get("exitCode")
            if type(code) is int:
                return code
            if code is not None:
                return WrongExit(f"data.result.contents[{index}].exitCode", code)
    found = SHELL_EXITED.search(text) if text and shell else None
    return int(found.group(1)) if found else None
