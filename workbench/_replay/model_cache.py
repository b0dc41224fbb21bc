"""The model cache: every live model turn, keyed by its request, in a JSONL file (SPEC R41).

A rerun that finds every request in the cache makes no live call and, because a cached turn is
exactly the turn the model gave, writes byte-identical events (R22). The file travels with the
suite (``suite.json`` beside ``suite.model-cache.jsonl``), so a shared notebook reruns for free.

One line per turn, stable compact JSON with sorted keys::

    {"key": "<sha256>", "request": {client, model, messages, tools, params, seed, taskId, trial},
     "turn": {"role": "assistant", "content": ..., "toolCalls": [...]}}

``key`` is :attr:`ChatRequest.key <workbench._replay.chat.ChatRequest.key>`, the SHA-256 of the
request's canonical JSON; loading checks it, so a hand-edited request is refused rather than
served for a request it no longer is. A put appends its line in one write under an exclusive
lock (on the cache's folder) and syncs it, so sweep workers in several processes share one
cache; a key stored twice (two workers, one request) is read once, the first line winning.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .._common.jsonio import JSONFileError, read_input_bytes
from .chat import ChatRequest, check_turn

__all__ = ["ModelCache"]

_HEX = frozenset("0123456789abcdef")


def _line(key: str, request: Mapping[str, Any], turn: Mapping[str, Any]) -> str:
    entry = {"key": key, "request": request, "turn": turn}
    return json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class ModelCache:
    """Live model turns by request key; in memory, or backed by a JSONL file (R41).

    ``ModelCache("suite.model-cache.jsonl")`` reads the file when it exists (a missing file is
    an empty cache, created on the first :meth:`put`); ``ModelCache()`` keeps turns in memory.

    Raises:
        JSONFileError: a line of the file is not a valid entry (named by line).
    """

    __slots__ = ("_entries", "path")

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path: Path | None = Path(path) if path is not None else None
        """The file, or ``None`` for a cache in memory."""
        self._entries: dict[str, dict[str, Any]] = {}
        if self.path is not None and self.path.exists():
            self._read(self.path)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "entries": self._entries}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path = state["path"]
        self._entries = dict(state["entries"])

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, request: object) -> bool:
        return isinstance(request, ChatRequest) and request.key in self._entries

    def __repr__(self) -> str:
        where = str(self.path) if self.path is not None else "memory"
        return f"ModelCache({where!r}, {len(self)} turn(s))"

    def _read(self, path: Path) -> None:
        try:
            # a device (/dev/zero never ends) is refused, a FIFO with no writer reads empty;
            # no size limit: the cache is the workbench's own file, grown a turn at a time
            text = read_input_bytes(path, limit=None).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise JSONFileError(path, f"cannot read the model cache: {reason}") from exc
        # split on "\n" only: str.splitlines() also breaks at U+2028, U+0085, ..., which
        # JSON text written with ensure_ascii=False may hold inside a string
        for number, raw in enumerate(text.split("\n"), start=1):
            if not raw.strip():
                continue
            key, entry = self._parse(path, number, raw)
            self._entries.setdefault(key, entry)  # two writers may store one key: first wins

    @staticmethod
    def _parse(path: Path, number: int, raw: str) -> tuple[str, dict[str, Any]]:
        def bad(reason: str) -> JSONFileError:
            return JSONFileError(path, f"model cache entry: {reason}", line=number, column=1)

        try:
            entry = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise JSONFileError(
                path, f"invalid JSON: {exc.msg}", line=number, column=exc.colno
            ) from exc
        if not isinstance(entry, dict):
            raise bad("must be an object with key, request and turn")
        key, request, turn = entry.get("key"), entry.get("request"), entry.get("turn")
        if not (isinstance(key, str) and len(key) == 64 and set(key) <= _HEX):
            raise bad("key must be 64 lowercase hex digits (a SHA-256)")
        if not isinstance(request, dict):
            raise bad("request must be an object")
        try:
            rebuilt = _request_of(request)
            checked = check_turn(turn)
        except (KeyError, TypeError, ValueError) as exc:
            raise bad(str(exc)) from exc
        if rebuilt.key != key:
            raise bad("key is not the SHA-256 of its request (was the request edited?)")
        return key, checked

    def get(self, request: ChatRequest) -> dict[str, Any] | None:
        """The cached turn for ``request`` (a copy), or ``None``."""
        turn = self._entries.get(request.key)
        return json.loads(json.dumps(turn)) if turn is not None else None

    def put(self, request: ChatRequest, turn: Mapping[str, Any]) -> None:
        """Store a live turn; a file-backed cache writes it at once (atomically, locked)."""
        checked = check_turn(turn)
        key = request.key
        if key in self._entries:
            return
        self._entries[key] = checked
        if self.path is not None:
            self._write(_line(key, request.to_json(), checked))

    def _write(self, line: str) -> None:
        """Append one line under an exclusive lock, in one write, and sync it: a live turn
        cost a model call, so it is on disk before the replay goes on. A line torn by a crash
        is never glued to the next one: it stays a line of its own, refused by number."""
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(self.path):
            handle = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            try:
                size = os.fstat(handle).st_size
                torn = size > 0 and _last_byte(self.path, size) != b"\n"
                os.write(handle, (("\n" if torn else "") + line + "\n").encode("utf-8"))
                os.fsync(handle)
            finally:
                os.close(handle)

    def entries(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(key, turn)`` for every cached turn, in the order they were stored."""
        for key, turn in self._entries.items():
            yield key, json.loads(json.dumps(turn))


def _last_byte(path: Path, size: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(size - 1)
        return handle.read(1)


def _request_of(data: Mapping[str, Any]) -> ChatRequest:
    messages = data["messages"]
    tools = data["tools"]
    params = data["params"]
    if not isinstance(messages, list) or not isinstance(tools, list):
        raise TypeError("request messages and tools must be lists")
    if not isinstance(params, dict):
        raise TypeError("request params must be an object")
    return ChatRequest(
        messages=tuple(messages),
        tools=tuple(tools),
        model=str(data["model"]),
        client=str(data["client"]),
        params=params,
        seed=int(data["seed"]),
        task_id=str(data["taskId"]),
        trial=int(data["trial"]),
    )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock for the read-merge-replace of a put: on the cache's folder, since the
    file itself is replaced (a lock on it would be a lock on the old file); no lock file left
    behind."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no flock (Windows): one writer at a time
        yield
        return
    handle = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        os.close(handle)
