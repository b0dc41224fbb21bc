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

from ._common.jsonio import JSONFileError, dumps_stable, write_json_atomic
from ._common.toolresult import ToolResult, error_text
from ._grade.grading import golden_match, pass_at_k, pass_hat_k, trajectory_match
from ._load.loader import detect_format, load_runs
from ._load.records import (
    ErrorRule,
    LoadError,
    LoadProblem,
    LoadResult,
    PromotedRun,
    ToolBoundary,
)
from ._promote.promote import Promotion, promote
from ._promote.redact import Redaction
from ._promote.selftest import SelfTestReport
from ._replay.agents import Agent, Decision, ScriptedAgent, ScriptError, TaskContext, ToolInterface
from ._replay.host import CallRecord, FixtureHost, TaskFixtures
from ._replay.session import ReplayResult, ReplaySession, TaskResult, TrialResult, replay
from ._suite.capabilities import HostProfile, HostRefusal
from ._suite.model import FileChangedError, Suite, SuiteError
from ._sweep.payloads import error_payload
from ._sweep.variants import Fault, Variant, inject, toggle_error

if _TYPE_CHECKING:
    from ._report.charts import branch_chart, divergence_strip, recovery_matrix, save_chart
    from ._report.html import write_report
    from ._suite.schemas import SchemaProblem, validate_event, validate_suite, validate_summary
    from ._sweep.branches import branch_tree
    from ._sweep.run import SweepResult, sweep

__version__ = "0.1.0"

# Modules with heavy imports are loaded on first use, so `import workbench` stays fast (sweep
# worker processes never pay for them): jsonschema's format checkers take about a second, and
# pandas and Altair more.
_LAZY = {
    "SchemaProblem": "_suite.schemas",
    "SweepResult": "_sweep.run",
    "branch_chart": "_report.charts",
    "branch_tree": "_sweep.branches",
    "divergence_strip": "_report.charts",
    "recovery_matrix": "_report.charts",
    "save_chart": "_report.charts",
    "sweep": "_sweep.run",
    "validate_event": "_suite.schemas",
    "validate_suite": "_suite.schemas",
    "validate_summary": "_suite.schemas",
    "write_report": "_report.html",
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
