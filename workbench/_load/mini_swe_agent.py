"""mini-swe-agent trajectories (``.traj.json``) as promoted runs (SPEC R34-R36).

mini-swe-agent (the SWE-agent team's minimal agent, which SWE-bench's bash-only leaderboard
runs) saves ``{"info", "messages", "trajectory_format": "mini-swe-agent-1.1"}``; version 1
saved the messages alone, as a list. The messages are OpenAI chat messages with an ``extra``
member:

- **Calls.** A tool-calling model's assistant message makes ``tool_calls`` (the ``bash`` tool),
  each answered by a ``tool`` message with its ``tool_call_id`` (with the Responses API, the
  ``Response`` objects and items mini keeps are read as those: ``mini_swe_responses``). A
  text-based model writes one command in a fenced block (```` ```mswea_bash_command ````, or
  ```` ```bash ```` before 2.0), parsed into ``extra.actions``; the ``user`` message after it is its
  output. Such a call is ``bash`` with args ``{"command": ...}`` and the id ``action-<message
  index>``. A reply with no command or with several runs nothing (mini-swe-agent answers with a
  format error): no call. A tool-calling reply mini refuses (a tool it has not: a format error)
  keeps its calls only in the error message's ``extra.response``: each is a call, failed
  (``FormatError``), answered by that message.
- **Failures** (R36): the output's ``extra.returncode`` other than 0, or its
  ``extra.exception_info`` or ``extra.interrupt_type`` (a timeout, a command not run); where
  ``extra`` is not recorded, the ``<returncode>N</returncode>`` the output starts with. An output
  that says neither is judged by the caller's error rule.
- **The end.** The command that submits (its output starts with
  ``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``) is answered by the ``exit`` message, whose content
  is the submission (version 1: a last ``user`` message; with a tool-calling model, mini first
  pads the submitting call's output as "action was not executed", which is not its answer). An
  ``exit`` whose ``exit_status`` is
  not ``Submitted`` (an error the agent raised) fails the call it answers; with no call open
  it only ends the run (``LimitsExceeded``). The run's answer is the submission, its
  ``info`` is kept in metadata, and a message of any other role in ``otherMessages``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .common import is_text_or_parts, json_args, refuse_result
from .conversation import ConversationBuilder
from .messages import message_text
from .mini_swe_responses import as_chat_message
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["load_mini_swe_agent", "sniff_mini_swe_agent"]

_FORMAT = "mini-swe-agent"
_ACTIONS = (
    re.compile(r"```mswea_bash_command\s*\n(.*?)\n```", re.DOTALL),
    re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL),
)
"""The fenced commands of mini-swe-agent's text-based configurations (2.x, then 1.x)."""
_TIMED_OUT = re.compile(
    r"\s*The last command <command>[\s\S]*?</command> timed out and has been killed"
)
"""mini-swe-agent 1.x's answer to a command it killed past its timeout (no return code)."""
_RETURN_CODE = re.compile(r'\s*(?:<returncode>|\{\s*"returncode"\s*:\s*)(-?\d{1,9})')
"""The exit code an output starts with (the default template, and the JSON one of mini.yaml)."""
_HEAD = 40


def sniff_mini_swe_agent(data: Any) -> bool:
    """A trajectory (``trajectory_format: mini-swe-agent-*``), or version 1's list of messages
    (a user message starting with ``<returncode>`` and no tool call)."""
    if isinstance(data, Mapping):
        kind = data.get("trajectory_format")
        return (
            isinstance(kind, str)
            and kind.startswith(_FORMAT)
            and isinstance(data.get("messages"), list)
        )
    if not isinstance(data, list) or not data:
        return False
    head = [m for m in data[:_HEAD] if isinstance(m, dict)]
    if len(head) != len(data[:_HEAD]) or any("tool_calls" in m for m in head):
        return False
    return any(
        m.get("role") == "user"
        and isinstance(m.get("content"), str)
        and m["content"].startswith("<returncode>")
        for m in head
    )


def load_mini_swe_agent(
    data: Any, file: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run from a trajectory (see the module)."""
    messages: list[Any] = data["messages"] if isinstance(data, Mapping) else data
    info = data.get("info") if isinstance(data, Mapping) else None
    reader = _Reader(file, rule)
    for index, message in enumerate(messages):
        reader.read(index, message)
    reader.finish()
    boundaries = reader.pairer.finish()
    metadata: dict[str, Any] = {}
    if isinstance(info, Mapping):
        metadata["info"] = dict(info)
    if isinstance(data, Mapping) and isinstance(data.get("trajectory_format"), str):
        metadata["trajectoryFormat"] = data["trajectory_format"]
    status = info.get("exit_status") if isinstance(info, Mapping) else None
    exit_status = reader.exit or (status if isinstance(status, str) and status else None)
    if exit_status is not None:  # version 1 wrote no exit message: its info says
        metadata["exitStatus"] = exit_status
    if reader.other:
        metadata["otherMessages"] = reader.other
    submission = info.get("submission") if isinstance(info, Mapping) else None
    instance = data.get("instance_id") if isinstance(data, Mapping) else None
    key = instance if isinstance(instance, str) and instance else "trajectory"
    run = PromotedRun(
        run_id=key,
        boundaries=boundaries,
        source=file,
        format="swe-agent",
        error_rule=rule,
        outcome="completed" if exit_status in (None, "Submitted") else "failed",
        answer=submission if isinstance(submission, str) and submission else reader.answer,
        task_key=key,
        metadata=metadata,
        conversation=reader.talk.build(None, _model(info)),
    )
    return [run], reader.pairer.problems


class _Reader:
    """The messages read in order: calls made, outputs paired, the conversation built."""

    __slots__ = (
        "answer",
        "awaiting",
        "commands",
        "deferred",
        "exit",
        "other",
        "pairer",
        "rule",
        "said_in",
        "talk",
    )

    def __init__(self, file: str, rule: ErrorRule) -> None:
        self.pairer = CallPairer(file)
        self.talk = ConversationBuilder()
        self.rule = rule
        self.awaiting: dict[str, None] = {}
        """The calls made and not answered yet, oldest first (a dict: answered in any order in
        constant time; a list's removals made 80,000 answers in reverse order take 80 s)."""
        self.exit: str | None = None
        self.answer: str | None = None
        self.other: list[Any] = []
        self.commands: dict[str, str] = {}
        """Each tool call's command (a submitting one is told by it)."""
        self.said_in = "content"  # where the message read holds its text (Responses: output)
        self.deferred: dict[str, tuple[Mapping[str, Any], str, str]] = {}
        """Submitting calls whose output is the 'not executed' padding: the exit answers them."""

    def read(self, index: int, message: Any) -> None:
        where = f"messages[{index}]"
        if not isinstance(message, Mapping):
            self.pairer.problem(where, "", "a message must be an object")
            return
        self.said_in = "output" if message.get("type") == "function_call_output" else "content"
        if "type" in message or "object" in message:  # the Responses API's (mini_swe_responses)
            message = as_chat_message(message)
        role = message.get("role")
        text = message_text(message.get("content")) or ""
        if role == "system":
            self.talk.system(text)
        elif role == "assistant":
            self._assistant(index, message, text, where)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                self.pairer.problem(where, "tool_call_id", "missing or not a string")
                return
            self._output(call_id, message, text, where, "tool_call_id")
        elif role == "user" and _rejected_calls(message):
            self._rejected(message, text, where)
        elif role == "user" and _rejected_unreadable(message):
            path = "extra.response.choices[0].message.tool_calls"
            self.pairer.problem(where, path, "a refused reply's calls, not a list: not read")
            self.talk.user(text)
        elif role == "user":
            text_call = next(reversed(self.awaiting)) if self.awaiting else None
            if text_call is not None and text_call.startswith("action-"):
                self._output(text_call, message, text, where, "content")  # a command's output
            else:
                self.talk.user(text)
        elif role == "exit":
            self._exit(message, text, where)
        else:
            self.other.append(message)

    def _assistant(self, index: int, message: Mapping[str, Any], text: str, where: str) -> None:
        calls = message.get("tool_calls")
        made: list[dict[str, Any]] = []
        if isinstance(calls, list) and calls:
            for c_index, call in enumerate(calls):
                read = self._tool_call(call, f"{where}, tool call {c_index}")
                if read is not None:
                    made.append(read)
        else:
            commands = _commands(message, text)
            if len(commands) == 1:  # one command runs; none or several is a format error
                call_id = f"action-{index}"
                args = {"command": commands[0]}
                self.pairer.call(call_id, "bash", args, where=where, field_name="content")
                self.awaiting[call_id] = None
                made.append({"id": call_id, "name": "bash", "args": args})
        self.talk.assistant(text or None, made, fresh=True)
        if text and not made:
            self.answer = text

    def _tool_call(self, call: Any, where: str) -> dict[str, Any] | None:
        function = call.get("function") if isinstance(call, Mapping) else None
        call_id = call.get("id") if isinstance(call, Mapping) else None
        if not isinstance(call_id, str) or not call_id:
            self.pairer.problem(where, "id", "missing or not a string")
            return None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            self.pairer.problem(where, "function.name", "missing or not a string")
            return None
        name = function["name"]
        args = json_args(function.get("arguments"))
        self.pairer.call(call_id, name, args, where=where, field_name="id")
        self.awaiting[call_id] = None
        command = args.get("command") if isinstance(args, Mapping) else None
        if isinstance(command, str):
            self.commands[call_id] = command
        return {"id": call_id, "name": name, "args": args}

    def _output(
        self, call_id: str, message: Mapping[str, Any], text: str, where: str, field: str
    ) -> None:
        wrong = _wrong_output(message, self.said_in)
        if wrong is not None:  # R35: neither a success nor a failure
            self.awaiting.pop(call_id, None)
            refuse_result(self.pairer, call_id, where, *wrong)
            return
        if _SUBMIT in self.commands.get(call_id, "") and _not_executed(message):
            # mini pads every action of the reply that submitted, the submitting one too, as
            # "not executed"; it ran, and the exit message (the submission) answers it
            self.deferred[call_id] = (message, text, where)
            return
        failed, code = _failure(message, text, self.rule)
        self.awaiting.pop(call_id, None)
        self._answer(call_id, message, text, where, field, failed, code)

    def _exit(self, message: Mapping[str, Any], text: str, where: str) -> None:
        extra = message.get("extra")
        status = extra.get("exit_status") if isinstance(extra, Mapping) else None
        self.exit = status if isinstance(status, str) else "Submitted"
        if not self.awaiting:
            return  # the run ended between calls (a limit reached)
        submitted = [c for c in self.awaiting if c in self.deferred]
        # it submitted, or raised
        call_id = submitted[-1] if submitted else next(reversed(self.awaiting))
        del self.awaiting[call_id]
        self.deferred.pop(call_id, None)
        failed = self.exit != "Submitted"
        self._answer(call_id, message, text, where, "role", failed, self.exit if failed else None)
        if not failed:
            self.answer = text

    def _rejected(self, message: Mapping[str, Any], text: str, where: str) -> None:
        """A reply mini refused before running it (a format error: a tool it has not, a call
        with no command): its calls, kept only in this message's ``extra.response``, each
        failed with the error the model was told (this message)."""
        made: list[dict[str, Any]] = []
        for c_index, call in enumerate(_rejected_calls(message)):
            read = self._tool_call(call, f"{where}, extra.response tool call {c_index}")
            if read is not None:
                made.append(read)
        self.talk.assistant(None, made, fresh=True)
        for read in made:
            self.awaiting.pop(read["id"], None)
            self._answer(
                read["id"], message, text, where, "extra.interrupt_type", True, "FormatError"
            )

    def finish(self) -> None:
        """Answer a submitting call no exit message answered with its padding, as recorded."""
        for call_id, (message, text, where) in self.deferred.items():
            if call_id in self.awaiting:
                del self.awaiting[call_id]
                failed, code = _failure(message, text, self.rule)
                self._answer(call_id, message, text, where, "tool_call_id", failed, code)
        self.deferred.clear()

    def _answer(
        self,
        call_id: str,
        message: Mapping[str, Any],
        text: str,
        where: str,
        field: str,
        failed: bool,
        code: str | None,
    ) -> None:
        """A call's output: its message's content, in the conversation and as its result."""
        self.talk.tool(call_id, text, failed)
        self.pairer.result(
            call_id,
            message.get("content"),
            failed,
            where=where,
            field_name=field,
            error_code=code,
            error_message=text if failed else None,
        )


def _rejected_calls(message: Mapping[str, Any]) -> list[Any]:
    """The tool calls of the reply a format error refused, kept in its ``extra.response``."""
    extra = message.get("extra")
    if not isinstance(extra, Mapping) or extra.get("interrupt_type") != "FormatError":
        return []
    response = extra.get("response")
    choices = response.get("choices") if isinstance(response, Mapping) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    said = first.get("message") if isinstance(first, Mapping) else None
    calls = said.get("tool_calls") if isinstance(said, Mapping) else None
    return calls if isinstance(calls, list) else []


def _rejected_unreadable(message: Mapping[str, Any]) -> bool:
    """Whether a format error's message keeps the refused reply's calls as something other
    than a list (R35: said, not dropped)."""
    extra = message.get("extra")
    if not isinstance(extra, Mapping) or extra.get("interrupt_type") != "FormatError":
        return False
    response = extra.get("response")
    choices = response.get("choices") if isinstance(response, Mapping) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    said = first.get("message") if isinstance(first, Mapping) else None
    return isinstance(said, Mapping) and said.get("tool_calls") not in (None, [])


_SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
"""What the command that submits prints (mini-swe-agent's default configurations)."""


def _not_executed(message: Mapping[str, Any]) -> bool:
    """Whether an output is mini's padding for an action of a reply that ended the run."""
    extra = message.get("extra")
    info = extra.get("exception_info") if isinstance(extra, Mapping) else None
    return isinstance(info, str) and "not executed" in info


def _commands(message: Mapping[str, Any], text: str) -> list[str]:
    """The commands of a text-based model's reply: ``extra.actions`` where recorded, else the
    fenced blocks of its text (of the first fence kind that has any)."""
    extra = message.get("extra")
    actions = extra.get("actions") if isinstance(extra, Mapping) else None
    if isinstance(actions, list):
        commands = [a.get("command") for a in actions if isinstance(a, Mapping)]
        return [command for command in commands if isinstance(command, str)]
    for pattern in _ACTIONS:
        found = [command.strip() for command in pattern.findall(text)]
        if found:
            return found
    return []


def _wrong_output(message: Mapping[str, Any], said_in: str) -> tuple[str, str] | None:
    """The field and what it should be when an output is of a type mini never writes: its
    text (content parts, from some models), and an integer ``returncode`` (the process's)."""
    if not is_text_or_parts(message.get("content")):
        return said_in, "not text or content parts"
    extra = message.get("extra")
    code = extra.get("returncode") if isinstance(extra, Mapping) else None
    if code is not None and type(code) is not int:
        return "extra.returncode", "not an integer"
    return None


def _failure(message: Mapping[str, Any], text: str, rule: ErrorRule) -> tuple[bool, str | None]:
    """Whether an output says its command failed, and the error code it gives."""
    extra = message.get("extra")
    if isinstance(extra, Mapping):
        code = extra.get("returncode")
        if extra.get("exception_info") or extra.get("interrupt_type"):
            kind = extra.get("interrupt_type")
            return True, kind if isinstance(kind, str) else f"returncode {code}"
        if type(code) is int:
            return code != 0, f"returncode {code}" if code != 0 else None
    found = _RETURN_CODE.match(text)
    if found is not None:
        code = int(found.group(1))
        return code != 0, f"returncode {code}" if code != 0 else None
    if _TIMED_OUT.match(text):
        return True, "timeout"
    return rule.matches(text), None


def _model(info: Any) -> str | None:
    config = info.get("config") if isinstance(info, Mapping) else None
    model = config.get("model") if isinstance(config, Mapping) else None
    name = model.get("model_name") if isinstance(model, Mapping) else None
    return name if isinstance(name, str) else None
