"""A fast decoder for the YAML that vcrpy cassettes are written in, never different from PyYAML's.

``load_vcr_yaml(text)`` gives exactly what ``yaml.load(text, Loader=yaml.CSafeLoader)`` gives
(same types, values, key order; floats bit for bit), or ``None`` when the text is outside the
subset below; the caller then decodes it with libyaml. It never raises. Nor does it give what
the workbench refuses in a file (R35: NaN, infinities, integers past 64 bits, lone surrogates,
nesting past ``MAX_DEPTH``): those give ``None``, so the caller's libyaml path reports them.

On cassettes whose bodies are one-line JSON (pydantic-ai's ``parsed_body``) it is about 25x
faster than libyaml's safe loader, because such a line is decoded by ``orjson`` where that is the
same value (``_Decoder.json_flow`` says when), and the lines a cassette repeats (headers,
``uri``, ``method``) are decoded once (``_Decoder.block``); on block-style cassettes about 1.2x
to 2x.

Longer than 400 lines: it is one decoder of one grammar. The block reader (``_Decoder.block``)
is a state machine with its common cases inlined (the speed above is theirs), and the scalar
rules it calls (plain, quoted, literal, flow) are the ones PyYAML's emitter writes; split, each
half would have to be read with the other open.

The subset is what PyYAML's emitter (``Dumper``, ``CDumper``, ``SafeDumper``; block style) writes
for dicts, lists, strings, numbers, booleans, ``None`` and bytes, plus one-line flow collections:

- block mappings ``key: value`` (plain or quoted keys of at most 160 characters on one line) and
  block sequences ``- item``, nested, compact (``- key: value``, ``- - item``) and indentless
  (``key:`` then ``- item`` at the key's column);
- plain scalars, resolved by PyYAML's own implicit resolvers (``yaml_implicit_resolvers``) and
  built by the safe constructor's own methods (``int``, ``float``, ``bool``, ``null``); folded
  over several lines as the emitter writes long ones;
- single-quoted and double-quoted scalars, over several lines, with PyYAML's escapes;
- literal block scalars ``|`` with chomping (``-``/``+``) and indentation indicators;
- ``!!binary`` with a literal or quoted scalar (bytes, through the safe constructor);
- flow collections ``{...}``/``[...]`` that end on the line they start on;
- ``---`` alone on the first line, ``...`` alone at the end.

Anything else gives ``None``: other tags, anchors and aliases, comments, folded scalars (``>``),
complex keys (``?``), directives, several documents, timestamps, merge keys (``<<``), ``=``;
tabs, carriage returns, the Unicode line breaks (U+0085, U+2028, U+2029), a byte order mark,
characters YAML forbids (controls, surrogates), a literal block in text not ending in a line
break; nesting deeper than ``MAX_DEPTH``; and any shape this decoder is not sure of (it is
stricter than YAML where the emitter never goes, e.g. a quoted scalar's continuation lines must
be indented).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Final

import orjson
import yaml  # type: ignore[import-untyped]  # no stubs in the runtime environment

__all__ = ["MAX_DEPTH", "decode_vcr_yaml", "load_vcr_yaml"]

MAX_DEPTH: Final = 200
"""Block and flow collections nested deeper than this give ``None`` (libyaml stops near 1000)."""

_MAX_KEY = 160
"""The longest key text taken (libyaml refuses a simple key of about 1024 characters)."""


class _Unsupported(Exception):
    """The text is outside the subset (or not YAML): the caller decodes it with libyaml."""


_MISSING: Final[Any] = object()

# --- Plain scalars: PyYAML's resolvers and constructors -----------------------------------

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_RESOLVERS: dict[Any, list[tuple[str, re.Pattern[str]]]] = {
    first: list(pairs) for first, pairs in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}
_WILDCARD = _RESOLVERS.get(None, [])
_RESOLVED_FIRST = frozenset(first for first in _RESOLVERS if first)
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_BUILDERS: dict[str, Callable[[Any, Any], Any]] = {
    tag: yaml.CSafeLoader.yaml_constructors[tag]
    for tag in (
        "tag:yaml.org,2002:null",
        "tag:yaml.org,2002:bool",
        "tag:yaml.org,2002:int",
        "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:binary",
    )
}
"""The safe constructor's methods this decoder calls; timestamps, merge keys and ``=`` are not
among them (their scalars give ``None``)."""


def _resolved(text: str) -> Any:
    """A plain scalar's value: the implicit resolvers' tag (the first that matches, tried as
    PyYAML tries them), built by the safe constructor."""
    if text and text[0] not in _RESOLVED_FIRST and not _WILDCARD:
        return text
    tag = _implicit_tag(text)
    return text if tag == _STR else _built(tag, text)


def _implicit_tag(text: str) -> str:
    for tag, pattern in _RESOLVERS.get(text[:1], []) + _WILDCARD:
        if pattern.match(text):
            return tag
    return _STR


def _built(tag: str, text: str) -> Any:
    """A plain scalar built by the safe constructor; a NaN, an infinity or an integer past 64
    bits is ``_Unsupported``: the workbench refuses those (R35), and libyaml's path, where the
    caller then goes, says so with the field."""
    builder = _BUILDERS.get(tag)
    if builder is None or (tag == _INT and len(text) > 70):  # too long to fit, built slowly
        raise _Unsupported(tag)
    value = builder(_CONSTRUCTOR, yaml.ScalarNode(tag, text))
    if type(value) is float and not math.isfinite(value):
        raise _Unsupported(text)
    if type(value) is int and not _INT_MIN <= value <= _INT_MAX:
        raise _Unsupported(text)
    return value


_INT_MIN, _INT_MAX = -(1 << 63), (1 << 64) - 1
"""The integers the workbench reads (``reading``'s bounds)."""


_EMPTY: Final[Any] = _resolved("")
"""An empty value (``key:`` with nothing under it): ``None``."""

_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
"""Characters that cannot start a plain scalar."""


def _plain_text(text: str) -> str:
    """``text`` (one line of a plain scalar in block context) without trailing blanks, or
    ``_Unsupported`` when it is not a whole plain scalar there (an indicator, a comment, a
    ``: `` that would make it a key)."""
    text = text.rstrip(" ")
    first = text[:1]
    if (
        not first
        or first in _INDICATORS
        or (first in "-?:" and text[1:2] in ("", " "))
        or ": " in text
        or " #" in text
        or text[-1] == ":"
    ):
        raise _Unsupported(text)
    return text


def _plain_key(text: str) -> str:
    """A plain key's value (``text`` is what precedes ``: ``); a key that resolves to anything
    but a string (``1``, ``null``, ``true``) is ``_Unsupported``: JSON has no such keys, and
    libyaml's path, where the caller then goes, reports it (R35)."""
    if len(text) > _MAX_KEY or text != text.rstrip(" ") or text[:3] in ("---", "..."):
        raise _Unsupported(text)
    key = _resolved(_plain_text(text))
    if type(key) is not str:
        raise _Unsupported(text)
    return key


# --- Quoted scalars -----------------------------------------------------------------------

_ESCAPES: Final = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A ``\\u`` escape of a surrogate (or text that merely looks like one: ``\\\\ud800``)."""
_ESCAPE = re.compile(r'\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0abtnvfre "/\\N_LP])')


def _unescaped(body: str) -> str:
    """A double-quoted scalar's text between line breaks, its escapes replaced; a backslash that
    starts no escape libyaml reads, or a code point libyaml refuses (a surrogate, past
    U+10FFFF), is ``_Unsupported``."""
    if "\\" not in body:
        return body
    parts = _ESCAPE.split(body)
    out: list[str] = []
    for index, part in enumerate(parts):
        if index % 2 == 0:
            if "\\" in part:
                raise _Unsupported(body)
            out.append(part)
        elif len(part) == 1:
            out.append(_ESCAPES[part])
        else:
            code = int(part[1:], 16)
            if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                raise _Unsupported(body)
            out.append(chr(code))
    return "".join(out)


_DOUBLE_BODY = re.compile(r'(?:[^"\\]++|\\.)*+"')


def _double_end(line: str, start: int) -> int:
    """The index of the ``"`` closing a double-quoted scalar in ``line`` from ``start``, or -1."""
    found = _DOUBLE_BODY.match(line, start)
    return -1 if found is None else found.end() - 1


def _single_end(line: str, start: int) -> int:
    """The index of the ``'`` closing a single-quoted scalar in ``line`` from ``start``, or -1."""
    end = line.find("'", start)
    while end >= 0 and line[end + 1 : end + 2] == "'":
        end = line.find("'", end + 2)
    return end


def _folded_quoted(segments: list[str], double: bool) -> str:
    """A quoted scalar's value from its text between the quotes, one segment a line: the first
    segment keeps its leading blanks and the last its trailing ones; a line break between
    segments is a space, blank lines are line breaks; in double quotes an escaped line break
    (``\\`` ending a line) joins the lines with nothing and ``\\ `` is a kept blank. The
    lines are folded first (a line break becomes the escape ``\\n`` in double quotes), then
    the escapes replaced."""
    if not double:
        return _single_unescaped(_folded_breaks(segments))
    ends = [s.rstrip(" ")[-2:] for s in segments[:-1]]
    if not any(end[-1:] == "\\" for end in ends):
        # No escape at a line's end (libyaml's emitter folds at blanks): as single quotes.
        return _double_unescaped(_folded_breaks(segments).replace("\n", "\\n"))
    if all(end[-1:] == "\\" and end != "\\\\" for end in ends) and all(
        s[-1:] == "\\" for s in segments[:-1]
    ):
        # Python's emitter: each line but the last ends with an escaped line break.
        inner = [s.lstrip(" ")[:-1] for s in segments[1:-1]]
        return _double_unescaped("".join([segments[0][:-1], *inner, segments[-1].lstrip(" ")]))
    last = len(segments) - 1
    out: list[str] = []
    escaped_break = False
    index = 0
    while index <= last:
        piece = segments[index]
        if index:
            breaks = 0
            while index < last and not piece.strip(" "):
                breaks += 1
                index += 1
                piece = segments[index]
            out.append("\\n" * breaks if breaks or escaped_break else " ")
            piece = piece.lstrip(" ")
        if index < last:
            kept = piece.rstrip(" ")
            run = len(kept) - len(kept.rstrip("\\")) if kept[-1:] == "\\" else 0
            escaped_break = run % 2 == 1 and len(kept) == len(piece)
            if escaped_break:
                piece = piece[:-1]
            elif run % 2 == 1:
                piece = piece[: len(kept) + 1]  # an escaped blank ends the line
            else:
                piece = kept
        out.append(piece)
        index += 1
    return _double_unescaped("".join(out))


def _double_unescaped(body: str) -> str:
    """A double-quoted scalar's text (one line) with its escapes replaced. JSON's escapes mean
    the same in YAML, and YAML's others have JSON spellings (``_as_json``): ``orjson`` replaces
    them all when no escape is a surrogate (libyaml refuses those; ``orjson`` would pair them).
    Text ``orjson`` refuses (an escape YAML does not have) goes to ``_unescaped``, which says."""
    if "\\" not in body:
        return body
    if "\\u" in body and _SURROGATE_ESCAPE.search(body):
        raise _Unsupported(body)
    try:
        value = orjson.loads('"' + body + '"')
    except orjson.JSONDecodeError:
        try:
            value = orjson.loads('"' + _json_spelled(body) + '"')
        except orjson.JSONDecodeError:
            return _unescaped(body)
    if type(value) is not str:
        raise _Unsupported(body)
    return value


def _json_spelled(body: str) -> str:
    """``body`` with YAML's escapes that JSON lacks spelled as JSON's. With each escaped
    backslash (``\\\\``) set aside as a NUL (the text holds none), every backslash left
    starts an escape, so plain replacing is exact; ``\\U`` (a code point past 16 bits) goes
    through ``_YAML_ONLY_ESCAPE``."""
    present = set(_YAML_ONLY_HINT.findall(body))
    if not present:
        return body
    if "\\U" in present:
        return _YAML_ONLY_ESCAPE.sub(_as_json, body)
    text = body.replace("\\\\", "\0")
    for yaml_escape in present:
        text = text.replace(yaml_escape, _SPELLINGS[yaml_escape])
    return text.replace("\0", "\\\\")


_YAML_ONLY_HINT = re.compile(r"\\[ xeav0N_LPU]")
_YAML_ONLY_ESCAPE = re.compile(
    r"(?<!\\)(\\++)(?:([ eav0N_LP])|x([0-9a-fA-F]{2})|U([0-9a-fA-F]{8}))"
)
"""An escape YAML has and JSON has not, when the run of backslashes is odd (the others are
escaped backslashes). A match starts at a run's first backslash only and takes the whole run
(possessive): the letter after the run decides, and a long run of backslashes followed by none
is passed over in one step, not tried again from each of its backslashes (quadratic)."""
_JSON_SPELLING = {
    " ": " ",
    "e": "\\u001b",
    "a": "\\u0007",
    "v": "\\u000b",
    "0": "\\u0000",
    "N": "\\u0085",
    "_": "\\u00a0",
    "L": "\\u2028",
    "P": "\\u2029",
}


_SPELLINGS = {"\\x": "\\u00"} | {"\\" + letter: json for letter, json in _JSON_SPELLING.items()}


def _as_json(found: re.Match[str]) -> str:
    """A YAML-only escape spelled for JSON (a character past U+FFFF as itself)."""
    run, letter, byte, wide = found.groups()
    if len(run) % 2 == 0:
        return found.group()  # escaped backslashes, then a plain character
    pairs = run[:-1]
    if letter is not None:
        return str(pairs + _JSON_SPELLING[letter])
    if byte is not None:
        return f"{pairs}\\u00{byte}"
    code = int(wide, 16)
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        raise _Unsupported(wide)
    return f"{pairs}\\u{code:04x}" if code < 0x10000 else pairs + chr(code)


def _single_unescaped(body: str) -> str:
    return body.replace("''", "'")


_BREAKS = re.compile(r"\n+")


def _folded_breaks(segments: list[str]) -> str:
    """A quoted scalar's lines (no escapes) folded: the blanks around each line break dropped,
    a lone line break a space, ``n`` + 1 line breaks (``n`` blank lines) ``n``."""
    inner = [s.strip(" ") for s in segments[1:-1]]
    text = "\n".join([segments[0].rstrip(" "), *inner, segments[-1].lstrip(" ")])
    if "\n\n" not in text:
        return text.replace("\n", " ")
    return _BREAKS.sub(_folded_run, text)


def _folded_run(found: re.Match[str]) -> str:
    breaks = found.group()
    return breaks[1:] or " "


_SHALLOW: dict[int, re.Pattern[str]] = {}


def _shallow_line(parent: int) -> re.Pattern[str]:
    """A line (after a line break) indented ``parent`` columns or fewer and not blank, or a
    document marker: what may not go on a scalar in a collection at column ``parent``."""
    pattern = _SHALLOW.get(parent)
    if pattern is None:
        shallow = f"\\n {{0,{parent}}}[^ \\n]|" if parent >= 0 else ""
        pattern = _SHALLOW[parent] = re.compile(shallow + r"\n(?:---|\.\.\.)")
    return pattern


def _quoted_key(content: str) -> tuple[str, str]:
    """A quoted key at the start of ``content``, and what follows its ``:``."""
    double = content[0] == '"'
    end = _double_end(content, 1) if double else _single_end(content, 1)
    if end < 0 or end > _MAX_KEY:
        raise _Unsupported(content)
    after = content[end + 1 :].lstrip(" ")
    if after[:1] != ":" or after[1:2] not in ("", " "):
        raise _Unsupported(content)
    body = content[1:end]
    key = _double_unescaped(body) if double else _single_unescaped(body)
    return key, after[2:]


def _is_key_line(content: str) -> bool:
    """Whether a block line's content (from its first non-blank) starts a mapping entry."""
    first = content[0]
    if first == '"' or first == "'":
        end = _double_end(content, 1) if first == '"' else _single_end(content, 1)
        if end < 0:
            return False
        after = content[end + 1 :].lstrip(" ")
        return after[:1] == ":" and after[1:2] in ("", " ")
    return ": " in content or content[-1] == ":"


# --- Flow collections on one line ----------------------------------------------------------

_FLOW_PLAIN = re.compile(r"(?:[^\s,\[\]{}#&*!|>'\"%@`?:\-]|-(?=[^\s,\[\]{}:?#]))[^,\[\]{}:#?'\"]*")
"""A plain scalar inside a flow collection, without ``:``, ``#``, ``?`` or quotes (stricter
than YAML) and possibly with trailing blanks."""
_JSON_SECOND = frozenset('"{[]} -0123456789tfn')
_JSON_START = frozenset(('{"', '["'))
_RISKY_NUMBER = re.compile(r"[:\[,] *-?[0-9]+(?:\.[0-9]+)?[eE]|[:\[,] *-?[0-9]{19}")
"""A JSON number that YAML 1.1 reads differently (``1e5`` is a string there, ``1.5e5`` too;
``1.5e+5`` a float) or that orjson turns into a float (past 64 bits)."""
_BLANKS_BEFORE_COLON = re.compile(r'" {20,}:')


def _keys_short(value: Any) -> bool:
    """Whether every key in ``value`` (decoded JSON) has at most ``_MAX_KEY`` characters: its
    JSON text then has under 1,000 (6 for an escape), as libyaml's simple keys must."""
    todo = [value]
    while todo:
        item = todo.pop()
        if type(item) is dict:
            for key, inner in item.items():
                if len(key) > _MAX_KEY:
                    return False
                if type(inner) is dict or type(inner) is list:
                    todo.append(inner)
        else:
            todo.extend(inner for inner in item if type(inner) is dict or type(inner) is list)
    return True


def _is_flat(value: Any) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return not any(isinstance(item, dict | list) for item in items)


# --- The decoder ---------------------------------------------------------------------------


_CLOSED, _PENDING, _PLAIN, _COPY = 0, 1, 2, 3
"""What an entry leaves open: nothing; an empty value (a block collection may follow on the lines
below); a one-line plain scalar (it may go on over the lines below). ``_COPY`` is ``_CLOSED``
for a remembered line whose value is a collection (each use gets its own copy)."""

_DEEP_FROM = MAX_DEPTH - 4
"""A collection that may reach this depth, counted with the collections around it, sets
:attr:`_Decoder.deep` (four levels of room for how they are counted)."""

_LINE_CACHE_LINE = 100
"""Lines shorter than this are remembered once decoded (hashing long unique lines costs)."""
_CACHE_ENTRIES = 65536

_Seen = tuple[int, int, Any, Any, int, str]
"""A remembered line: its column, the column of the value after its ``- `` (-1 for a mapping
entry), its key (``_MISSING`` for a sequence item), its value, what it leaves open, and the
text of its plain value."""


class _Decoder:
    """One document's lines, decoded top-down: the block collections by one loop over the lines
    with a stack of the open collections; scalars and flow collections by methods that return a
    value and the index of the first line they did not consume."""

    __slots__ = (
        "deep",
        "flows",
        "keys",
        "lines",
        "n",
        "number_risk",
        "plains",
        "prefixes",
        "surrogate_risk",
        "written",
    )

    def __init__(self, lines: list[str], number_risk: bool, surrogate_risk: bool) -> None:
        self.lines = lines
        self.n = len(lines)
        self.number_risk = number_risk
        self.surrogate_risk = surrogate_risk
        self.plains: dict[str, Any] = {}
        self.keys: dict[str, Any] = {}
        self.flows: dict[str, Any] = {}
        self.prefixes: dict[str, tuple[int, Any]] = {}
        """Long lines' ``key: `` (with the indentation) already decoded: column and key."""
        self.written: dict[str, _Seen] = {}
        """Short lines already decoded (cassettes repeat their headers)."""
        self.deep = False
        """Whether a collection may nest, with the collections around it, about as deep as
        ``MAX_DEPTH``: a block collection or a YAML flow collection near it, or a JSON flow
        orjson decoded (which takes 1024 levels) whose length or brackets allow it. False, and
        the value cannot, so the caller need not look (:func:`decode_vcr_yaml`)."""

    # The document ---------------------------------------------------------------------

    def document(self) -> Any:
        lines, n = self.lines, self.n
        i = self.skip_blank(0)
        if i < n and lines[i] == "---":
            i = self.skip_blank(i + 1)
        if i >= n:
            return None
        line = lines[i]
        content = line.lstrip(" ")
        column = len(line) - len(content)
        if (column == 0 and content[:3] in ("---", "...")) or content[0] == "%":
            raise _Unsupported(content)
        root: Any
        if content[0] == "-" and content[1:2] in ("", " "):
            root = []
        elif content[0] not in "{[" and _is_key_line(content):
            root = {}
        else:
            root, i = self.root_scalar(i, content)
            self.end(i)
            return root
        self.end(self.block(i, column, root))
        return root

    def end(self, i: int) -> None:
        """Only blank lines, or ``...`` then blank lines, from line ``i``."""
        lines, n = self.lines, self.n
        i = self.skip_blank(i)
        if i < n and (lines[i].rstrip(" ") != "..." or self.skip_blank(i + 1) < n):
            raise _Unsupported(lines[i])

    def root_scalar(self, i: int, content: str) -> tuple[Any, int]:
        if content[0] in _INDICATORS:
            return self.special(i, content, -1, 1)
        text = _plain_text(content)
        j = self.skip_blank(i + 1)
        if j < self.n and self.lines[j].rstrip(" ") != "...":
            text, j = self.plain_lines(text, i + 1, -1)
        return _resolved(text), j

    def skip_blank(self, i: int) -> int:
        lines, n = self.lines, self.n
        while i < n and not lines[i].lstrip(" "):
            i += 1
        return i

    # Block collections ----------------------------------------------------------------

    def block(self, i: int, col: int, node: Any) -> int:
        """Fill ``node`` (the root collection, whose first entry is line ``i`` at column
        ``col``) from the lines; the index of the line where the document ends.

        One pass over the lines with a stack of the open collections (column, collection,
        whether a mapping, whether an indentless sequence). A line's column closes the
        collections indented more, or opens one as the value of the entry left empty above it.
        Short lines met before are not decoded again (``written``), nor the keys of long lines
        (``prefixes``)."""
        lines, n = self.lines, self.n
        keys, plains, written, prefixes = self.keys, self.plains, self.written, self.prefixes
        quick_json = not (self.number_risk or self.surrogate_risk)
        loads, json_error = orjson.loads, orjson.JSONDecodeError
        stack: list[tuple[int, Any, bool, bool]] = []
        push, pop = stack.append, stack.pop
        is_map = type(node) is dict
        indentless = False
        last = _CLOSED
        last_key: Any = None
        last_text = ""
        last_line = 0
        while i < n:
            line = lines[i]
            i += 1
            if len(line) < _LINE_CACHE_LINE:
                seen = written.get(line)
                if seen is not None:
                    column, item_col, key, value, state, text = seen
                    if column == col and item_col < 0 and is_map:
                        # The most common line: a remembered entry of the open mapping.
                        if state == _COPY:
                            node[key] = value.copy()
                            last = _CLOSED
                        else:
                            node[key] = value
                            last, last_key, last_text, last_line = state, key, text, i - 1
                        continue
                    # A remembered line elsewhere: align the collections to its column.
                    if column < col:
                        while column < col:
                            col, node, is_map, indentless = pop()
                        if column != col:
                            raise _Unsupported(line)
                        last = _CLOSED
                    elif column > col:
                        if last == _PLAIN:
                            i = self.fold_plain(node, last_key, last_text, last_line, col)
                            last = _CLOSED
                            continue
                        if last != _PENDING:
                            raise _Unsupported(line)
                        new: Any = [] if item_col >= 0 else {}
                        node[last_key] = new
                        push((col, node, is_map, indentless))
                        node, is_map, indentless, col = new, item_col < 0, False, column
                        last = _CLOSED
                    if item_col < 0:
                        if not is_map:
                            if not indentless:
                                raise _Unsupported(line)
                            col, node, is_map, indentless = pop()
                        node[key] = value.copy() if state == _COPY else value
                        last_key = key
                    else:
                        if is_map:
                            if last != _PENDING:
                                raise _Unsupported(line)
                            new = []
                            node[last_key] = new
                            push((col, node, is_map, indentless))
                            node, is_map, indentless = new, False, True
                        if key is _MISSING:
                            node.append(value.copy() if state == _COPY else value)
                            last_key = len(node) - 1
                        else:
                            new = {}
                            node.append(new)
                            push((col, node, is_map, indentless))
                            node, is_map, indentless, col = new, True, False, item_col
                            node[key] = value.copy() if state == _COPY else value
                            last_key = key
                    if len(stack) >= _DEEP_FROM:
                        self.deep = True
                        if len(stack) > MAX_DEPTH:
                            raise _Unsupported("too deep")
                    last = _CLOSED if state == _COPY else state
                    last_text = text
                    last_line = i - 1
                    continue
            elif quick_json:
                # A long line: ``key: {JSON}`` under a remembered key of the open mapping.
                pos = line.find(": ") + 2
                if pos > 2 and len(line) - pos <= 400 and line[pos : pos + 2] in _JSON_START:
                    known = prefixes.get(line[:pos])
                    if known is not None and known[0] == col and is_map:
                        try:
                            node[known[1]] = loads(line[pos:])
                            if len(stack) + (len(line) - pos) // 2 >= _DEEP_FROM:
                                self.deep = True  # (a level takes two characters)
                            last = _CLOSED
                            continue
                        except json_error:
                            pass
            # Any other line: its column, the collections aligned to it.
            pad = " " * col
            if not (line.startswith(pad) and line[col : col + 1] > " "):
                content = line.lstrip(" ")
                if not content:
                    continue
                column = len(line) - len(content)
                if column > col:
                    if last == _PLAIN:
                        i = self.fold_plain(node, last_key, last_text, last_line, col)
                        last = _CLOSED
                        continue
                    dash = content[0] == "-" and content[1:2] in ("", " ")
                    if last != _PENDING or (
                        not dash and (content[0] in "{[" or not _is_key_line(content))
                    ):
                        raise _Unsupported(line)  # (a scalar on the next line: never emitted)
                    new = [] if dash else {}
                    node[last_key] = new
                    push((col, node, is_map, indentless))
                    if len(stack) >= _DEEP_FROM:
                        self.deep = True
                        if len(stack) > MAX_DEPTH:
                            raise _Unsupported("too deep")
                    node, is_map, indentless, col = new, not dash, False, column
                elif column < col:
                    while column < col:
                        if not stack:
                            raise _Unsupported(line)
                        col, node, is_map, indentless = pop()
                    if column != col:
                        raise _Unsupported(line)
                pad = " " * col
                last = _CLOSED
            # The entry at the column of the open collection.
            remember = (
                len(line) < _LINE_CACHE_LINE
                and line.startswith(pad)  # the line's own column is the collection's
                and len(written) < _CACHE_ENTRIES
            )
            dash_col = -1
            compact = False  # the entry is inside a ``- `` item of this line (``- key: value``)
            while True:
                if not is_map:
                    if line[col] != "-" or line[col + 1 : col + 2] not in ("", " "):
                        if indentless:
                            col, node, is_map, indentless = pop()
                            last = _CLOSED
                            continue
                        if col == 0 and line[:3] in ("---", "..."):
                            return i - 1
                        raise _Unsupported(line)
                    item = line[col + 2 :]
                    if item[:1] == " ":
                        item = item.lstrip(" ")
                    if not item:
                        node.append(_EMPTY)
                        last, last_key = _PENDING, len(node) - 1
                        break
                    first = item[0]
                    item_col = len(line) - len(item)
                    in_line = first == "-" and item[1:2] in ("", " ")  # ``- - item``
                    if in_line or (
                        (first not in _INDICATORS or first == "'" or first == '"')
                        and _is_key_line(item)
                    ):
                        new = [] if in_line else {}
                        node.append(new)
                        push((col, node, is_map, indentless))
                        if len(stack) >= _DEEP_FROM:
                            self.deep = True
                            if len(stack) > MAX_DEPTH:
                                raise _Unsupported("too deep")
                        compact = True
                        if remember and dash_col == -1 and not in_line:
                            dash_col = col  # remembered as a compact entry of this sequence
                        else:
                            remember = False
                        node, is_map, indentless, col = new, not in_line, False, item_col
                        last = _CLOSED
                        continue
                    remember = remember and dash_col == -1
                    if first in _INDICATORS:
                        start = i
                        value, i = self.special(i - 1, item, col, len(stack) + 1)
                        node.append(value)
                        last = _CLOSED
                        if remember and i == start and (first == "'" or first == '"'):
                            written[line] = (col, item_col, _MISSING, value, _CLOSED, "")
                        break
                    value = plains.get(item, _MISSING) if len(item) < 256 else _MISSING
                    if value is _MISSING:
                        value = _resolved(_plain_text(item))
                        if len(item) < 256 and len(plains) < _CACHE_ENTRIES:
                            plains[item] = value
                    node.append(value)
                    last, last_key, last_text, last_line = _PLAIN, len(node) - 1, item, i - 1
                    if remember:
                        written[line] = (col, item_col, _MISSING, value, _PLAIN, item)
                    break
                # A mapping entry.
                first = line[col]
                if first == "-" and line[col + 1 : col + 2] in ("", " "):
                    if last != _PENDING:
                        raise _Unsupported(line)
                    new = []
                    node[last_key] = new
                    push((col, node, is_map, indentless))
                    if len(stack) >= _DEEP_FROM:
                        self.deep = True
                        if len(stack) > MAX_DEPTH:
                            raise _Unsupported("too deep")
                    node, is_map, indentless = new, False, True
                    last = _CLOSED
                    continue
                if first == '"' or first == "'":
                    key, rest = _quoted_key(line[col:])
                else:
                    pos = line.find(": ", col)
                    if pos < 0:
                        if line[-1] != ":":
                            if col == 0 and line[:3] in ("...", "---"):
                                return i - 1
                            raise _Unsupported(line)
                        ktext = line[col:-1]
                        rest = ""
                    else:
                        ktext = line[col:pos]
                        rest = line[pos + 2 :]
                    key = keys.get(ktext, _MISSING)
                    if key is _MISSING:
                        key = keys[ktext] = _plain_key(ktext)
                    if (
                        pos > 0
                        and not compact  # the key starts the line: its prefix says where
                        and len(line) >= _LINE_CACHE_LINE
                        and line.startswith(pad)
                        and len(prefixes) < _CACHE_ENTRIES
                    ):
                        prefixes[line[: pos + 2]] = (col, key)
                if rest[:1] == " ":
                    rest = rest.lstrip(" ")
                # Remembered as (column, column after "- ", key, value, state, plain text).
                where = (col, -1) if dash_col == -1 else (dash_col, col)
                if not rest:
                    node[key] = _EMPTY
                    last, last_key = _PENDING, key
                    if remember:
                        written[line] = (*where, key, _EMPTY, _PENDING, "")
                    break
                first = rest[0]
                if first == "{" or first == "[":
                    value = _MISSING
                    if rest[1:2] in _JSON_SECOND:
                        if quick_json and len(rest) <= 400:
                            try:
                                value = loads(rest)
                            except json_error:
                                value = _MISSING
                            if len(stack) + len(rest) // 2 >= _DEEP_FROM:
                                self.deep = True
                        else:
                            value = self.json_flow(rest, len(stack) + 1)
                    if value is _MISSING:
                        value = self.flow(rest.rstrip(" "), len(stack) + 1)
                    node[key] = value
                    last = _CLOSED
                    if remember and _is_flat(value):
                        written[line] = (*where, key, value.copy(), _COPY, "")
                    break
                if first in _INDICATORS:
                    start = i
                    value, i = self.special(i - 1, rest, col, len(stack) + 1)
                    node[key] = value
                    last = _CLOSED
                    if remember and i == start and (first == "'" or first == '"'):
                        written[line] = (*where, key, value, _CLOSED, "")
                    break
                value = plains.get(rest, _MISSING) if len(rest) < 256 else _MISSING
                if value is _MISSING:
                    value = _resolved(_plain_text(rest))
                    if len(rest) < 256 and len(plains) < _CACHE_ENTRIES:
                        plains[rest] = value
                node[key] = value
                last, last_key, last_text, last_line = _PLAIN, key, rest, i - 1
                if remember:
                    written[line] = (*where, key, value, _PLAIN, rest)
                break
        return i

    def fold_plain(self, node: Any, key: Any, first: str, line: int, col: int) -> int:
        """The plain scalar ``first`` (``node[key]``, line ``line``) goes on over the lines
        below: set its folded value; the index of the first line after it."""
        text, i = self.plain_lines(_plain_text(first), line + 1, col)
        node[key] = _resolved(text)
        return i

    # Scalars ------------------------------------------------------------------------

    def plain_lines(self, first: str, i: int, parent: int) -> tuple[str, int]:
        """A plain scalar folded over lines: ``first`` then the lines from ``i`` indented more
        than ``parent`` (a line break is a space, ``n`` blank lines ``n`` line breaks)."""
        lines, n = self.lines, self.n
        pieces = [first]
        blank = 0
        while i < n:
            line = lines[i]
            content = line.lstrip(" ")
            if not content:
                blank += 1
                i += 1
                continue
            column = len(line) - len(content)
            if column <= parent or (column == 0 and content[:3] in ("---", "...")):
                break
            if content[0] == "#":
                raise _Unsupported(content)
            content = content.rstrip(" ")
            if ": " in content or " #" in content or content[-1] == ":":
                raise _Unsupported(content)
            pieces.append("\n" * blank if blank else " ")
            pieces.append(content)
            blank = 0
            i += 1
        return "".join(pieces), i

    def special(self, i: int, text: str, parent: int, depth: int) -> tuple[Any, int]:
        """A scalar or flow collection starting with an indicator: ``text`` is the rest of
        line ``i`` and ``parent`` the column of the collection holding it (-1 at the root)."""
        first = text[0]
        if first == "{" or first == "[":
            return self.flow(text.rstrip(" "), depth), i + 1
        if first == "'" or first == '"':
            return self.quoted(i, text, parent)
        if first == "|":
            return self.literal(i, text, parent)
        if first == "!" and text.startswith("!!binary "):
            rest = text[9:].lstrip(" ")
            if rest[:1] in ("|", "'", '"'):
                string, j = self.special(i, rest, parent, depth)
                return _built("tag:yaml.org,2002:binary", string), j
        raise _Unsupported(text)

    def quoted(self, i: int, text: str, parent: int) -> tuple[str, int]:
        """A quoted scalar starting ``text`` (the rest of line ``i``), over the lines below
        until its closing quote (each indented more than ``parent``)."""
        double = text[0] == '"'
        quote = text[0]
        end = _double_end(text, 1) if double else _single_end(text, 1)
        if end >= 0:
            if text[end + 1 :].strip(" "):
                raise _Unsupported(text)
            body = text[1:end]
            return (_double_unescaped(body) if double else _single_unescaped(body)), i + 1
        lines, n = self.lines, self.n
        j = i + 1
        while True:
            if j >= n:
                raise _Unsupported("unterminated quoted scalar")
            line = lines[j]
            if quote in line:
                end = _double_end(line, 0) if double else _single_end(line, 0)
                if end >= 0:
                    break
            j += 1
        if line[end + 1 :].strip(" "):
            raise _Unsupported(line)
        below = lines[i + 1 : j]
        below.append(line[:end])
        if _shallow_line(parent).search("\n" + "\n".join(below)):
            raise _Unsupported(line)  # a line not indented enough, or a document marker
        if double and ("\\" in text or any("\\" in segment for segment in below)):
            return _folded_quoted([text[1:], *below], double), j + 1
        folded = _folded_breaks([text[1:], *below])
        return (folded if double else _single_unescaped(folded)), j + 1

    _HEADER = re.compile(r"\|(?:([1-9])([-+]?)|([-+])([1-9])?)?")

    def literal(self, i: int, text: str, parent: int) -> tuple[str, int]:
        """A literal block scalar (``|``, ``|-``, ``|+``, ``|2``...) whose header is ``text``."""
        header = self._HEADER.fullmatch(text.rstrip(" "))
        if header is None:
            raise _Unsupported(text)
        digit = header.group(1) or header.group(4)
        chomp = header.group(2) or header.group(3) or ""
        lines, n = self.lines, self.n
        if digit:
            indent = max(parent, 0) + int(digit)
        else:
            widest = 0
            j = i + 1
            while j < n and not lines[j].lstrip(" "):
                widest = max(widest, len(lines[j]))
                j += 1
            first = len(lines[j]) - len(lines[j].lstrip(" ")) if j < n else 0
            if widest > first and j < n:
                raise _Unsupported("leading blank line wider than the text")
            indent = max(parent + 1, 1, widest, first)
        pad = " " * indent
        chunks: list[str] = []
        breaks = 0
        seen = False
        j = i + 1
        while j < n:
            line = lines[j]
            if line.startswith(pad) and len(line) > indent:
                if seen:
                    breaks += 1
                if breaks:
                    chunks.append("\n" * breaks)
                chunks.append(line[indent:])
                seen = True
                breaks = 0
            elif not line.strip(" "):
                breaks += 1
            else:
                break
            j += 1
        if chomp != "-" and seen:
            chunks.append("\n")
        if chomp == "+" and breaks:
            chunks.append("\n" * breaks)
        return "".join(chunks), j

    # Flow collections ---------------------------------------------------------------

    def flow(self, text: str, depth: int) -> Any:
        """The flow collection that is the whole of ``text`` (one line, no trailing blanks)."""
        if text == "{}":
            return {}
        if text == "[]":
            return []
        if text[1:2] in _JSON_SECOND:
            value = self.json_flow(text, depth)
            if value is not _MISSING:
                return value
        cached = self.flows.get(text)
        if cached is not None:
            return cached.copy()
        value, pos = self.flow_node(text, 0, depth)
        if pos != len(text):
            raise _Unsupported(text)
        if _is_flat(value):
            self.flows[text] = value.copy()
        return value

    def json_flow(self, text: str, depth: int) -> Any:
        """``orjson``'s value for ``text`` where it is YAML's, else ``_MISSING`` (``depth``:
        the collections around it, for :attr:`deep`).

        JSON text is a YAML flow collection of the same value except for: numbers with an
        exponent (YAML 1.1 reads ``1e5`` and ``1.5e5`` as strings), integers past 64 bits
        (orjson makes them floats), ``\\u`` escapes of surrogates (libyaml refuses them),
        keys of about 1024 characters (libyaml refuses such a simple key) and nesting near
        libyaml's limit. Text with any of those is left to ``flow_node``. Control characters,
        tabs and the Unicode line breaks were refused for the whole document already; both
        read duplicate keys alike (the first key's place, the last value)."""
        if self.surrogate_risk and "\\u" in text and _SURROGATE_ESCAPE.search(text):
            return _MISSING
        if self.number_risk and _RISKY_NUMBER.search(text):
            return _MISSING
        size = len(text)
        levels = size // 2  # at most: a level takes two characters
        if size > 400:
            levels = text.count("[") + text.count("{")
            if levels > 200:
                return _MISSING
        if size > 1000 and _BLANKS_BEFORE_COLON.search(text):
            return _MISSING
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return _MISSING
        if depth + levels >= _DEEP_FROM:
            self.deep = True
        return value if size <= 1000 or _keys_short(value) else _MISSING

    def flow_node(self, text: str, pos: int, depth: int) -> tuple[Any, int]:
        first = text[pos]
        if first == "{":
            return self.flow_mapping(text, pos, depth + 1)
        if first == "[":
            return self.flow_sequence(text, pos, depth + 1)
        if first == '"' or first == "'":
            return self.flow_quoted(text, pos)
        match = _FLOW_PLAIN.match(text, pos)
        if match is None:
            raise _Unsupported(text)
        return _resolved(match.group().rstrip(" ")), match.end()

    def flow_quoted(self, text: str, pos: int) -> tuple[str, int]:
        if text[pos] == '"':
            end = _double_end(text, pos + 1)
            if end < 0:
                raise _Unsupported(text)
            return _double_unescaped(text[pos + 1 : end]), end + 1
        end = _single_end(text, pos + 1)
        if end < 0:
            raise _Unsupported(text)
        return _single_unescaped(text[pos + 1 : end]), end + 1

    def flow_sequence(self, text: str, pos: int, depth: int) -> tuple[list[Any], int]:
        if depth >= _DEEP_FROM:
            self.deep = True
            if depth > MAX_DEPTH:
                raise _Unsupported("too deep")
        result: list[Any] = []
        pos = _skip_spaces(text, pos + 1)
        if text[pos : pos + 1] == "]":
            return result, pos + 1
        while True:
            value, pos = self.flow_node(text, pos, depth)
            result.append(value)
            pos = _skip_spaces(text, pos)
            mark = text[pos : pos + 1]
            if mark == "]":
                return result, pos + 1
            if mark != ",":
                raise _Unsupported(text)
            pos = _skip_spaces(text, pos + 1)
            if text[pos : pos + 1] in ("]", ""):
                raise _Unsupported(text)

    def flow_mapping(self, text: str, pos: int, depth: int) -> tuple[dict[Any, Any], int]:
        if depth >= _DEEP_FROM:
            self.deep = True
            if depth > MAX_DEPTH:
                raise _Unsupported("too deep")
        result: dict[Any, Any] = {}
        pos = _skip_spaces(text, pos + 1)
        if text[pos : pos + 1] == "}":
            return result, pos + 1
        while True:
            start = pos
            first = text[pos : pos + 1]
            if first == '"' or first == "'":
                key, pos = self.flow_quoted(text, pos)
                pos = _skip_spaces(text, pos)
                if text[pos : pos + 1] != ":":
                    raise _Unsupported(text)
            else:
                match = _FLOW_PLAIN.match(text, pos)
                if match is None or text[match.end() : match.end() + 2] != ": ":
                    raise _Unsupported(text)
                key = _resolved(match.group().rstrip(" "))
                if type(key) is not str:
                    raise _Unsupported(text)  # JSON has only string keys (R35)
                pos = match.end()
            if pos - start > _MAX_KEY:
                raise _Unsupported(text)
            pos = _skip_spaces(text, pos + 1)
            if text[pos : pos + 1] in (",", "}", ""):
                raise _Unsupported(text)  # an empty value: valid, never emitted
            value, pos = self.flow_node(text, pos, depth)
            result[key] = value
            pos = _skip_spaces(text, pos)
            mark = text[pos : pos + 1]
            if mark == "}":
                return result, pos + 1
            if mark != ",":
                raise _Unsupported(text)
            pos = _skip_spaces(text, pos + 1)
            if text[pos : pos + 1] in ("}", ""):
                raise _Unsupported(text)


def _skip_spaces(text: str, pos: int) -> int:
    while text[pos : pos + 1] == " ":
        pos += 1
    return pos


# --- The whole text --------------------------------------------------------------------------

_REFUSED_UTF8 = re.compile(rb"\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]|\xef(?:\xbb\xbf|\xbf[\xbe\xbf])")
"""Characters past ASCII that give ``None``, in UTF-8: C1 controls and U+0085 (a line break in
YAML), the line and paragraph separators, a byte order mark, U+FFFE and U+FFFF. (Surrogates
cannot be encoded at all.)"""


def _byte_classes() -> bytes:
    table = bytearray(b"a" * 256)
    for byte in range(0x20):
        table[byte] = 0
    table[0x7F] = 0
    table[ord("\n")] = ord("\n")
    for digit in b"0123456789":
        table[digit] = ord("0")
    for mark in b".eE":
        table[mark] = ord("e")
    return bytes(table)


_CLASSES = _byte_classes()
"""Bytes by class: controls (tab and carriage return included) to NUL, digits to ``0``, ``.``
and ``e``/``E`` to ``e``, the rest to ``a``; one pass shows what the whole text holds."""


_DIGIT_THEN_MARK = re.compile(b"0e").search
"""``b"0e" in classes``, about twice as fast: ``re`` finds a literal by its own search, where
``bytes.__contains__`` of a two-byte needle whose last byte is common (``e``) is slow."""


def _scan(text: str) -> tuple[bool, bool] | None:
    """Whether ``text`` may hold a JSON number that YAML reads differently (an exponent, a
    fraction, 19 digits or more) and whether it holds a ``\\u`` escape; None when it holds a
    character outside the subset. In slices (the passes stay in the processor's cache)."""
    number_risk = escape_risk = False
    size = 1 << 15
    for start in range(0, len(text), size):
        piece = text[start : start + size + 20]
        data = piece.encode("utf-8")
        if len(data) != len(piece) and _REFUSED_UTF8.search(data):
            return None
        classes = data.translate(_CLASSES)
        if b"\0" in classes:
            return None
        if not number_risk:
            number_risk = _DIGIT_THEN_MARK(classes) is not None or b"0000000000000000000" in classes
        if not escape_risk:
            escape_risk = b"\\" in data and b"\\u" in data
    return number_risk, escape_risk


def load_vcr_yaml(text: str) -> Any | None:
    """The value PyYAML's safe loader gives for ``text``, when ``text`` is within the subset of
    YAML that PyYAML's emitter writes for vcrpy cassettes; None for anything outside the subset
    (the caller then uses libyaml). Never a different value from ``yaml.safe_load``."""
    return decode_vcr_yaml(text)[0]


def decode_vcr_yaml(text: str) -> tuple[Any | None, bool]:
    """:func:`load_vcr_yaml`'s value, and whether it may nest as deep as ``MAX_DEPTH`` (False:
    it cannot, and a depth check of it would find nothing).

    Block collections and the YAML flow collections this module parses are refused past
    ``MAX_DEPTH`` and flag the value from four levels before it; a JSON flow orjson decodes
    (up to 1024 levels) is bounded by its brackets, or by its length where they are not counted
    (a level takes two characters), with the collections around it."""
    try:
        if not isinstance(text, str):
            return None, False
        if not text.endswith("\n"):
            if "|" in text:  # a literal block's last line break would depend on it
                return None, False
            text += "\n"
        found = _scan(text)
        if found is None:
            return None, False
        lines = text.split("\n")
        lines.pop()
        decoder = _Decoder(lines, *found)
        return decoder.document(), decoder.deep
    except Exception:  # _Unsupported, and anything PyYAML's constructor raises
        return None, False
