"""Where ``chat_conversations`` finds a request's conversation by the reply it sends back (R34).

A request that continues a conversation sends its last reply back, as its last assistant
message. ``ReplyIndex`` files each conversation under its last reply, two ways:

- ``latest``: each call id the reply makes (else its text's print), to the latest conversation
  filed under it, kept when that conversation goes on. A client that drops calls from the turn
  it resends (crewAI) still sends one the reply made: an overlap finds it; so does a request
  that rewrote earlier turns and answers a call (``_answering``).
- ``open``: the conversations whose last reply it is now, in the order filed, under keys that
  tell replies apart: each call id, and, once another open conversation made one of those
  calls too, the reply's canonical print, its calls' print and the set of its call ids (made
  then for both, at most once a reply: the usual cassette, whose call ids are unique, never
  prints a reply); a text reply under its text. A conversation's keys are dropped when its
  reply changes.

Call ids are not unique across conversations: trials of one prompt answered by a mock, or by a
server that numbers calls per response, all reply with ``call_1``. When more than one open
conversation made the call the request sends back, the one whose reply it is exactly (the
message as recorded, else its calls, else the same ids) is taken over one that made some of
them, each found at once: never a scan of the conversations that share a call id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from .chat_prints import content_print, fingerprint, plain_message, role_of
from .chat_replies import reply_call_ids

__all__ = ["ReplyIndex"]

Conversation = TypeVar("Conversation")


class ReplyIndex(Generic[Conversation]):
    """The conversations filed under their last reply (see the module docstring)."""

    __slots__ = ("filed", "latest", "open", "replies")

    def __init__(self) -> None:
        self.latest: dict[Any, Conversation] = {}
        """A call id, or ``("text", print)``: the latest conversation whose reply it was."""
        self.open: dict[Any, dict[int, Conversation]] = {}
        """A key of a reply: the conversations (by ``id``) whose last reply has it now."""
        self.filed: dict[int, list[Any]] = {}
        """A conversation's ``id``: the keys of :attr:`open` it is filed under."""
        self.replies: dict[int, tuple[Conversation, dict[str, Any], list[str]] | None] = {}
        """A conversation's ``id``: its last reply with calls and their ids, until it is filed
        under the reply's exact keys too (then ``None``)."""

    def note(
        self, conversation: Conversation, reply: dict[str, Any] | None, ids: list[str]
    ) -> None:
        """File a conversation under its new last reply (``ids``: the calls it makes), and
        take it from under the one before."""
        number = id(conversation)
        opened = self.open
        before = self.filed.pop(number, None)
        if before is not None:
            for key in before:
                filed_under = opened[key]
                del filed_under[number]
                if not filed_under:
                    del opened[key]
            self.replies.pop(number, None)
        if reply is None:
            return
        if not ids:
            key = ("text", content_print(reply))
            self.latest[key] = conversation
            opened.setdefault(key, {})[number] = conversation
            self.filed[number] = [key]
            return
        unique = ids if len(ids) == 1 else list(dict.fromkeys(ids))
        latest = self.latest
        # Another open conversation made one of these calls: the reply's exact keys are needed
        # to tell the two apart. A bucket of two or more already has them for every member (a
        # member is filed under them as the second joins), so only a lone one is filed now.
        lonely: list[int] | None = None
        for call_id in unique:
            latest[call_id] = conversation
            bucket = opened.get(call_id)
            if bucket is None:
                opened[call_id] = {number: conversation}
                continue
            if lonely is None:
                lonely = []
            if len(bucket) == 1:
                lonely.append(next(iter(bucket)))
            bucket[number] = conversation
        self.filed[number] = list(unique)
        self.replies[number] = (conversation, reply, ids)
        if lonely is not None:  # the others first: a bucket keeps the order they were filed in
            for other in lonely:
                self._file_exact(other)
            self._file_exact(number)

    def _file_exact(self, number: int) -> None:
        """File a conversation under its reply's exact keys as well (once a reply)."""
        filed = self.replies.get(number)
        if filed is None:
            return
        conversation, reply, ids = filed
        self.replies[number] = None
        keys = [("ids", frozenset(ids)), _said_key(reply), _calls_key(reply)]
        for key in keys:
            self.open.setdefault(key, {})[number] = conversation
        self.filed[number].extend(keys)

    def hint(
        self, messages: list[Any], again: Callable[[Conversation, list[Any]], bool]
    ) -> tuple[Conversation | None, int, list[str]]:
        """The conversation whose last reply the request's last assistant message sends back
        (by the calls it makes, else by its text), if any; where that message is (``-1``:
        none) and the ids of its calls. ``again``: whether the request is a conversation's last
        one sent again (a retry of a conversation that has gone on is its fork, not another's
        turn)."""
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            role = message.get("role") if type(message) is dict else role_of(message)
            if role != "assistant":
                continue
            ids = reply_call_ids(message)
            if not ids:
                key = ("text", content_print(message))
                found = self.latest.get(key)
                if found is not None:
                    found = self._exact(found, self.open.get(key), (), again, messages)
                return found, index, ids
            for call_id in ids:
                found = self.latest.get(call_id)
                if found is None:
                    continue
                bucket = self.open.get(call_id)
                if bucket is not None and len(bucket) == 1 and id(found) in bucket:
                    return found, index, ids  # the one open conversation that made the call
                keys = (_said_key(message), _calls_key(message), ("ids", frozenset(ids)))
                return self._exact(found, None, keys, again, messages), index, ids
            return None, index, ids
        return None, -1, []

    def _exact(
        self,
        found: Conversation,
        bucket: dict[int, Conversation] | None,
        keys: tuple[Any, ...],
        again: Callable[[Conversation, list[Any]], bool],
        messages: list[Any],
    ) -> Conversation:
        """Of the conversations filed under the first of ``keys`` (or in ``bucket``) that any
        is, ``found`` (the latest filed under the reply) if it is one, else the latest;
        ``found`` if none is, or if the request is its last one sent again."""
        if bucket is None:
            if again(found, messages):
                return found
            for key in keys:
                bucket = self.open.get(key)
                if bucket:
                    break
        if not bucket or id(found) in bucket:
            return found
        if again(found, messages):
            return found
        return next(reversed(bucket.values()))


def _said_key(message: Mapping[str, Any]) -> tuple[str, bytes]:
    """An assistant message as recorded (less ``cache_control`` marks), as canonical JSON."""
    return ("said", fingerprint(plain_message(message)))


def _calls_key(message: Mapping[str, Any]) -> tuple[str, bytes]:
    """The calls an assistant message makes, as canonical JSON: what a client that resends the
    reply with fields added or left out (``refusal``, ``annotations``) still sends as said."""
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        content = message.get("content")
        calls = (
            [b for b in content if isinstance(b, Mapping) and b.get("type") == "tool_use"]
            if isinstance(content, list)
            else []
        )
    return ("calls", fingerprint(calls))
