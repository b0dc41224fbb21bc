"""Which key names name a credential, and which values are only placeholders for one (R31)."""

from __future__ import annotations

import itertools
import re
from typing import Any

__all__ = ["PLACEHOLDER", "URL_SECRET_NAMES", "is_a_count", "is_credential_key", "normalised"]

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

_TOKEN_BREAKDOWNS = frozenset({"details", "detail", "breakdown"})
"""Words that, right after ``token``, name a usage breakdown: OpenAI's and LangChain's
``input_token_details`` and ``output_token_details`` (``{"audio": 0, "reasoning": 0}``)."""

_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")

# Signed-URL parameters and session cookies: secrets by name in a URL or a header, though too
# short or too common to be key words everywhere.
URL_SECRET_NAMES = frozenset(
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
    for at, (a, b) in enumerate(itertools.pairwise(words)):
        if a == "token" and b in _TOKEN_BREAKDOWNS:
            # a count of tokens by kind (its members are read on their own), unless another
            # word names a secret (``password_token_details``)
            words = words[:at] + words[at + 2 :]
            if not words:
                return False
            break
    if any(w in _CREDENTIAL_WORDS or w.endswith(_CREDENTIAL_ENDINGS) for w in words):
        return True
    if len(words) == 1 and words[0] in _SECRET_LISTS:
        return True
    return any(a + b in _CREDENTIAL_WORDS for a, b in itertools.pairwise(words))


def is_a_count(key: str, value: Any) -> bool:
    """Whether ``value`` under a key that names secrets when whole (``tokens``) counts them: a
    number, or text of digits alone, is no secret there (context7's ``get-library-docs`` takes
    ``"tokens": 4000``)."""
    if key.lower() not in _SECRET_LISTS:
        return False
    if isinstance(value, str):  # (text: ``tokens=4000``)
        return value.isascii() and value.isdigit()
    return isinstance(value, int | float) and not isinstance(value, bool)


def normalised(name: str) -> str:
    """A name without separators, lower-cased (``X-Amz-Signature`` is ``xamzsignature``)."""
    return re.sub(r"[^A-Za-z0-9]+", "", name).lower()


PLACEHOLDER = re.compile(
    r"(?i)^(?:\*+|x{3,}|\.{3}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%|null|none|"
    r"true|false|undefined|changeme|redacted|\[redacted\]|"
    r"([\"']?)\$?\{\{ ?\.?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)* ?\}\}\1)$"
)
"""Values that are not secrets but placeholders for one (``${TOKEN}``, ``***``, ``<your key>``,
a template's bare reference ``${{ secrets.GITHUB_TOKEN }}`` or ``"{{ .Env.TOKEN }}"``: a workflow
file an agent read says where its secret comes from, and is served as it was read; a template
holding anything else, a literal default or a filter, is no placeholder)."""
