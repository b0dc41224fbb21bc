"""Secret redaction for promotion (SPEC R31).

What is replaced by :data:`REDACTED`, everywhere in a promoted task (args, results, error
texts, headers, URLs, and JSON documents written inside strings, decoded and walked in turn):

1. **Key-name rules**: the value under a key that names a credential (``authorization``,
   ``api_key``, ``token``, ``password``, ``secret``, ``client_secret``, ...), written as a JSON
   member, inside JSON text, as ``key=value`` or ``'key': 'value'``, or as a ``{"name": ...,
   "value": ...}`` pair (HAR headers). A key that names a quantity (``max_tokens``) is not one.
2. **gitleaks' rule set** (MIT, vendored byte for byte in ``rules/gitleaks.toml``, see
   ``rules/SOURCE.md``): 220 provider patterns (AWS, GitHub, GitLab, Slack, Stripe, Google,
   private keys, JWTs, ...) with their keyword prefilters, secret groups, entropy thresholds and
   allowlists, run with RE2 so matching stays linear in the text.
3. **Our own rules** for what no scanner does: ``Authorization`` / ``Proxy-Authorization``
   with any scheme, credential-named header lines and cookies, secrets on command lines
   (``-u user:pw``, ``--password``, ``sshpass -p``), secret-bearing URL paths (webhooks, bot
   URLs), signed-URL parameters, passwords in URLs, ``Bearer`` / ``Basic`` credentials.

Every replacement is reported by path and reason, never by value. Why gitleaks' rules and not
detect-secrets' plugins: ``docs/secrets.md``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .gitleaks import gitleaks_rules, gitleaks_spans
from .keys import PLACEHOLDER, is_a_count, is_credential_key
from .textrules import Span, own_spans

__all__ = [
    "REDACTED",
    "Redaction",
    "gitleaks_rules",
    "is_credential_key",
    "redact",
    "redact_text",
]

REDACTED = "[REDACTED]"
"""What a redacted value is replaced by."""

# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True, slots=True)
class Redaction:
    """One redacted value: where it was and why (never the value itself)."""

    path: str
    """The JSON path of the value, e.g. ``tasks[0].fixtures.toolResponses[2].args.api_key``;
    inside a JSON document written in a string, the path in that document follows `` > ``."""
    reason: str
    """Why: ``credential key 'api_key'``, a rule (``gitleaks:github-pat``), a shape
    (``bearer token``, ``Authorization header``)."""

    def to_json(self) -> dict[str, str]:
        """The redaction as recorded on the suite (``x-promotion.redactions``)."""
        return {"path": self.path, "reason": self.reason}


# ---------------------------------------------------------------------------------------------
# Strings


def _merge(spans: list[Span]) -> list[tuple[int, int, list[str]]]:
    merged: list[tuple[int, int, list[str]]] = []
    for start, end, reason in sorted(spans):
        if merged and start <= merged[-1][1]:
            last = merged[-1]
            reasons = last[2] if reason in last[2] else [*last[2], reason]
            merged[-1] = (last[0], max(last[1], end), reasons)
        else:
            merged.append((start, end, [reason]))
    return merged


@functools.lru_cache(maxsize=65536)
def redact_text(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with every secret the rules find replaced, and one reason per replacement
    (the rules that found it, never the value).

    JSON written in the text is not decoded here (:func:`redact` does that); each rule runs on
    the text as it is. The same text always gives the same result (cached).
    """
    if len(text) < 8:
        return text, ()
    spans = own_spans(text) + gitleaks_spans(text)
    if not spans:
        return text, ()
    out: list[str] = []
    reasons: list[str] = []
    at = 0
    for start, end, why in _merge(spans):
        if text[start:end] == REDACTED:
            continue
        out.append(text[at:start])
        out.append(REDACTED)
        at = end
        reasons.append(", ".join(why))
    out.append(text[at:])
    return "".join(out), tuple(reasons)


_MAX_JSON_DEPTH = 4
"""How many JSON documents deep (JSON in a string in JSON in a string ...) decoding goes."""


def _json_in_string(text: str) -> tuple[Any, tuple[str, str]] | None:
    """The JSON document a string holds (an object or array), with the separators to write it
    back with, or None."""
    stripped = text.strip()
    if len(stripped) < 2 or stripped[0] not in "[{" or stripped[-1] not in "]}":
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    compact = ", " not in stripped and ": " not in stripped
    return value, ((",", ":") if compact else (", ", ": "))


_DECODER = json.JSONDecoder()
_MAX_EMBEDDED_TRIES = 64


def _embedded_json(text: str) -> list[tuple[int, int, Any]]:
    """JSON objects and arrays written inside prose (``failed: {"error": ...}``), as
    ``(start, end, value)``; at most 64 places are tried, so the cost stays linear."""
    found: list[tuple[int, int, Any]] = []
    at, tries = 0, 0
    while tries < _MAX_EMBEDDED_TRIES:
        starts = [i for i in (text.find("{", at), text.find("[", at)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        tries += 1
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            at = start + 1
            continue
        if isinstance(value, dict | list) and value:
            found.append((start, end, value))
        at = max(end, start + 1)
    return found


# ---------------------------------------------------------------------------------------------
# Values


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
        return f"{path}.{key}" if path and not path.endswith(" > ") else f"{path}{key}"
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
    kept (they hold no secret); objects and lists under it are redacted leaf by leaf. Elsewhere
    every string is scanned (:func:`redact_text`); a string that holds a JSON document is
    decoded, redacted as a value (key names included, up to four documents deep) and written
    back only if something in it was redacted.
    """
    found: list[Redaction] = []
    out = _walk(value, path, found, None, 0)
    return out, found


_SCHEMA_WORDS = frozenset(
    {"type", "title", "description", "$ref", "anyOf", "oneOf", "allOf", "enum", "format"}
)
"""Members that make an object under ``properties`` a JSON Schema, whose name is no credential."""


_SCHEMA_VALUES = frozenset({"default", "example", "examples", "const", "enum", "value", "values"})
"""Members of a property's schema that hold a value of the property (a secret, if it is one)."""


def _is_schema_property(path: str, item: Any) -> bool:
    """Whether ``item`` is a property's schema in a tool's JSON Schema (``properties.password:
    {"type": "string", ...}``): its name says what the tool takes, it holds no secret."""
    return (
        (path == "properties" or path.endswith((".properties", " > properties")))
        and isinstance(item, Mapping)
        and not _SCHEMA_WORDS.isdisjoint(item.keys())
    )


def _walk(value: Any, path: str, found: list[Redaction], under: str | None, depth: int) -> Any:
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        named = _named_credential(value)
        for key, item in value.items():
            named_so = is_credential_key(str(key)) and not is_a_count(str(key), item)
            credential = str(key) if named_so else under
            if credential is not None and under is None and _is_schema_property(path, item):
                # a tool schema's property named "password": its words are no secret, a value
                # it holds (a default, an example, a value) still is
                result[key] = {
                    k: _walk(v, _child(_child(path, str(key)), str(k)), found,
                             credential if k in _SCHEMA_VALUES else None, depth)
                    for k, v in item.items()
                }  # fmt: skip
                continue
            if named is not None and key == "value":
                credential = named
            result[key] = _walk(item, _child(path, str(key)), found, credential, depth)
        return result
    if isinstance(value, list):
        return [_walk(item, _child(path, i), found, under, depth) for i, item in enumerate(value)]
    if under is not None and (
        (isinstance(value, str) and value and value != REDACTED and not PLACEHOLDER.match(value))
        or (isinstance(value, int | float) and not isinstance(value, bool))
    ):
        found.append(Redaction(path or "(root)", f"credential key {under!r}"))
        return REDACTED
    if isinstance(value, str):
        if depth < _MAX_JSON_DEPTH:
            decoded = _json_in_string(value)
            if decoded is not None:
                inner: list[Redaction] = []
                document, separators = decoded
                cleaned = _walk(document, f"{path} > ", inner, None, depth + 1)
                if inner:
                    found.extend(inner)
                    return json.dumps(cleaned, ensure_ascii=False, separators=separators)
                return value
            value = _redact_embedded(value, path, found, depth)
        text, reasons = redact_text(value)
        found.extend(Redaction(path or "(root)", reason) for reason in reasons)
        return text
    return value


def _redact_embedded(text: str, path: str, found: list[Redaction], depth: int) -> str:
    """``text`` with the JSON documents written inside it redacted as values (key names
    included) and written back compactly where something in them was redacted."""
    if "{" not in text and "[" not in text:
        return text
    parts: list[str] = []
    at = 0
    for start, end, document in _embedded_json(text):
        inner: list[Redaction] = []
        cleaned = _walk(document, f"{path} > ", inner, None, depth + 1)
        if inner:
            found.extend(inner)
            parts.append(text[at:start])
            parts.append(json.dumps(cleaned, ensure_ascii=False))
            at = end
    if not parts:
        return text
    parts.append(text[at:])
    return "".join(parts)
