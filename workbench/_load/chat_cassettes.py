"""HTTP cassettes of chat APIs: OpenAI Chat Completions and Anthropic Messages traffic (R34).

A chat API is stateless: every request resends the conversation so far, and the reply adds one
assistant turn. A cassette of an agent's run is therefore its conversation written out once per
model call, and this module reads it back as the one transcript it is:

- **Which exchanges.** An exchange is a chat call when its request sends ``messages`` and it
  went to ``/chat/completions`` (OpenAI and the many servers that speak its API) or
  ``/messages`` (Anthropic), or its response has that API's shape. Any other exchange
  (``count_tokens``, a file download, an embeddings call) and any chat call that failed (HTTP
  400 and up: a rate limit, a refused request) is kept on the run as a known non-tool record,
  ``metadata["otherExchanges"]`` (R35). A refused request was still sent: when it sends a
  conversation's last reply back with its calls answered, those answers are read (R2).
- **Conversations** (``chat_conversations``). An exchange whose messages begin with an earlier
  exchange's messages continues that conversation (compared as recorded, else without system
  prompts and Anthropic's ``cache_control`` marks, which clients move to the newest turn; else
  it continues the conversation whose last call it answers); any other starts one. A request
  that sends the same messages again forks the conversation: parallel trials of one prompt
  are runs of their own, and a branch that does not go on while another does was a retry
  (``metadata["retriedExchanges"]``).
- **The transcript** of a conversation is each request's new messages and each reply as the
  model sent it, merged with the copy the next request resends (``chat_replies``: a call a
  client leaves out of what it resends is still a call), with the last request's ``model``,
  ``tools`` and (Anthropic) ``system``. It goes to the format's own loader (``openai_chat``,
  ``anthropic``), so a cassette reads as the same conversation saved as JSON, and a problem
  names the interaction that carried the message.
- **Streamed replies** are put together from their server-sent events (``chat_streams``).
- **The end of the recording.** A call in a conversation's last reply is never answered in a
  cassette: the next request, which would carry its result, was never sent. When the call is to
  pydantic-ai's output tool (``final_result``, ``final_result_<type>``), the run ended by
  design there (R36): it is kept as a terminal call, not a boundary. Any other call left open is
  a problem, as in every format (R2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .anthropic import load_anthropic
from .cassettes import Exchange
from .chat_conversations import ChatApi, conversations
from .common import is_output_tool
from .openai_chat import load_openai_chat
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = [
    "ChatApi",
    "chat_api_of",
    "chat_apis_of",
    "chat_cassette_apis",
    "load_chat_exchanges",
    "model_calls",
]


def chat_api_of(exchange: Exchange) -> ChatApi | None:
    """The chat API an exchange calls, or ``None`` (not a chat call, or no messages sent)."""
    if not _sends_messages(exchange):
        return None
    return _api_of_uri(exchange.uri) or _api_of_body(exchange)


def chat_apis_of(exchanges: Sequence[Exchange]) -> list[ChatApi | None]:
    """:func:`chat_api_of` of each exchange, each URI's path read once (a cassette sends its
    calls to a few URIs)."""
    by_uri: dict[str, ChatApi | None] = {}
    out: list[ChatApi | None] = []
    for exchange in exchanges:
        if not _sends_messages(exchange):
            out.append(None)
            continue
        uri = exchange.uri
        api = by_uri[uri] if uri in by_uri else by_uri.setdefault(uri, _api_of_uri(uri))
        out.append(api or _api_of_body(exchange))
    return out


def _sends_messages(exchange: Exchange) -> bool:
    request = exchange.request
    if type(request) is not dict and not isinstance(request, Mapping):
        return False
    return type(request.get("messages")) is list


def _api_of_uri(uri: str) -> ChatApi | None:
    """The chat API a URI's path names (``None``: it names none)."""
    path = uri.split("?", 1)[0].rstrip("/")
    if path.endswith("/chat/completions"):
        return "openai-chat"
    if path.endswith("/messages"):
        return "anthropic"
    return None


def _api_of_body(exchange: Exchange) -> ChatApi | None:
    """The chat API whose shape an exchange's response (or its first event) has."""
    response = exchange.response
    if isinstance(response, Mapping):
        if response.get("type") == "message" and isinstance(response.get("content"), list):
            return "anthropic"
        if isinstance(response.get("choices"), list):
            return "openai-chat"
    if exchange.events:
        first = exchange.events[0]
        if isinstance(first, Mapping) and first.get("type") == "message_start":
            return "anthropic"
        if isinstance(first, Mapping) and isinstance(first.get("choices"), list):
            return "openai-chat"
    return None


def chat_cassette_apis(kinds: Sequence[ChatApi | None]) -> list[ChatApi]:
    """The chat APIs a cassette's exchanges call (``kinds``: :func:`chat_api_of` of each), the
    most called first (the first called, on a tie)."""
    counts: dict[ChatApi, int] = {}
    for api in kinds:
        if api is not None:
            counts[api] = counts.get(api, 0) + 1
    return sorted(counts, key=lambda api: -counts[api])


_API_NAMES = {"openai-chat": "Chat Completions", "anthropic": "Anthropic Messages"}


def model_calls(exchanges: Sequence[Exchange]) -> str:
    """The chat API calls among the exchanges, and how many failed, in words (``""``: none):
    what a cassette held when it gave no tool call."""
    counts: dict[str, list[int]] = {}
    for exchange in exchanges:
        api = chat_api_of(exchange)
        if api is not None:
            name = _API_NAMES[api]
        elif exchange.uri.split("?", 1)[0].rstrip("/").endswith("/responses"):
            name = "Responses API"
        elif exchange.uri.split("?", 1)[0].rstrip("/").endswith(("/converse", "/converse-stream")):
            name = "Bedrock Converse"
        else:
            continue
        seen = counts.setdefault(name, [0, 0])
        seen[0] += 1
        seen[1] += exchange.refused
    refused = ", {} of them refused (HTTP 400 or more)"
    return "; ".join(
        f"{total} {name} call(s)" + (refused.format(failed) if failed else "")
        for name, (total, failed) in counts.items()
    )


def load_chat_exchanges(
    exchanges: Sequence[Exchange],
    kinds: Sequence[ChatApi | None],
    file: str,
    rule: ErrorRule,
    api: ChatApi,
    *,
    any_input: bool = False,
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run per conversation among the exchanges that call ``api`` (see the module), named
    ``conversation`` (or ``conversation-<n>``, when there are several) as the Responses
    API's conversations are. ``any_input``: a call's input may be any JSON value (exchanges
    written in Messages' shape from an API whose calls' input is, as ``load_anthropic``)."""
    grouped = conversations(exchanges, kinds, api)
    if not grouped:
        return [], []
    unanswered = [  # R35: a model call with no response at all (a cassette cut short)
        LoadProblem(file, e.where, "response", "no response recorded for this model call")
        for e, kind in zip(exchanges, kinds, strict=True)
        if kind == api and e.status is None and e.response is None and not e.events
    ]
    records: list[dict[str, Any]] = []
    places: list[list[str]] = []
    for number, conversation in enumerate(grouped):
        record, where = conversation.transcript(api)
        record["id"] = f"conversation-{number}" if len(grouped) > 1 else "conversation"
        records.append(record)
        places.append(where)
    if api == "anthropic":
        runs, problems = load_anthropic(
            records, file, places=places, terminal=is_output_tool, any_input=any_input
        )
    else:
        runs, problems = load_openai_chat(
            records, file, rule, places=places, terminal=is_output_tool
        )
    return runs, [*unanswered, *problems]
