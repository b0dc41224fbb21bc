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

Longer than 400 lines: the export table and the type checkers' copy of it (generated from it,
and checked against it by tests/test_public_api.py) name every public object twice.

This module only re-exports: every name lives in one private room (``_load``, ``_suite``,
``_replay``, ``_grade``, ``_promote``, ``_sweep``, ``_report``, on the shared ``_common``) and is
imported on first use, so ``import workbench`` costs almost nothing and a command pays only for
what it uses. Every exported object reports ``workbench`` as its module, as httpx's do.
"""

import contextlib as _contextlib
import importlib as _importlib
import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

__version__ = "0.1.0"

# name -> the private module that defines it. The one list of public names: `__all__` is made
# from it, `__getattr__` imports from it, and tests/test_public_api.py checks it against the
# TYPE_CHECKING imports below (which are for type checkers only).
_EXPORTS: dict[str, str] = {
    # shared vocabularies and records (_common)
    "ALIGN_OPS": "_common.vocab",
    "ARGS_MATCH_MODES": "_common.vocab",
    "BASELINE": "_common.vocab",
    "ERROR_CODES": "_common.vocab",
    "FAULT_KINDS": "_common.vocab",
    "MODEL_TURN_SOURCES": "_common.vocab",
    "NEEDS_MODEL": "_common.vocab",
    "SILENT_FAULT_KINDS": "_common.vocab",
    "OUTCOMES": "_common.vocab",
    "RUN_FORMATS": "_common.vocab",
    "AlignOp": "_common.vocab",
    "ArgsMatch": "_common.vocab",
    "ErrorCode": "_common.vocab",
    "FaultKind": "_common.vocab",
    "GoldenStrategy": "_common.vocab",
    "ModelTurnSource": "_common.vocab",
    "OnMiss": "_common.vocab",
    "Outcome": "_common.vocab",
    "RunFormat": "_common.vocab",
    "ServedBy": "_common.vocab",
    "TrajectoryMatch": "_common.vocab",
    "JSONFileError": "_common.jsonio",
    "dumps_stable": "_common.jsonio",
    "read_json": "_common.jsonio",
    "write_json_atomic": "_common.jsonio",
    "OutputError": "_common.outputs",
    "OutputKind": "_common.outputs",
    "check_output": "_common.outputs",
    "check_distinct_outputs": "_common.outputs",
    "ToolResult": "_common.toolresult",
    "error_text": "_common.toolresult",
    "result_preview": "_common.toolresult",
    "AlignedStep": "_common.step",
    "Step": "_common.step",
    "align_trajectories": "_common.step",
    "args_text": "_common.step",
    "divergence": "_common.step",
    "trajectory_string": "_common.step",
    # reading recorded runs (_load)
    "FormatChoice": "_load.loader",
    "detect_format": "_load.loader",
    "load_runs": "_load.loader",
    "Conversation": "_load.records",
    "ErrorRule": "_load.records",
    "LoadError": "_load.records",
    "LoadProblem": "_load.records",
    "LoadResult": "_load.records",
    "PromotedRun": "_load.records",
    "ToolBoundary": "_load.records",
    # the suite (_suite)
    "FileChangedError": "_suite.model",
    "Suite": "_suite.model",
    "SuiteError": "_suite.model",
    "TaskView": "_suite.model",
    "HostProfile": "_suite.capabilities",
    "HostRefusal": "_suite.capabilities",
    "check_suite": "_suite.capabilities",
    "SuiteProblem": "_suite.capabilities",
    "ProblemKind": "_suite.capabilities",
    "suite_problems": "_suite.capabilities",
    "SchemaProblem": "_suite.schemas",
    "validate_event": "_suite.schemas",
    "validate_suite": "_suite.schemas",
    "validate_summary": "_suite.schemas",
    "without_extension_members": "_suite.schemas",
    # replay (_replay)
    "Agent": "_replay.agents",
    "Decision": "_replay.agents",
    "ModelTurns": "_replay.agents",
    "TaskContext": "_replay.agents",
    "ToolInterface": "_replay.agents",
    "Abort": "_replay.policies",
    "Choose": "_replay.policies",
    "Escalate": "_replay.policies",
    "Fallback": "_replay.policies",
    "Policy": "_replay.policies",
    "Retry": "_replay.policies",
    "Script": "_replay.policies",
    "ScriptError": "_replay.policies",
    "ScriptStep": "_replay.policies",
    "Skip": "_replay.policies",
    "ToolCall": "_replay.policies",
    "ScriptedAgent": "_replay.scripted",
    "TaskFixtures": "_replay.fixtures",
    "CallRecord": "_replay.host",
    "FixtureHost": "_replay.host",
    "LiveTool": "_replay.options",
    "ReplayOptions": "_replay.options",
    "ReplayOverrides": "_replay.options",
    "EventLog": "_replay.events",
    "ReplayResult": "_replay.results",
    "TaskResult": "_replay.results",
    "TrialResult": "_replay.results",
    "ReplaySession": "_replay.session",
    "replay": "_replay.session",
    "preflight": "_replay.preflight",
    # agents that decide (_replay): the LLM agent, chat clients, the model cache, frameworks
    "LLMAgent": "_replay.llm",
    "ChatClient": "_replay.chat",
    "ChatRequest": "_replay.chat",
    "ModelCache": "_replay.model_cache",
    "OpenAIChatClient": "_replay.chat_clients",
    "ToolMode": "_replay.chat_clients",
    "AnthropicClient": "_replay.anthropic_client",
    "LlamaCppClient": "_replay.local_model",
    "PydanticAIAgent": "_replay.frameworks.pydantic_ai",
    "OpenAIAgentsAgent": "_replay.frameworks.openai_agents",
    "LangGraphAgent": "_replay.frameworks.langgraph",
    # grading (_grade)
    "golden_match": "_grade.golden",
    "trajectory_match": "_grade.trajectory",
    "TrialStats": "_grade.trials",
    "pass_at_k": "_grade.trials",
    "pass_hat_k": "_grade.trials",
    "RecoveryFigure": "_grade.recovery",
    "wilson_interval": "_grade.recovery",
    # promotion (_promote)
    "Promotion": "_promote.promote",
    "promote": "_promote.promote",
    "Redaction": "_promote.redact",
    "SelfTestMismatch": "_promote.selftest",
    "SelfTestReport": "_promote.selftest",
    # variants and sweeps (_sweep)
    "PAYLOAD_PRESETS": "_sweep.payloads",
    "PayloadPreset": "_sweep.payloads",
    "error_payload": "_sweep.payloads",
    "Fault": "_sweep.variants",
    "Variant": "_sweep.variants",
    "apply_faults": "_sweep.edits",
    "inject": "_sweep.variants",
    "pair_variants": "_sweep.variants",
    "single_fault_variants": "_sweep.variants",
    "tool_variants": "_sweep.variants",
    "toggle_error": "_sweep.edits",
    "FaultOptions": "_sweep.plan",
    "SweepPlan": "_sweep.plan",
    "FRAME_COLUMNS": "_sweep.result",
    "RECOVERY_COLUMNS": "_sweep.result",
    "csv_safe": "_sweep.tables",
    "safe_text": "_common.text",
    "SweepResult": "_sweep.result",
    "sweep": "_sweep.run",
    "sweep_source": "_sweep.run",
    "SweepData": "_sweep.branches",
    "branch_tree": "_sweep.branches",
    # charts and reports (_report)
    "BRANCH_SELECTION": "_report.charts",
    "branch_chart": "_report.charts",
    "divergence_strip": "_report.charts",
    "recovery_matrix": "_report.charts",
    "save_chart": "_report.charts",
    "write_report": "_report.html",
    # the OpenWOP host for notebooks (server; Starlette and uvicorn load when a host starts)
    "ServedHost": "server._notebook",
    "serve_host": "server._notebook",
}

__all__ = sorted(_EXPORTS)


def _claim(value: object) -> None:
    """Make a class or function report ``workbench`` as its module (as httpx does)."""
    if isinstance(value, type) or (callable(value) and hasattr(value, "__code__")):
        module = getattr(value, "__module__", "")
        if isinstance(module, str) and module.startswith(("workbench._", "workbench.server._")):
            # A builtin or slot-less object refuses: leave it as it is.
            with _contextlib.suppress(AttributeError, TypeError):
                value.__module__ = "workbench"


def __getattr__(name: str) -> _Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"workbench.{module}"), name)
    globals()[name] = value
    # Claim every public name of every room loaded so far, so an object reached through the
    # library (a result's class) reports `workbench` whether or not it was looked up here.
    for other, where in _EXPORTS.items():
        loaded = _sys.modules.get(f"workbench.{where}")
        if loaded is not None and other not in globals():
            found = getattr(loaded, other)
            _claim(found)
            globals()[other] = found
    _claim(value)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if _TYPE_CHECKING:
    from ._common.jsonio import (
        JSONFileError as JSONFileError,
    )
    from ._common.jsonio import (
        dumps_stable as dumps_stable,
    )
    from ._common.jsonio import (
        read_json as read_json,
    )
    from ._common.jsonio import (
        write_json_atomic as write_json_atomic,
    )
    from ._common.outputs import (
        OutputError as OutputError,
    )
    from ._common.outputs import (
        OutputKind as OutputKind,
    )
    from ._common.outputs import (
        check_distinct_outputs as check_distinct_outputs,
    )
    from ._common.outputs import (
        check_output as check_output,
    )
    from ._common.step import (
        AlignedStep as AlignedStep,
    )
    from ._common.step import (
        Step as Step,
    )
    from ._common.step import (
        align_trajectories as align_trajectories,
    )
    from ._common.step import (
        args_text as args_text,
    )
    from ._common.step import (
        divergence as divergence,
    )
    from ._common.step import (
        trajectory_string as trajectory_string,
    )
    from ._common.text import (
        safe_text as safe_text,
    )
    from ._common.toolresult import (
        ToolResult as ToolResult,
    )
    from ._common.toolresult import (
        error_text as error_text,
    )
    from ._common.toolresult import (
        result_preview as result_preview,
    )
    from ._common.vocab import (
        ALIGN_OPS as ALIGN_OPS,
    )
    from ._common.vocab import (
        ARGS_MATCH_MODES as ARGS_MATCH_MODES,
    )
    from ._common.vocab import (
        BASELINE as BASELINE,
    )
    from ._common.vocab import (
        ERROR_CODES as ERROR_CODES,
    )
    from ._common.vocab import (
        FAULT_KINDS as FAULT_KINDS,
    )
    from ._common.vocab import (
        MODEL_TURN_SOURCES as MODEL_TURN_SOURCES,
    )
    from ._common.vocab import (
        NEEDS_MODEL as NEEDS_MODEL,
    )
    from ._common.vocab import (
        OUTCOMES as OUTCOMES,
    )
    from ._common.vocab import (
        RUN_FORMATS as RUN_FORMATS,
    )
    from ._common.vocab import (
        SILENT_FAULT_KINDS as SILENT_FAULT_KINDS,
    )
    from ._common.vocab import (
        AlignOp as AlignOp,
    )
    from ._common.vocab import (
        ArgsMatch as ArgsMatch,
    )
    from ._common.vocab import (
        ErrorCode as ErrorCode,
    )
    from ._common.vocab import (
        FaultKind as FaultKind,
    )
    from ._common.vocab import (
        GoldenStrategy as GoldenStrategy,
    )
    from ._common.vocab import (
        ModelTurnSource as ModelTurnSource,
    )
    from ._common.vocab import (
        OnMiss as OnMiss,
    )
    from ._common.vocab import (
        Outcome as Outcome,
    )
    from ._common.vocab import (
        RunFormat as RunFormat,
    )
    from ._common.vocab import (
        ServedBy as ServedBy,
    )
    from ._common.vocab import (
        TrajectoryMatch as TrajectoryMatch,
    )
    from ._grade.golden import (
        golden_match as golden_match,
    )
    from ._grade.recovery import (
        RecoveryFigure as RecoveryFigure,
    )
    from ._grade.recovery import (
        wilson_interval as wilson_interval,
    )
    from ._grade.trajectory import (
        trajectory_match as trajectory_match,
    )
    from ._grade.trials import (
        TrialStats as TrialStats,
    )
    from ._grade.trials import (
        pass_at_k as pass_at_k,
    )
    from ._grade.trials import (
        pass_hat_k as pass_hat_k,
    )
    from ._load.loader import (
        FormatChoice as FormatChoice,
    )
    from ._load.loader import (
        detect_format as detect_format,
    )
    from ._load.loader import (
        load_runs as load_runs,
    )
    from ._load.records import (
        Conversation as Conversation,
    )
    from ._load.records import (
        ErrorRule as ErrorRule,
    )
    from ._load.records import (
        LoadError as LoadError,
    )
    from ._load.records import (
        LoadProblem as LoadProblem,
    )
    from ._load.records import (
        LoadResult as LoadResult,
    )
    from ._load.records import (
        PromotedRun as PromotedRun,
    )
    from ._load.records import (
        ToolBoundary as ToolBoundary,
    )
    from ._promote.promote import (
        Promotion as Promotion,
    )
    from ._promote.promote import (
        promote as promote,
    )
    from ._promote.redact import (
        Redaction as Redaction,
    )
    from ._promote.selftest import (
        SelfTestMismatch as SelfTestMismatch,
    )
    from ._promote.selftest import (
        SelfTestReport as SelfTestReport,
    )
    from ._replay.agents import (
        Agent as Agent,
    )
    from ._replay.agents import (
        Decision as Decision,
    )
    from ._replay.agents import (
        ModelTurns as ModelTurns,
    )
    from ._replay.agents import (
        TaskContext as TaskContext,
    )
    from ._replay.agents import (
        ToolInterface as ToolInterface,
    )
    from ._replay.anthropic_client import (
        AnthropicClient as AnthropicClient,
    )
    from ._replay.chat import (
        ChatClient as ChatClient,
    )
    from ._replay.chat import (
        ChatRequest as ChatRequest,
    )
    from ._replay.chat_clients import (
        OpenAIChatClient as OpenAIChatClient,
    )
    from ._replay.chat_clients import (
        ToolMode as ToolMode,
    )
    from ._replay.events import (
        EventLog as EventLog,
    )
    from ._replay.fixtures import (
        TaskFixtures as TaskFixtures,
    )
    from ._replay.frameworks.langgraph import (
        LangGraphAgent as LangGraphAgent,
    )
    from ._replay.frameworks.openai_agents import (
        OpenAIAgentsAgent as OpenAIAgentsAgent,
    )
    from ._replay.frameworks.pydantic_ai import (
        PydanticAIAgent as PydanticAIAgent,
    )
    from ._replay.host import (
        CallRecord as CallRecord,
    )
    from ._replay.host import (
        FixtureHost as FixtureHost,
    )
    from ._replay.llm import (
        LLMAgent as LLMAgent,
    )
    from ._replay.local_model import (
        LlamaCppClient as LlamaCppClient,
    )
    from ._replay.model_cache import (
        ModelCache as ModelCache,
    )
    from ._replay.options import (
        LiveTool as LiveTool,
    )
    from ._replay.options import (
        ReplayOptions as ReplayOptions,
    )
    from ._replay.options import (
        ReplayOverrides as ReplayOverrides,
    )
    from ._replay.policies import (
        Abort as Abort,
    )
    from ._replay.policies import (
        Choose as Choose,
    )
    from ._replay.policies import (
        Escalate as Escalate,
    )
    from ._replay.policies import (
        Fallback as Fallback,
    )
    from ._replay.policies import (
        Policy as Policy,
    )
    from ._replay.policies import (
        Retry as Retry,
    )
    from ._replay.policies import (
        Script as Script,
    )
    from ._replay.policies import (
        ScriptError as ScriptError,
    )
    from ._replay.policies import (
        ScriptStep as ScriptStep,
    )
    from ._replay.policies import (
        Skip as Skip,
    )
    from ._replay.policies import (
        ToolCall as ToolCall,
    )
    from ._replay.preflight import (
        preflight as preflight,
    )
    from ._replay.results import (
        ReplayResult as ReplayResult,
    )
    from ._replay.results import (
        TaskResult as TaskResult,
    )
    from ._replay.results import (
        TrialResult as TrialResult,
    )
    from ._replay.scripted import (
        ScriptedAgent as ScriptedAgent,
    )
    from ._replay.session import (
        ReplaySession as ReplaySession,
    )
    from ._replay.session import (
        replay as replay,
    )
    from ._report.charts import (
        BRANCH_SELECTION as BRANCH_SELECTION,
    )
    from ._report.charts import (
        branch_chart as branch_chart,
    )
    from ._report.charts import (
        divergence_strip as divergence_strip,
    )
    from ._report.charts import (
        recovery_matrix as recovery_matrix,
    )
    from ._report.charts import (
        save_chart as save_chart,
    )
    from ._report.html import (
        write_report as write_report,
    )
    from ._suite.capabilities import (
        HostProfile as HostProfile,
    )
    from ._suite.capabilities import (
        HostRefusal as HostRefusal,
    )
    from ._suite.capabilities import (
        ProblemKind as ProblemKind,
    )
    from ._suite.capabilities import (
        SuiteProblem as SuiteProblem,
    )
    from ._suite.capabilities import (
        check_suite as check_suite,
    )
    from ._suite.capabilities import (
        suite_problems as suite_problems,
    )
    from ._suite.model import (
        FileChangedError as FileChangedError,
    )
    from ._suite.model import (
        Suite as Suite,
    )
    from ._suite.model import (
        SuiteError as SuiteError,
    )
    from ._suite.model import (
        TaskView as TaskView,
    )
    from ._suite.schemas import (
        SchemaProblem as SchemaProblem,
    )
    from ._suite.schemas import (
        validate_event as validate_event,
    )
    from ._suite.schemas import (
        validate_suite as validate_suite,
    )
    from ._suite.schemas import (
        validate_summary as validate_summary,
    )
    from ._suite.schemas import (
        without_extension_members as without_extension_members,
    )
    from ._sweep.branches import (
        SweepData as SweepData,
    )
    from ._sweep.branches import (
        branch_tree as branch_tree,
    )
    from ._sweep.edits import (
        apply_faults as apply_faults,
    )
    from ._sweep.edits import (
        toggle_error as toggle_error,
    )
    from ._sweep.payloads import (
        PAYLOAD_PRESETS as PAYLOAD_PRESETS,
    )
    from ._sweep.payloads import (
        PayloadPreset as PayloadPreset,
    )
    from ._sweep.payloads import (
        error_payload as error_payload,
    )
    from ._sweep.plan import (
        FaultOptions as FaultOptions,
    )
    from ._sweep.plan import (
        SweepPlan as SweepPlan,
    )
    from ._sweep.result import (
        FRAME_COLUMNS as FRAME_COLUMNS,
    )
    from ._sweep.result import (
        RECOVERY_COLUMNS as RECOVERY_COLUMNS,
    )
    from ._sweep.result import (
        SweepResult as SweepResult,
    )
    from ._sweep.run import (
        sweep as sweep,
    )
    from ._sweep.run import (
        sweep_source as sweep_source,
    )
    from ._sweep.tables import (
        csv_safe as csv_safe,
    )
    from ._sweep.variants import (
        Fault as Fault,
    )
    from ._sweep.variants import (
        Variant as Variant,
    )
    from ._sweep.variants import (
        inject as inject,
    )
    from ._sweep.variants import (
        pair_variants as pair_variants,
    )
    from ._sweep.variants import (
        single_fault_variants as single_fault_variants,
    )
    from ._sweep.variants import (
        tool_variants as tool_variants,
    )
    from .server._notebook import (
        ServedHost as ServedHost,
    )
    from .server._notebook import (
        serve_host as serve_host,
    )
