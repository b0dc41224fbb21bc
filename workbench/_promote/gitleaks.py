"""gitleaks' rule set, vendored as data and run with RE2 (R31; ``rules/SOURCE.md``).

``rules/gitleaks.toml`` is gitleaks' default configuration, byte for byte as released (MIT).
Its rules are read with ``tomllib`` and their regexes compiled with RE2 (``google-re2``), which
they are written for (Go's regexp is RE2), so matching is linear in the text: under Python's
``re`` four of them backtrack for seconds on one long base64-like string. Each rule's keyword
prefilter, secret group, entropy threshold and allowlists are applied as gitleaks does; rules
bound to a file path are left out (a tool payload has none).
"""

from __future__ import annotations

import functools
import math
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = ["RuleSet", "gitleaks_rules", "gitleaks_spans"]

REDACTED = "[REDACTED]"


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
class RuleSet:
    rules: tuple[_Rule, ...]
    always: tuple[int, ...]
    by_keyword: dict[str, tuple[int, ...]]
    allow_regexes: tuple[Any, ...]
    allow_stopwords: tuple[str, ...]


def _re2() -> Any:
    import re2  # type: ignore[import-untyped]  # google-re2: no type stubs

    return re2


@functools.cache
def gitleaks_rules() -> RuleSet:
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
    return RuleSet(
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


def gitleaks_spans(text: str) -> list[tuple[int, int, str]]:
    rules = gitleaks_rules()
    low = text.lower()
    candidates = set(rules.always)
    for keyword, numbers in rules.by_keyword.items():
        if keyword in low:
            candidates.update(numbers)
    spans: list[tuple[int, int, str]] = []
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
