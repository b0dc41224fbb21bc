"""workbench: a Jupyter eval workbench for how AI agents recover from tool failures.

Load recorded runs into tool boundaries, promote them into OpenWOP eval suites with recorded
fixtures, flip ``isError`` on any boundary, replay the suite on a host that serves recorded
failures as failures (OpenWOP RFC 0244/0245), and grade trials with pass@k and pass^k.

    >>> import workbench as wb
    >>> run = wb.load_runs("fixtures/billing-support.openwop.jsonl")
    >>> suite = wb.promote(run).suite
    >>> result = wb.replay(suite, trials=4)
"""

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
from ._schemas import SchemaProblem, validate_event, validate_suite, validate_summary
from ._selftest import SelfTestReport
from ._suite import FileChangedError, Suite, SuiteError
from ._toolresult import ToolResult, error_text

__version__ = "0.1.0"

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
