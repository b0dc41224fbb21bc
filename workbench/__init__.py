"""workbench: a Jupyter eval workbench for how AI agents recover from tool failures.

Load recorded runs into tool boundaries, promote them into OpenWOP eval suites with recorded
fixtures, flip ``isError`` on any boundary, replay the suite on a host that serves recorded
failures as failures (OpenWOP RFC 0244/0245), grade trials with pass@k and pass^k, sweep faults
and chart how trajectories branch.

    >>> import workbench as wb
    >>> runs = wb.load_runs("fixtures/billing-support.openwop.jsonl")
    >>> suite = wb.promote(runs).suite
    >>> result = wb.replay(suite, trials=4)
    >>> swept = wb.sweep(suite, faults="single", kinds=("hard", "transient"))
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._agents import Agent, Decision, ScriptedAgent, ScriptError, TaskContext, ToolInterface
from ._boundary import (
    ErrorRule,
    LoadError,
    LoadProblem,
    LoadResult,
    PromotedRun,
    ToolBoundary,
)
from ._capabilities import HostProfile, HostRefusal
from ._formats import detect_format, load_runs
from ._grading import golden_match, pass_at_k, pass_hat_k, trajectory_match
from ._host import CallRecord, FixtureHost, TaskFixtures
from ._jsonio import JSONFileError, dumps_stable, write_json_atomic
from ._payloads import error_payload
from ._promote import Promotion, promote
from ._redact import Redaction
from ._replay import ReplayResult, ReplaySession, TaskResult, TrialResult, replay
from ._selftest import SelfTestReport
from ._suite import FileChangedError, Suite, SuiteError
from ._toolresult import ToolResult, error_text
from ._variants import Fault, Variant, inject, toggle_error

if _TYPE_CHECKING:
    from ._branches import branch_tree
    from ._charts import branch_chart, divergence_strip, recovery_matrix, save_chart
    from ._report import write_report
    from ._schemas import SchemaProblem, validate_event, validate_suite, validate_summary
    from ._sweep import SweepResult, sweep

__version__ = "0.1.0"

# Modules with heavy imports are loaded on first use, so `import workbench` stays fast (sweep
# worker processes never pay for them): jsonschema's format checkers take about a second, and
# pandas and Altair more.
_LAZY = {
    "SchemaProblem": "_schemas",
    "SweepResult": "_sweep",
    "branch_chart": "_charts",
    "branch_tree": "_branches",
    "divergence_strip": "_charts",
    "recovery_matrix": "_charts",
    "save_chart": "_charts",
    "sweep": "_sweep",
    "validate_event": "_schemas",
    "validate_suite": "_schemas",
    "validate_summary": "_schemas",
    "write_report": "_report",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"workbench.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Agent",
    "CallRecord",
    "Decision",
    "ErrorRule",
    "Fault",
    "FileChangedError",
    "FixtureHost",
    "HostProfile",
    "HostRefusal",
    "JSONFileError",
    "LoadError",
    "LoadProblem",
    "LoadResult",
    "PromotedRun",
    "Promotion",
    "Redaction",
    "ReplayResult",
    "ReplaySession",
    "SchemaProblem",
    "ScriptError",
    "ScriptedAgent",
    "SelfTestReport",
    "Suite",
    "SuiteError",
    "SweepResult",
    "TaskContext",
    "TaskFixtures",
    "TaskResult",
    "ToolBoundary",
    "ToolInterface",
    "ToolResult",
    "TrialResult",
    "Variant",
    "branch_chart",
    "branch_tree",
    "detect_format",
    "divergence_strip",
    "dumps_stable",
    "error_payload",
    "error_text",
    "golden_match",
    "inject",
    "load_runs",
    "pass_at_k",
    "pass_hat_k",
    "promote",
    "recovery_matrix",
    "replay",
    "save_chart",
    "sweep",
    "toggle_error",
    "trajectory_match",
    "validate_event",
    "validate_suite",
    "validate_summary",
    "write_json_atomic",
    "write_report",
]
