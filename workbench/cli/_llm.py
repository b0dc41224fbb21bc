"""``--agent llm`` for ``workbench replay`` and ``workbench sweep``: the LLM agent (R40, R41).

``--agent llm`` replays each task's recorded conversation with :class:`~workbench.LLMAgent`:
recorded turns while the conversation follows the recording, then the model at
``--model-base-url`` (``--model`` names it; the key comes from ``OPENAI_API_KEY`` or
``ANTHROPIC_API_KEY``, as the official clients read it). Live turns go to the model cache
(``--model-cache``, default ``<input>.model-cache.jsonl`` beside the input), and ``--offline``
answers from that cache only. With no ``--model``, a trial that leaves the recording ends
``needs-model``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import fail

if TYPE_CHECKING:
    from workbench import ChatClient, TrialResult

__all__ = ["add_agent_arguments", "agent_from_args", "default_cache_path", "model_turns_line"]

_APIS = ("openai", "anthropic", "llama-cpp-server")


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--agent`` choice and the LLM agent's options."""
    group = parser.add_argument_group("agent (R25, R40, R41)")
    group.add_argument(
        "--agent",
        choices=("scripted", "llm"),
        default="scripted",
        help="scripted (default: the task's script) or llm (re-drive the recorded conversation)",
    )
    group.add_argument("--model", default=None, metavar="NAME", help="the model --agent llm asks")
    group.add_argument(
        "--model-base-url",
        default=None,
        metavar="URL",
        help="an OpenAI-compatible (or Anthropic) API base URL (default: the API's own)",
    )
    group.add_argument(
        "--model-api",
        choices=_APIS,
        default="openai",
        help="openai (chat completions, default), anthropic (messages) or llama-cpp-server "
        "(llama-cpp-python's server: JSON tool mode, prompt cache reset per request)",
    )
    group.add_argument(
        "--model-cache",
        default=None,
        metavar="FILE.jsonl",
        help="the model cache (default: <input>.model-cache.jsonl beside the input)",
    )
    group.add_argument(
        "--offline", action="store_true", help="answer from the model cache only (no live call)"
    )
    group.add_argument(
        "--temperature",
        type=_temperature,
        default=None,
        metavar="T",
        help="sampling temperature sent to the model (0 to 2)",
    )
    group.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        metavar="N",
        help="reply token limit sent to the model",
    )


def _temperature(text: str) -> float:
    """An argparse type: a finite number from 0 to 2 (what the chat APIs accept)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 2.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 2")
    return value


def default_cache_path(source: str) -> Path:
    """``suite.json`` -> ``suite.model-cache.jsonl``, beside it."""
    path = Path(source)
    return path.with_name(path.name.split(".")[0] + ".model-cache.jsonl")


def agent_from_args(args: argparse.Namespace, source: str) -> Any:
    """The agent the options ask for (``None``: the scripted agent), or an exit code.

    The LLM agent's modules (and its clients' libraries) are imported only when asked for, so
    a scripted replay or sweep starts without them."""
    if args.agent != "llm":
        for flag, value in (("--model", args.model), ("--model-base-url", args.model_base_url)):
            if value is not None:
                return fail(f"{flag} needs --agent llm")
        return None
    from workbench import AnthropicClient, JSONFileError, LLMAgent, ModelCache, OpenAIChatClient

    if args.model_base_url is not None and args.model is None:
        return fail("--model-base-url needs --model (the model to ask)")
    client: ChatClient | None = None
    if args.model is not None:
        if args.model_api == "anthropic":
            client = AnthropicClient.connect(args.model, base_url=args.model_base_url)
        elif args.model_api == "llama-cpp-server":
            if args.model_base_url is None:
                return fail("--model-api llama-cpp-server needs --model-base-url")
            client = OpenAIChatClient.for_llama_cpp_server(args.model_base_url, args.model)
        else:
            client = OpenAIChatClient.connect(args.model, base_url=args.model_base_url)
    params: dict[str, Any] = {}
    if args.temperature is not None:
        params["temperature"] = args.temperature
    if args.max_tokens is not None:
        if args.max_tokens < 1:
            return fail(f"--max-tokens must be at least 1, not {args.max_tokens}")
        params["max_tokens"] = args.max_tokens
    cache_path = args.model_cache or os.fspath(default_cache_path(source))
    if os.path.exists(cache_path) and not os.path.isfile(cache_path):
        # the cache is appended to: a FIFO would block the writes, a device swallow them
        return fail(f"{cache_path}: the model cache must be a file (it is read and appended to)")
    try:
        cache = ModelCache(cache_path)
    except JSONFileError as exc:
        return fail(str(exc))
    return LLMAgent(client, cache=cache, offline=args.offline, params=params)


def model_turns_line(trials: list[TrialResult]) -> str | None:
    """Where an LLM agent's turns came from over a run's trials (``None`` for other agents)."""
    counted = [t.model_turns for t in trials if t.model_turns is not None]
    if not counted:
        return None
    recording = sum(m.recording for m in counted)
    cached = sum(m.cache for m in counted)
    live = sum(m.live for m in counted)
    needs = sum(t.needs_model for t in trials)
    return (
        f"model turns: {recording} from the recording, {cached} from the cache, {live} live; "
        f"{needs} trial(s) needs-model (counted, left out of scores)"
    )
