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
import itertools
import json
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = ["REDACTED", "Redaction", "is_credential_key", "redact", "redact_text"]

REDACTED = "[REDACTED]"
"""What a redacted value is replaced by."""

# ---------------------------------------------------------------------------------------------
# Key names

# Key words that name a credential. A key is split into words (snake, kebab, camel case) and
# matches when one word, or two adjacent words joined, is in this set, or one word ends with one
# of _CREDENTIAL_ENDINGS (``PGPASSWORD``): ``max_tokens`` does not match (``tokens`` is not
# ``token``), ``x-api-key`` does (``api`` + ``key``).
_CREDENTIAL_WORDS = frozenset(
    {
        "authorization",
        "auth",
        "token",
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "secret",
        "secrets",
        "passwords",
        "apikey",
        "apikeys",
        "privatekey",
        "cookie",
        "credential",
        "credentials",
        "sessiontoken",
        "clientsecret",
        "accesskey",
        "secretkey",
        "accountkey",
        "jwt",
    }
)
_CREDENTIAL_ENDINGS = ("password", "passwd", "secret", "token", "apikey")
_SECRET_LISTS = frozenset({"tokens"})
"""Keys that hold secrets when they are the whole key (``tokens``), though as the last word of
a longer key they count something (``prompt_tokens``)."""

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
        "type",
        "expires",
        "expiry",
        "ttl",
    }
)

_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")

# Signed-URL parameters and session cookies: secrets by name in a URL or a header, though too
# short or too common to be key words everywhere.
_URL_SECRET_NAMES = frozenset(
    {
        "sig",
        "signature",
        "xamzsignature",
        "xamzcredential",
        "xamzsecuritytoken",
        "xgoogsignature",
        "xgoogcredential",
        "keypairid",
        "sessionid",
        "sid",
        "csrftoken",
        "key",
    }
)


def is_credential_key(key: str) -> bool:
    """Whether a mapping key names a credential."""
    words = [w.lower() for w in _WORD_SPLIT.split(key) if w]
    if not words or any(w in _QUANTITY_WORDS for w in words):
        return False
    if any(w in _CREDENTIAL_WORDS or w.endswith(_CREDENTIAL_ENDINGS) for w in words):
        return True
    if len(words) == 1 and words[0] in _SECRET_LISTS:
        return True
    return any(a + b in _CREDENTIAL_WORDS for a, b in itertools.pairwise(words))


def _norm(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "", name).lower()


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


Span = tuple[int, int, str]
"""A secret's place in a text: start, end, reason."""

# ---------------------------------------------------------------------------------------------
# gitleaks' rules


@dataclass(frozen=True, slots=True)
class _Allow:
    regexes: tuple[Any, ...]
    stopwords: tuple[str, ...]
    target: str


@dataclass(frozen=True, slots=True)
class _Rule:
    rule_id: str
    regex: Any
    secret_group: int
    entropy: float
    keywords: tuple[str, ...]
    allows: tuple[_Allow, ...]


@dataclass(frozen=True, slots=True)
class _RuleSet:
    rules: tuple[_Rule, ...]
    always: tuple[int, ...]
    by_keyword: dict[str, tuple[int, ...]]
    allow_regexes: tuple[Any, ...]
    allow_stopwords: tuple[str, ...]


def _re2() -> Any:
    import re2  # type: ignore[import-untyped]  # google-re2: no type stubs

    return re2


@functools.cache
def gitleaks_rules() -> _RuleSet:
    """The vendored gitleaks rules, compiled with RE2 (once, on first use)."""
    re2 = _re2()
    options = re2.Options()
    options.max_mem = 64 << 20
    raw = resources.files("workbench").joinpath("_promote", "rules", "gitleaks.toml").read_bytes()
    config = tomllib.loads(raw.decode("utf-8"))
    rules: list[_Rule] = []
    for entry in config["rules"]:
        if "regex" not in entry or "path" in entry:  # path-only or path-bound rules
            continue
        allows = []
        for allow in entry.get("allowlists", []):
            if allow.get("condition") == "AND" and allow.get("paths"):
                continue  # needs a file path to match: never true for a payload
            allows.append(
                _Allow(
                    tuple(re2.compile(x, options) for x in allow.get("regexes", [])),
                    tuple(w.lower() for w in allow.get("stopwords", [])),
                    str(allow.get("regexTarget", "secret")),
                )
            )
        rules.append(
            _Rule(
                str(entry["id"]),
                re2.compile(entry["regex"], options),
                int(entry.get("secretGroup", 0)),
                float(entry.get("entropy", 0.0)),
                tuple(k.lower() for k in entry.get("keywords", [])),
                tuple(allows),
            )
        )
    index: dict[str, list[int]] = {}
    always = []
    for number, rule in enumerate(rules):
        if not rule.keywords:
            always.append(number)
        for keyword in rule.keywords:
            index.setdefault(keyword, []).append(number)
    allow = config.get("allowlist", {})
    return _RuleSet(
        tuple(rules),
        tuple(always),
        {k: tuple(v) for k, v in index.items()},
        tuple(re2.compile(x, options) for x in allow.get("regexes", [])),
        tuple(w.lower() for w in allow.get("stopwords", [])),
    )


def _entropy(text: str) -> float:
    n = len(text)
    if not n:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in (text.count(ch) for ch in set(text)))


def _line_of(text: str, start: int, end: int) -> str:
    return text[text.rfind("\n", 0, start) + 1 : (text.find("\n", end) + 1 or len(text) + 1) - 1]


def _gitleaks_spans(text: str) -> list[Span]:
    rules = gitleaks_rules()
    low = text.lower()
    candidates = set(rules.always)
    for keyword, numbers in rules.by_keyword.items():
        if keyword in low:
            candidates.update(numbers)
    spans: list[Span] = []
    for number in sorted(candidates):
        rule = rules.rules[number]
        for match in rule.regex.finditer(text):
            group = rule.secret_group
            if not group:  # gitleaks: the first group that matched, else the whole match
                group = next((i for i in range(1, len(match.groups()) + 1) if match.group(i)), 0)
            secret = match.group(group)
            if not secret or secret == REDACTED:
                continue
            if rule.entropy and _entropy(secret) < rule.entropy:
                continue
            lowered = secret.lower()
            if any(r.search(secret) for r in rules.allow_regexes) or any(
                w in lowered for w in rules.allow_stopwords
            ):
                continue
            if _allowed(rule, match, text, secret):
                continue
            start, end = match.span(group)
            spans.append((start, end, f"gitleaks:{rule.rule_id}"))
    return spans


def _allowed(rule: _Rule, match: Any, text: str, secret: str) -> bool:
    for allow in rule.allows:
        if allow.target == "match":
            target = match.group(0)
        elif allow.target == "line":
            target = _line_of(text, *match.span(0))
        else:
            target = secret
        if any(r.search(target) for r in allow.regexes):
            return True
        if any(w in secret.lower() for w in allow.stopwords):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Our own rules

_PAIR_PATTERNS = (
    # "api_key": "..." in JSON text that does not parse as a whole (a log line)
    re.compile(r'"(?P<key>[A-Za-z0-9_.-]{1,64})"\s*:\s*"(?P<value>(?:[^"\\]|\\.)+)"'),
    # the same with escaped quotes (JSON text inside a JSON string)
    re.compile(r'\\"(?P<key>[A-Za-z0-9_.-]{1,64})\\"\s*:\s*\\"(?P<value>[^"\\]+)\\"'),
    # a Python dict's repr: 'client_secret': '...'
    re.compile(r"'(?P<key>[A-Za-z0-9_.-]{1,64})'\s*:\s*'(?P<value>(?:[^'\\]|\\.)+)'"),
    # key=value in a query string, an env line, an ini file, a connection string
    re.compile(
        r"(?<![A-Za-z0-9_.-])(?P<key>[A-Za-z][A-Za-z0-9_.-]{0,63})[ \t]*=[ \t]*"
        r"(?P<quote>[\"']?)(?P<value>[^&\s\"'<>;()\[\]{}]+)"
    ),
)
_HEADER_LINE = re.compile(
    r"(?im)^[ \t>*-]*(?P<name>[A-Za-z][A-Za-z0-9_-]{1,60})[ \t]*:[ \t]*(?P<value>[^\r\n]*[^\s])"
)
"""``Name: value`` at the start of a line: HTTP dumps, ``curl -v``, YAML, error texts."""
_HEADER_OPTION = re.compile(
    r"(?i)(?:-H|--header)[ =]?[ \t]*(?P<quote>['\"])(?P<name>[A-Za-z][A-Za-z0-9_-]{1,60})"
    r"[ \t]*:[ \t]*(?P<value>[^\r\n'\"]*[^\s'\"])"
)
"""A header given on a command line: ``curl -H 'X-Auth-Token: ...'``."""
_AUTH_VALUE = re.compile(r"^(?P<scheme>[A-Za-z][\w.-]*[ \t]+)?(?P<credential>\S.*)$")
_COOKIE_PAIR = re.compile(r"(?P<name>[^=;\s]+)=(?P<value>[^;\s]+)")
_URL_USERINFO = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:(?P<value>[^\s/@]+)@")
_BEARER = re.compile(r"(?i)\b(?:bearer|basic)\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})")
_TOKEN_SIGNAL = re.compile(r"[0-9_~+/=]|[a-z][A-Z]")
"""What an opaque token has and an English word does not: a digit, a ``_~+/=`` or a case change.
Without it ``basic information`` or ``Basic membership`` would read as credentials."""
_COMMAND_LINE = (
    (
        re.compile(r"""(?:^|\s)(?:-u|--user)[ =]['"]?[^:\s'"]+:(?P<value>[^\s'"]+)"""),
        "password on a command line",
    ),
    (
        re.compile(
            r"(?i)(?:^|\s)--(?:password|passwd|pass|token|api[-_]?key|secret|auth[-_]?token|"
            r"access[-_]?token|client[-_]?secret|private[-_]?key)(?:=|\s+)['\"]?(?P<value>[^\s'\"]+)"
        ),
        "secret option on a command line",
    ),
    (re.compile(r"""\bsshpass\s+-p\s*['"]?(?P<value>[^\s'"]+)"""), "password on a command line"),
    (
        re.compile(r"\bmysql(?:dump|admin)?\b[^\n]*?\s-p(?P<value>[^\s'\"-][^\s'\"]*)"),
        "password on a command line",
    ),
)
_URL_PATH_SECRETS = (
    re.compile(
        r"https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/\d+/(?P<value>[\w-]{20,})"
    ),
    re.compile(r"api\.telegram\.org/(?:file/)?bot(?P<value>\d{5,}:[\w-]{30,})"),
    re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<value>[\w/]+)"),
    re.compile(r"https://[\w.-]+\.webhook\.office\.com/webhookb2/(?P<value>[\w@/-]+)"),
)
_URL_PARAMETER = re.compile(r"[?&;](?P<name>[A-Za-z][A-Za-z0-9_.-]{0,63})=(?P<value>[^&\s\"'<>#]+)")
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("API key", re.compile(r"\bsk-(?:live-|test-|proj-|ant-)?[A-Za-z0-9_-]{16,}")),
    ("GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("JWT", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    (
        "private key",
        re.compile(
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
            r"(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
    ),
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\*+|x{3,}|\.{3}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%|null|none|"
    r"true|false|undefined|changeme|redacted|\[redacted\])$"
)
"""Values that are not secrets but placeholders for one (``${TOKEN}``, ``***``, ``<your key>``)."""


def _value_span(match: re.Match[str], reason: str, group: str = "value") -> Span | None:
    value = match.group(group)
    if not value or _PLACEHOLDER.match(value) or value == REDACTED:
        return None
    start, end = match.span(group)
    return start, end, reason


def _own_spans(text: str) -> list[Span]:
    spans: list[Span | None] = []
    if "=" in text or ":" in text:
        for pattern in _PAIR_PATTERNS:
            for match in pattern.finditer(text):
                key = match.group("key")
                after = text[match.end("value") : match.end("value") + 1]
                if is_credential_key(key) and after not in ("(", "["):  # not an expression
                    spans.append(_value_span(match, f"credential key {key!r} in text"))
    if ":" in text:
        for pattern in (_HEADER_LINE, _HEADER_OPTION):
            for match in pattern.finditer(text):
                spans.extend(_header_spans(match))
        if "@" in text:
            spans += [_value_span(m, "password in URL") for m in _URL_USERINFO.finditer(text)]
        for pattern in _URL_PATH_SECRETS:
            spans += [_value_span(m, "secret in a URL path") for m in pattern.finditer(text)]
    if "=" in text:
        for match in _URL_PARAMETER.finditer(text):
            name = match.group("name")
            if _norm(name) in _URL_SECRET_NAMES:
                spans.append(_value_span(match, f"signed URL parameter {name!r}"))
    if "-" in text:
        for pattern, reason in _COMMAND_LINE:
            spans += [_value_span(m, reason) for m in pattern.finditer(text)]
    for match in _BEARER.finditer(text):
        if _TOKEN_SIGNAL.search(match.group("value")):
            spans.append(_value_span(match, "bearer token"))
    for reason, pattern in _SHAPES:
        spans += [(m.start(), m.end(), reason) for m in pattern.finditer(text)]
    return [s for s in spans if s is not None]


def _header_spans(match: re.Match[str]) -> list[Span | None]:
    name, value = match.group("name"), match.group("value")
    low = name.lower()
    start = match.start("value")
    if low in ("authorization", "proxy-authorization"):
        auth = _AUTH_VALUE.match(value)
        if auth is None or _PLACEHOLDER.match(auth.group("credential")):
            return []
        return [(start + auth.start("credential"), start + len(value), f"{name} header")]
    if low in ("cookie", "set-cookie"):
        pairs = list(_COOKIE_PAIR.finditer(value))[: 1 if low == "set-cookie" else None]
        return [
            (start + c.start("value"), start + c.end("value"), f"{name} header")
            for c in pairs
            if not _PLACEHOLDER.match(c.group("value"))
        ]
    if is_credential_key(name) or _norm(name) in _URL_SECRET_NAMES - {"key", "code"}:
        if _PLACEHOLDER.match(value) or value == REDACTED:
            return []
        return [(start, start + len(value), f"{name} header")]
    return []


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
    spans = _own_spans(text) + _gitleaks_spans(text)
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


def _walk(value: Any, path: str, found: list[Redaction], under: str | None, depth: int) -> Any:
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        named = _named_credential(value)
        for key, item in value.items():
            credential = str(key) if is_credential_key(str(key)) else under
            if named is not None and key == "value":
                credential = named
            result[key] = _walk(item, _child(path, str(key)), found, credential, depth)
        return result
    if isinstance(value, list):
        return [_walk(item, _child(path, i), found, under, depth) for i, item in enumerate(value)]
    if under is not None and (
        (isinstance(value, str) and value and value != REDACTED and not _PLACEHOLDER.match(value))
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
