"""Secrets written in text that no scanner's rules find: our own rules (R31).

Each rule gives the spans of the secret values in a text, with a reason: a credential key's
value written in the text (JSON that does not parse as a whole, ``'key': 'value'``,
``key=value``), ``Authorization`` / ``Proxy-Authorization`` with any scheme, credential-named
header lines and ``curl -H`` options, cookies, command lines (``-u user:pw``, ``--password``,
``sshpass -p``, ``mysql -pPW``), secrets in URL paths (webhooks, bot URLs), signed-URL
parameters, passwords in URLs, ``Bearer`` / ``Basic`` credentials, and a few token shapes kept
from the first version (``sk-live-``, a private key cut off before its end line). The patterns
have no nested repetition, so Python's ``re`` runs them in linear time.
"""

from __future__ import annotations

import re

from .keys import PLACEHOLDER, URL_SECRET_NAMES, is_a_count, is_credential_key, normalised

__all__ = ["Span", "own_spans"]

REDACTED = "[REDACTED]"

Span = tuple[int, int, str]
"""A secret's place in a text: start, end, reason."""

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
_BEARER = re.compile(r"(?i)\b(?P<scheme>bearer|basic)\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})")
_TOKEN_SIGNAL = re.compile(r"[0-9_~+/=]|[a-z][A-Z]")
"""What an opaque token has and an English word does not: a digit, a ``_~+/=`` or a case change.
Without it ``basic information`` or ``Basic membership`` would read as credentials."""
_CAMEL_CASE_WORDS = re.compile(r"[A-Z]{0,4}[a-z]{2,}(?:[A-Z]{1,4}[a-z]{2,})*[A-Z]{0,4}")
"""Letters that read as words run together (``TypeScript``, ``GitHub``, ``PostgreSQL``): every
lower-case run two letters or more, capitals in runs of four at most. Base64 and random tokens
have lone lower-case letters between capitals (``dXNlcjpwYXNz`` is ``user:pass``)."""
_ONE_TOKEN = re.compile(r"(?=.*(?:[0-9~+/=%]|[a-z][A-Z]))[^\s<>\[\]]{8,}")
"""A value that is one opaque token: eight or more characters, no space, no ``<>[]``
placeholder marks, and a digit, a ``~+/=%`` or a case change (not ``_`` alone, which a
snake_case name such as ``scroll_down`` has)."""
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


_EXPRESSION = ("(", "[", "<")
"""What follows a value that is code, not a secret: a call, an index, type arguments
(``useAuthStore = create<AuthStore>()``)."""
_ATTRIBUTE_PATH = re.compile(r"[A-Za-z_][A-Za-z_]{0,40}(?:\.[A-Za-z_][A-Za-z_]{0,40}){1,5}")
"""An unquoted value that is code: an attribute path with no digit
(``tokenizer.pad_token = tokenizer.eos_token``, ``TOKEN = config.token``)."""


_CODE_VALUE = re.compile(
    r"(?:"
    r"(?:await\s+|new\s+)?[A-Za-z_$][\w$.]*(?:<.*>)?\(.*\)[\w$.()]*"  # a call: getToken()
    r"|[A-Za-z_$][\w$.]*<.*>"  # a type with arguments: React.Dispatch<...>
    r"|[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$]+)+"  # an attribute path: process.env.API_KEY
    r"|[A-Za-z_$][\w$.]*\s*(?:\|\||\?\?|&&)\s*\S.*"  # token || "", key ?? fallback
    r"|(?:true|false|null|undefined)"  # a literal: autoRefreshToken: false,
    r"|(?:string|number|boolean|any|unknown|object|String|Number|Boolean)"
    r"(?:\s*\|\s*(?:null|undefined|string|number))*"  # a type: apiKey: string;
    r")\s*[,;]"
    r"|\{"  # an object literal opens: auth: {
    r"|(?:string|number|boolean|bigint|any|unknown|object)"  # a type at the end of its line,
    r"(?:\s*\|\s*(?:string|number|boolean|null|undefined))*"  # no ";" (generated types)
)
"""A ``name: value`` line's value that is code, not a secret: source text an agent read (a
TypeScript interface member, an object literal's ``apiKey: options.apiKey || "",``), told by
its whole shape and the ``,`` or ``;`` that ends a member or a statement (a credential written
``password: P4ss(w0rd)`` or ``secret: hunter2 || backup`` has none, and is redacted); or an
object literal's opening brace, or a bare type name (generated types with no ``;``, seen on a
real Codex session's Supabase types). Only read so after a name that is an identifier: an HTTP
header's name has a hyphen."""


_EXPRESSION_WORDS = frozenset(
    {"await", "new", "typeof", "function", "async", "yield", "lambda", "require", "import"}
)
"""Words that begin an expression, which a secret is not: ``const credentials = await
setup(...)``, ``apiKey = new Secret(...)``."""


_CAMEL_NAME = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+\s*[,;]")
"""A camelCase name before a comma (``auth: getSession,``): code where the name is not plainly
a secret's (``password: letMeIn,`` is a password)."""
_SECRET_WORDS = ("pass", "pwd", "secret", "token", "key", "cred", "private")


def _names_a_secret(name: str) -> bool:
    low = name.lower()
    return any(word in low for word in _SECRET_WORDS)


def _without_subsection(key: str) -> str:
    """A git configuration key without its subsection: ``branch.<name>.remote`` is
    ``branch.remote`` (``git config --list`` prints them). A subsection is a name someone chose
    (a branch, a remote, a URL), not what the variable holds: ``branch.fix-secrets.remote`` names
    no secret; ``branch.main.token`` still does."""
    section, dot, rest = key.partition(".")
    if not dot or section.lower() not in _GIT_SUBSECTIONED or "." not in rest:
        return key
    return f"{section}.{rest.rsplit('.', 1)[1]}"


_GIT_SUBSECTIONED = frozenset(
    {
        "branch",
        "remote",
        "submodule",
        "url",
        "includeif",
        "difftool",
        "mergetool",
        "merge",
        "diff",
        "filter",
        "worktree",
        "guitool",
        "remotes",
    }
)
"""git's sections whose keys take a subsection (``section.<subsection>.variable``) and whose
variables hold no credential (``http.<url>.extraHeader``, ``credential.<url>.*`` and
``sendemail.<identity>.smtpPass`` may: their keys are judged whole)."""


def _is_code(key: str, match: re.Match[str]) -> bool:
    """Whether an unquoted ``key=value`` value reads as code, not a secret: an attribute path,
    the key's own last name (``self.token = token``), a word that begins an expression, a
    constant's name, or a template's ``${`` (``?token=${token}`` in a JavaScript template
    string)."""
    if "quote" not in match.groupdict() or match.group("quote"):
        return False
    value = match.group("value")
    if value == "$":
        return match.string.startswith("{", match.end("value"))
    return (
        bool(_ATTRIBUTE_PATH.fullmatch(value))
        or value == key.rsplit(".", 1)[-1]
        or value in _EXPRESSION_WORDS
        or _is_constant_of(key, value.rstrip(","))  # (an argument: the comma after it)
    )


def _is_constant_of(key: str, value: str) -> bool:
    """A constant named after the key (``api_key=API_KEY``, ``token=GITHUB_TOKEN``): its name
    holds the key's last word in capitals (``password=HUNTER_TWO`` does not: a password)."""
    if _CONSTANT.fullmatch(value) is None:
        return False
    word = re.split(r"[._-]", key)[-1].upper()
    return bool(word) and word in value


_CONSTANT = re.compile(r"[A-Z]+(?:_[A-Z]+)+")
"""A constant's name, capitals joined by underscores, no digit (``api_key=API_KEY,`` in source
a web search returned): code, not a secret (a token has digits or lower case)."""


def _value_span(match: re.Match[str], reason: str, group: str = "value") -> Span | None:
    value = match.group(group)
    if not value or PLACEHOLDER.match(value) or value == REDACTED:
        return None
    start, end = match.span(group)
    return start, end, reason


def own_spans(text: str) -> list[Span]:
    spans: list[Span | None] = []
    if "=" in text or ":" in text:
        for pattern in _PAIR_PATTERNS:
            for match in pattern.finditer(text):
                key = match.group("key")
                after = text[match.end("value") : match.end("value") + 1]
                credential = is_credential_key(_without_subsection(key))
                credential = credential and after not in _EXPRESSION
                credential = credential and not is_a_count(key, match.group("value"))
                if credential and not _is_code(key, match):
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
            if normalised(name) in URL_SECRET_NAMES:
                spans.append(_value_span(match, f"signed URL parameter {name!r}"))
    if "-" in text:
        for pattern, reason in _COMMAND_LINE:
            spans += [_value_span(m, reason) for m in pattern.finditer(text)]
    for match in _BEARER.finditer(text):
        value = match.group("value")
        if _TOKEN_SIGNAL.search(value) and not _CAMEL_CASE_WORDS.fullmatch(value):
            basic = match.group("scheme").lower() == "basic"
            spans.append(_value_span(match, "Basic credentials" if basic else "bearer token"))
    for reason, pattern in _SHAPES:
        spans += [(m.start(), m.end(), reason) for m in pattern.finditer(text)]
    return [s for s in spans if s is not None]


def _header_spans(match: re.Match[str]) -> list[Span | None]:
    name, value = match.group("name"), match.group("value")
    low = name.lower()
    start = match.start("value")
    if low in ("authorization", "proxy-authorization"):
        auth = _AUTH_VALUE.match(value)
        if auth is None or PLACEHOLDER.match(auth.group("credential")):
            return []
        return [(start + auth.start("credential"), start + len(value), f"{name} header")]
    if low in ("cookie", "set-cookie"):
        pairs = list(_COOKIE_PAIR.finditer(value))[: 1 if low == "set-cookie" else None]
        return [
            (start + c.start("value"), start + c.end("value"), f"{name} header")
            for c in pairs
            if not PLACEHOLDER.match(c.group("value"))
        ]
    credential = is_credential_key(name)
    if not credential and normalised(name) not in URL_SECRET_NAMES - {"key", "code"}:
        return []
    if PLACEHOLDER.match(value) or value == REDACTED:
        return []
    if "-" not in name and (
        _CODE_VALUE.fullmatch(value.rstrip())
        or (not _names_a_secret(name) and _CAMEL_NAME.fullmatch(value.rstrip()))
    ):
        return []
    if not credential and not _ONE_TOKEN.fullmatch(value):
        # a signed-URL or session name (``Signature``, ``Sid``) holds a secret as one opaque
        # token; ``signature: open <path> [<line_number>]`` documents a command
        return []
    return [(start, start + len(value), f"{name} header")]
