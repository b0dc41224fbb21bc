"""How the messages of a chat API cassette are told apart and filed (R34).

``chat_conversations`` compares requests' messages as recorded, else without system prompts
(a client may change them between requests) and without Anthropic's ``cache_control`` marks
(clients move them to the newest turn): this module reads a message's role, leaves those out,
and files a request under a hash of each prefix of its messages' canonical JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

__all__ = [
    "SYSTEM_ROLES",
    "after_talk",
    "content_print",
    "fingerprint",
    "is_system",
    "plain_message",
    "plain_messages",
    "prefix_keys",
    "role_of",
]


def content_print(message: Any) -> bytes:
    """A message's content, canonical JSON without ``cache_control`` (what a reply and its
    resent copy share)."""
    plain = plain_message(message)
    return fingerprint(plain.get("content") if isinstance(plain, Mapping) else plain)


def prefix_keys(messages: list[Any]) -> list[tuple[int, int]]:
    """For each prefix of the messages that are not system prompts, its length and a hash of
    its messages' canonical JSON (without ``cache_control``): where a conversation whose last
    request sent those messages is filed."""
    keys: list[tuple[int, int]] = []
    rolling = 0
    for message in messages:
        if is_system(message):
            continue
        rolling = hash((rolling, fingerprint(plain_message(message))))
        keys.append((len(keys) + 1, rolling))
    return keys


def after_talk(messages: list[Any], count: int) -> int:
    """Where in ``messages`` the messages after the first ``count`` that are not system prompts
    start."""
    seen = 0
    for index, message in enumerate(messages):
        if seen == count:
            return index
        if not is_system(message):
            seen += 1
    return len(messages)


def plain_messages(messages: list[Any]) -> list[Any]:
    return [plain_message(m) for m in messages if not is_system(m)]


def fingerprint(message: Any) -> bytes:
    try:
        return orjson.dumps(message, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # keys or values JSON has not: its repr
        return repr(message).encode("utf-8", "backslashreplace")


def role_of(message: Any) -> Any:
    if type(message) is dict:
        return message.get("role")
    return message.get("role") if isinstance(message, Mapping) else None


def is_system(message: Any) -> bool:
    """A system prompt in the messages (OpenAI); a client may change it between requests (an
    agent handing the conversation to another), so conversations are told without it."""
    return role_of(message) in SYSTEM_ROLES


SYSTEM_ROLES = ("system", "developer")


def plain_message(message: Any) -> Any:
    """A message without the ``cache_control`` marks of its content blocks."""
    if type(message) is not dict:
        return message
    content = message.get("content")
    if type(content) is not list or not any(
        type(block) is dict and "cache_control" in block for block in content
    ):
        return message
    blocks = [
        {k: v for k, v in block.items() if k != "cache_control"} if type(block) is dict else block
        for block in content
    ]
    return {**message, "content": blocks}
