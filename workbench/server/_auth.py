"""Bearer keys for the HTTP host: generated at start, or read from a key file.

A key file holds one key a line: ``KEY [SCOPE [SUBJECT]]``, ``#`` starting a comment. ``SCOPE``
is ``run`` (the default: everything) or ``read`` (GET only: a ``POST`` with it is ``403
forbidden``); ``SUBJECT`` names the owner recorded on the runs the key creates (default: a
digest of the key, never the key). A key is at least 16 printable ASCII characters with no
space. A request without a valid key is ``401 unauthenticated`` (with ``WWW-Authenticate:
Bearer``); keys are compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from .._common.text import cut
from ._wire import WireError

__all__ = ["ApiKey", "check_bearer", "generate_api_key", "load_api_keys"]

KeyScope = Literal["run", "read"]

_KEY = re.compile(r"[\x21-\x7e]{16,512}")
_SUBJECT = re.compile(r"[^\s/]{1,256}")


@dataclass(frozen=True, slots=True)
class ApiKey:
    """One bearer key the host accepts."""

    key: str
    """The secret itself."""
    scope: KeyScope = "run"
    """``run``: every route; ``read``: GET only."""
    subject: str = ""
    """The owner's ``subjectId`` on the runs it creates (default: ``key-`` and a digest)."""

    def __post_init__(self) -> None:
        if not _KEY.fullmatch(self.key):
            raise ValueError("an API key is 16 to 512 printable ASCII characters with no space")
        if self.scope not in ("run", "read"):
            raise ValueError(f"unknown key scope {cut(self.scope, 40)!r} (run, read)")
        if not self.subject:
            digest = hashlib.sha256(self.key.encode()).hexdigest()[:12]
            object.__setattr__(self, "subject", f"key-{digest}")
        elif not _SUBJECT.fullmatch(self.subject):
            raise ValueError(f"subject {cut(self.subject, 40)!r} has a space or a '/'")

    def __repr__(self) -> str:  # never show the secret
        return f"ApiKey(scope={self.scope!r}, subject={self.subject!r})"


def generate_api_key() -> ApiKey:
    """A fresh random key (``wbk_`` and 43 URL-safe characters, 256 bits)."""
    return ApiKey("wbk_" + secrets.token_urlsafe(32))


MAX_KEY_FILE = 1 << 20
"""The largest key file read (a line a key: a megabyte holds thousands); a larger one is refused
before it is read whole."""


def load_api_keys(path: str | os.PathLike[str]) -> tuple[ApiKey, ...]:
    """The keys of a key file; a bad line is a ``ValueError`` naming the file and line."""
    file = os.fspath(path)
    try:
        with open(file, "rb") as handle:
            data = handle.read(MAX_KEY_FILE + 1)
        if len(data) > MAX_KEY_FILE:
            raise ValueError(f"{file}: a key file is at most {MAX_KEY_FILE} bytes")
        lines = data.decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{file}: cannot read the key file ({exc})") from None
    keys: list[ApiKey] = []
    for number, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not text:
            continue
        parts = text.split()
        if len(parts) > 3:
            raise ValueError(f"{file}:{number}: expected 'KEY [SCOPE [SUBJECT]]'")
        scope = parts[1] if len(parts) > 1 else "run"
        if scope not in ("run", "read"):
            raise ValueError(f"{file}:{number}: unknown scope {cut(scope, 40)!r} (run, read)")
        try:
            keys.append(ApiKey(parts[0], scope, parts[2] if len(parts) > 2 else ""))  # type: ignore[arg-type]
        except ValueError as exc:
            raise ValueError(f"{file}:{number}: {exc}") from None
    if not keys:
        raise ValueError(f"{file}: no key in the file")
    return tuple(keys)


def check_bearer(header: str | None, keys: Sequence[ApiKey], *, write: bool) -> ApiKey:
    """The key an ``Authorization`` header presents; ``401`` without a known one, ``403`` for
    a read-only key on a write."""
    challenge = {"WWW-Authenticate": 'Bearer realm="workbench"'}
    if header is None:
        raise WireError(
            "unauthenticated", "no bearer key: send Authorization: Bearer KEY", headers=challenge
        )
    scheme, _, presented = header.strip().partition(" ")
    presented = presented.strip()
    if scheme.lower() != "bearer" or not presented:
        raise WireError(
            "unauthenticated", "the Authorization header is not 'Bearer KEY'", headers=challenge
        )
    found = _match(presented, keys)
    if found is None:
        raise WireError("unauthenticated", "the bearer key is not valid here", headers=challenge)
    if write and found.scope != "run":
        raise WireError(
            "forbidden", "this key may only read (scope read); creating runs needs scope run"
        )
    return found


def _match(presented: str, keys: Iterable[ApiKey]) -> ApiKey | None:
    digest = hashlib.sha256(presented.encode("utf-8", "surrogateescape")).digest()
    found: ApiKey | None = None
    for key in keys:  # every key compared, in constant time each
        if hmac.compare_digest(digest, hashlib.sha256(key.key.encode()).digest()):
            found = key
    return found
