"""workbench: a Jupyter eval workbench for how AI agents recover from tool failures.

Load recorded runs into tool boundaries, promote them into OpenWOP eval suites with recorded
fixtures, flip ``isError`` on any boundary, replay the suite on a host that serves recorded
failures as failures (OpenWOP RFC 0244/0245), and grade trials with pass@k and pass^k.

    >>> import workbench as wb
    >>> run = wb.load_runs("fixtures/billing-support.openwop.jsonl")
    >>> suite = wb.promote(run).suite
    >>> result = wb.replay(suite, trials=4)
"""

from typing import TYPE_CHECKING

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
from ._promote import Promotion, promote
from ._redact import Redaction
from ._replay import ReplayResult, TaskResult, TrialResult, replay
from ._selftest import SelfTestReport
from ._suite import FileChangedError, Suite, SuiteError
from ._toolresult import ToolResult, error_text

if TYPE_CHECKING:
    from ._schemas import SchemaProblem, validate_event, validate_suite, validate_summary

__version__ = "0.1.0"

# The schema layer imports jsonschema, whose format checkers take about a second to import; it is
# loaded on first use so that `import workbench` stays fast (sweep worker processes never need it).
_LAZY = {
    "SchemaProblem": "_schemas",
    "validate_event": "_schemas",
    "validate_suite": "_schemas",
    "validate_summary": "_schemas",
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
    "SchemaProblem",
    "ScriptError",
    "ScriptedAgent",
    "SelfTestReport",
    "Suite",
    "SuiteError",
    "TaskContext",
    "TaskFixtures",
    "TaskResult",
    "ToolBoundary",
    "ToolInterface",
    "ToolResult",
    "TrialResult",
    "detect_format",
    "dumps_stable",
    "error_text",
    "golden_match",
    "load_runs",
    "pass_at_k",
    "pass_hat_k",
    "promote",
    "replay",
    "trajectory_match",
    "validate_event",
    "validate_suite",
    "validate_summary",
    "write_json_atomic",
]
