"""Secret redaction for promotion (SPEC R31).

Values under keys that name credentials (``authorization``, ``api_key``, ``token``, ``password``,
``secret``, ...) and strings shaped like bearer tokens or well-known API keys are replaced by
:data:`REDACTED`. Every replacement is reported by JSON path and reason, never by value.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["REDACTED", "Redaction", "is_credential_key", "redact"]

REDACTED = "[REDACTED]"
"""What a redacted value is replaced by."""

# Key words that name a credential. A key is split into words (snake, kebab, camel case) and
# matches when one word, or two adjacent words joined, is in this set: ``max_tokens`` does not
# match (``tokens`` is not ``token``), ``x-api-key`` does (``api`` + ``key``).
_CREDENTIAL_WORDS = frozenset(
    {
        "authorization",
        "auth",
        "token",
        "password",
        "passwd",
        "passphrase",
        "secret",
        "apikey",
        "privatekey",
        "cookie",
        "credential",
        "credentials",
        "sessiontoken",
        "clientsecret",
        "accesskey",
        "secretkey",
    }
)

# Words that make a key name a quantity rather than a credential: ``token_count``,
# ``tokenLimit`` and ``max_token`` count tokens; they hold no secret.
_QUANTITY_WORDS = frozenset(
    {
        "count",
        "counts",
        "limit",
        "limits",
        "max",
        "min",
        "num",
        "total",
        "usage",
        "budget",
        "length",
    }
)

_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+([A-Za-z0-9._~+/=-]{8,})")
"""``Bearer <token>`` / ``Basic <credentials>``; the token must also look like one (below)."""

_TOKEN_SIGNAL = re.compile(r"[0-9_~+/=]|[a-z][A-Z]")
"""What an opaque token has and an English word does not: a digit, a ``_~+/=`` or a case change.
Without it ``basic information`` or ``Basic membership`` would read as credentials."""

# A credential key's value written inside text: JSON text (``"api_key": "..."``) in a tool's text
# content, or a query parameter (``?api_key=...``) in a URL.
_JSON_PAIR = re.compile(
    r'"(?P<key>[A-Za-z0-9_.-]{1,64})"(?P<sep>\s*:\s*)"(?P<value>(?:[^"\\]|\\.)+)"'
)
# The same written with escaped quotes (JSON text inside a JSON string: ``{\"token\": \"...\"}``)
# or with single quotes (a Python dict's repr, as tools often print them).
_ESCAPED_JSON_PAIR = re.compile(
    r'\\"(?P<key>[A-Za-z0-9_.-]{1,64})\\"(?P<sep>\s*:\s*)\\"(?P<value>[^"\\]+)\\"'
)
_SINGLE_QUOTED_PAIR = re.compile(
    r"'(?P<key>[A-Za-z0-9_.-]{1,64})'(?P<sep>\s*:\s*)'(?P<value>(?:[^'\\]|\\.)+)'"
)
# A password in a URL's user info: ``scheme://user:password@host``.
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:)(?P<value>[^\s/@]+)@")
_QUERY_PAIR = re.compile(
    r"(?<![A-Za-z0-9_.-])(?P<key>[A-Za-z][A-Za-z0-9_.-]{0,63})=(?P<value>[^&\s\"'<>]+)"
)

_TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("API key", re.compile(r"\bsk-(?:live-|test-|proj-|ant-)?[A-Za-z0-9_-]{16,}")),
    ("GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("AWS access key", re.compile(r"\bAKIA[0-9A-Z]{16}\b")),
    ("JWT", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
)

_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Redaction:
    """One redacted value: where it was and why (never the value itself)."""

    path: str
    """The JSON path of the value, e.g. ``tasks[0].fixtures.toolResponses[2].args.api_key``."""
    reason: str
    """Why: ``credential key 'api_key'`` or the token shape found (``bearer token``)."""

    def to_json(self) -> dict[str, str]:
        """The redaction as recorded on the suite (``x-promotion.redactions``)."""
        return {"path": self.path, "reason": self.reason}


def is_credential_key(key: str) -> bool:
    """Whether a mapping key names a credential."""
    words = [w.lower() for w in _WORD_SPLIT.split(key) if w]
    if any(w in _QUANTITY_WORDS for w in words):
        return False
    if any(w in _CREDENTIAL_WORDS for w in words):
        return True
    return any(a + b in _CREDENTIAL_WORDS for a, b in itertools.pairwise(words))


def _redact_string(text: str) -> tuple[str, list[str]]:
    reasons: list[str] = []
    keys: list[str] = []

    def pair(match: re.Match[str]) -> str:
        key, value = match.group("key"), match.group("value")
        if value == REDACTED or not is_credential_key(key):
            return match.group(0)
        keys.append(key)
        start, end = match.span("value")
        offset = match.start()
        whole = match.group(0)
        return whole[: start - offset] + REDACTED + whole[end - offset :]

    if '"' in text:
        text = _JSON_PAIR.sub(pair, text)
        if '\\"' in text:
            text = _ESCAPED_JSON_PAIR.sub(pair, text)
    if "'" in text:
        text = _SINGLE_QUOTED_PAIR.sub(pair, text)
    if "=" in text:
        text = _QUERY_PAIR.sub(pair, text)
    reasons.extend(f"credential key {key!r} in text" for key in dict.fromkeys(keys))
    if "@" in text:
        passwords: list[str] = []

        def userinfo(match: re.Match[str]) -> str:
            if match.group("value") == REDACTED:
                return match.group(0)
            passwords.append(match.group("value"))
            return f"{match.group('scheme')}{REDACTED}@"

        text = _URL_USERINFO.sub(userinfo, text)
        if passwords:
            reasons.append("password in URL")

    bearers: list[str] = []

    def bearer(match: re.Match[str]) -> str:
        if not _TOKEN_SIGNAL.search(match.group(2)):
            return match.group(0)
        bearers.append(match.group(1))
        return f"{match.group(1)} {REDACTED}"

    text = _BEARER.sub(bearer, text)
    if bearers:
        reasons.append("bearer token")
    for reason, pattern in _TOKEN_PATTERNS:
        if pattern.search(text):
            reasons.append(reason)
            text = pattern.sub(REDACTED, text)
    return text, reasons


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
        return f"{path}.{key}" if path else key
    return f"{path}[{key!r}]"


def _named_credential(value: Mapping[str, Any]) -> str | None:
    """The credential a name/value pair names (``{"name": "Authorization", "value": ...}``).

    Header and parameter lists (HAR files, HTTP tools) hold a credential's name and its value
    in sibling members; the ``value`` is redacted as if it sat under that name.
    """
    if "value" not in value:
        return None
    for name_key in ("name", "key"):
        name = value.get(name_key)
        if isinstance(name, str) and is_credential_key(name):
            return name
    return None


def redact(value: Any, path: str = "") -> tuple[Any, list[Redaction]]:
    """A copy of ``value`` with secrets replaced, and the list of what was replaced.

    Under a credential key, a string or number is replaced whole; ``None`` and booleans are
    kept (they hold no secret); objects and lists under it are redacted leaf by leaf. Elsewhere,
    strings are scanned for bearer-token and API-key shapes, and for a credential key's value
    written inside the text (``"api_key": "..."`` in a tool's JSON text content, ``?token=...`` in
    a URL). A key that names a quantity (``max_tokens``, ``token_count``) is not a credential.
    """
    found: list[Redaction] = []
    out = _walk(value, path, found, under_key=None)
    return out, found


def _walk(value: Any, path: str, found: list[Redaction], under_key: str | None) -> Any:
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        named = _named_credential(value)
        for key, item in value.items():
            child = _child(path, str(key))
            credential = str(key) if is_credential_key(str(key)) else under_key
            if named is not None and key == "value":
                credential = named
            result[key] = _walk(item, child, found, credential)
        return result
    if isinstance(value, list):
        return [_walk(item, _child(path, i), found, under_key) for i, item in enumerate(value)]
    if under_key is not None and (
        (isinstance(value, str) and value and value != REDACTED)
        or (isinstance(value, int | float) and not isinstance(value, bool))
    ):
        found.append(Redaction(path, f"credential key {under_key!r}"))
        return REDACTED
    if isinstance(value, str):
        text, reasons = _redact_string(value)
        for reason in reasons:
            found.append(Redaction(path, reason))
        return text
    return value
