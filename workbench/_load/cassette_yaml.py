"""A YAML cassette read safely (R35): what vcrpy writes by ``vcr_yaml``, the rest by PyYAML.

``load_yaml`` gives the decoded cassette, or raises :class:`LoadError` naming the line (YAML
that does not parse, text that is not UTF-8, a control character) or the field (a value the
workbench refuses in a file: NaN, an infinity, an integer past 64 bits, a lone surrogate,
nesting past ``MAX_DEPTH``). No alias is expanded (a YAML bomb grows through them) and no
Python object is built: a ``!!python/...`` tag is read as the plain data under it.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs in the runtime environment

from .reading import decoded_estimate, refuse_dense, value_problem
from .records import LoadError, LoadProblem
from .vcr_yaml import decode_vcr_yaml
from .xai_grpc import drop_raw

__all__ = ["MAX_YAML_BYTES", "load_yaml", "looks_like_yaml_cassette"]

MAX_YAML_BYTES = 32 * 1024 * 1024
"""The most YAML that PyYAML's loader reads (what ``vcr_yaml`` reads, vcrpy's cassettes, may be
as large as any file). Its values are not counted as JSON's are (``reading.MAX_DECODED_RATIO``),
and a document of empty collections (``- {}`` lines) takes 33 times its size in memory; the
largest real YAML cassette seen is 129 KB."""


class _NoAliases(yaml.SafeLoader):  # type: ignore[misc]
    """The safe loader with anchors and aliases refused (a YAML bomb expands through them)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.constructor.ConstructorError(
                None, None, "YAML aliases are not read (a cassette has none)", event.start_mark
            )
        return super().compose_node(parent, index)


def _python_tag_as_data(loader: Any, suffix: str, node: Any) -> Any:
    """A ``!!python/...`` tag read as the plain data under it, never as a Python object.

    vcrpy writes some header names as the objects the HTTP client held: aiohttp's are
    ``!!python/object/apply:multidict._multidict.istr [Content-Type]``. The safe loader
    refuses every Python tag, which refused the whole cassette; read as data, such a one-item
    ``apply`` is its item (the header name), any other node its scalar, list or mapping."""
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        items = loader.construct_sequence(node, deep=True)
        return items[0] if suffix.startswith("object/apply:") and len(items) == 1 else items
    return loader.construct_mapping(node, deep=True)


def _built_or_refused(construct: Callable[[Any, bool], Any], node: Any, deep: bool) -> Any:
    """A node built by the safe constructor's ``construct``; a scalar its tag cannot build
    (``!!bool maybe``, ``!!timestamp soon``, ``!!int ""``: PyYAML's constructors then raise
    ``KeyError``, ``AttributeError``, ``IndexError`` or ``ValueError``) is refused with its line,
    as YAML that does not parse is."""
    try:
        return construct(node, deep)
    except (LookupError, AttributeError, TypeError, ValueError) as exc:
        tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
        reason = f": {exc}" if type(exc) is ValueError else ""
        raise yaml.constructor.ConstructorError(
            None, None, f"a value its tag {tag} cannot build{reason}", node.start_mark
        ) from None


class _NoAliasesOrObjects(_NoAliases):
    """:class:`_NoAliases`, reading Python tags as data."""

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        return _built_or_refused(super().construct_object, node, deep)


class _FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's safe loader (when PyYAML has it), reading Python tags as data."""

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        return _built_or_refused(super().construct_object, node, deep)


MAX_INT_TEXT = 70
"""The longest integer scalar built (an integer of 64 bits needs at most 66 characters, as
``0b`` and 64 digits): a longer one is refused before it is built, since PyYAML builds a
sexagesimal one (``1:59:59:...``) in time quadratic in its length."""


def _bounded_int(loader: Any, node: Any) -> Any:
    """An integer scalar, refused (with its line) when too long to fit in 64 bits."""
    text = loader.construct_scalar(node)
    if len(text) > MAX_INT_TEXT:
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"an integer of {len(text):,} characters: past 64 bits, not read",
            node.start_mark,
        )
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


def _ruby_binary(loader: Any, node: Any) -> Any:
    """Ruby's YAML writes binary data under its local tag ``!binary`` (Ruby's VCR, ruby_llm's
    cassettes): the same bytes as YAML's ``!!binary``."""
    return yaml.constructor.SafeConstructor.construct_yaml_binary(loader, node)


for _loader in (_NoAliasesOrObjects, _FastLoader):
    _loader.add_multi_constructor("tag:yaml.org,2002:python/", _python_tag_as_data)
    _loader.add_constructor("tag:yaml.org,2002:int", _bounded_int)
    _loader.add_constructor("!binary", _ruby_binary)

_MAYBE_ALIAS = re.compile(rb"(?:^|[\s\[{,])[&*][^\s,\[\]{}]", re.MULTILINE)
_FAST_LOADER: Any = _FastLoader


def looks_like_yaml_cassette(text: bytes) -> bool:
    """Whether a file's head starts like a YAML cassette (after any comment lines and
    directives such as ``%YAML 1.1``)."""
    head = text.lstrip()
    while head[:1] in (b"#", b"%"):
        end = head.find(b"\n")
        if end < 0:
            return False
        head = head[end + 1 :].lstrip()
    return head.startswith(
        (b"interactions:", b"requests:", b"version:", b"---", b"http_interactions:")
    )


def load_yaml(data: bytes, file: str) -> Any:
    """YAML decoded safely; a problem names the line (or, for a decoded value the workbench
    refuses, the field).

    The YAML vcrpy writes is decoded by ``vcr_yaml`` (the same value as PyYAML's safe loader, 25
    times as fast on a cassette of one-line JSON bodies); any other text by libyaml's safe
    loader when it has nothing that could be an anchor or alias (``&name``, ``*name`` after a
    blank or a flow indicator), else by the pure-Python safe loader that refuses aliases. The
    decoded value passes the same checks as JSON's (R35): no nesting past ``MAX_DEPTH``, no NaN
    or infinity (``.nan``, ``.inf``), no integer outside 64 bits, no lone surrogate.
    """
    refuse_dense(data, file, estimated=yaml_estimate, kind="YAML")
    try:
        value, may_be_deep = decode_vcr_yaml(data.decode("utf-8"))
    except UnicodeDecodeError:  # refused here: libyaml would take a UTF-16 or UTF-32 byte
        raise LoadError([_reader_problem(data, file, None)]) from None  # order mark as one
    # vcr_yaml gives nothing R35 refuses but deep nesting, which the depth check alone finds
    # (and only where vcr_yaml says it may be), and binary data, which only a walk tells a
    # body from a value JSON has not
    # ("!" first: a byte search, where "!binary" alone takes several times as long)
    full = value is None or (b"!" in data and b"!binary" in data)  # "!!binary", Ruby's "!binary"
    if value is None:
        value = _libyaml(data, file)
    _recorded_at_as_text(value)
    if full:  # an xAI cassette's protobuf bytes, which its JSON members say again
        drop_raw(value)
    if not full and not may_be_deep:
        return value
    found = value_problem(value, full=full)
    if found is not None:
        path, message = found
        raise LoadError([LoadProblem(file, "(file)", "" if path == "(root)" else path, message)])
    return value


def yaml_estimate(data: bytes) -> int:
    """About how many bytes of memory a YAML text's decoded value takes: JSON's count
    (``reading.decoded_estimate``: flow collections, quotes, commas); for the block style, a new
    list or entry for each ``- `` and a key and value for each line; and, since YAML's strings
    need no quotes, a new string after each ``,`` and before each ``: `` (``[ab, ac]``,
    ``{ab: ac}``: JSON's count, which finds a string by its quotes, sees none). The recordings
    in ``fixtures/`` and the benchmark's cassette count at most 7 times their size; ``- {}``
    lines 37, ``- ab`` 24, ``[abc, abd, ...]`` 11 (21 decoded), ``{ab: ac, ...}`` 12."""
    return (
        decoded_estimate(data)
        + 64 * data.count(b"- ")
        + 56 * data.count(b"\n")
        + _PLAIN * (data.count(b",") + data.count(b": "))
    )


_PLAIN = 40
"""What a short plain string takes beyond the comma or line already counted (a ``str`` of 3
characters is 52 bytes)."""


def _recorded_at_as_text(value: Any) -> None:
    """R's vcr writes each interaction's ``recorded_at`` as a bare YAML timestamp, which JSON
    has not: it becomes its ISO 8601 text (no loader reads it; Ruby's VCR writes text)."""
    interactions = value.get("http_interactions") if isinstance(value, dict) else None
    for interaction in interactions if isinstance(interactions, list) else ():
        if isinstance(interaction, dict):
            when = interaction.get("recorded_at")
            if isinstance(when, datetime.date):  # a datetime is a date too
                interaction["recorded_at"] = when.isoformat()


def _libyaml(data: bytes, file: str) -> Any:
    """YAML decoded by PyYAML's safe loader (libyaml's when the text can hold no alias)."""
    if len(data) > MAX_YAML_BYTES:
        message = (
            f"a YAML document over {MAX_YAML_BYTES >> 20} MiB that is not vcrpy's cassette "
            "YAML is not read (YAML's loader may take 30 times its size in memory); save it "
            "as JSON, which is read up to 2 GiB"
        )
        raise LoadError([LoadProblem(file, "(file)", "", message)])
    loader = _NoAliasesOrObjects if _MAYBE_ALIAS.search(data) else _FAST_LOADER
    try:
        value = yaml.load(data, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        where = f"line {line}" if line is not None else "(file)"
        reason = _one_line(exc.problem or exc.context or "invalid YAML")
        raise LoadError([LoadProblem(file, where, "", f"invalid YAML: {reason}", line)]) from None
    except yaml.reader.ReaderError as exc:  # bytes that are not UTF-8, or control characters
        raise LoadError([_reader_problem(data, file, exc)]) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        message = f"invalid YAML: {_one_line(str(exc))}"
        raise LoadError([LoadProblem(file, "(file)", "", message)]) from None
    return value


def _reader_problem(data: bytes, file: str, exc: Any) -> LoadProblem:
    """Where YAML's reader stopped: the first byte that is not UTF-8, else the character."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        line = data.count(b"\n", 0, bad.start) + 1
        column = bad.start - (data.rfind(b"\n", 0, bad.start) + 1) + 1
        reason = f"not UTF-8 text (byte 0x{data[bad.start]:02x})"
        return LoadProblem(file, f"line {line}, column {column}", "", reason, line)
    position = exc.position if isinstance(exc.position, int) else 0
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    char = exc.character if isinstance(exc.character, int) else 0
    reason = f"a control character (U+{char:04X}) that YAML does not allow"
    return LoadProblem(file, f"line {line}, column {column}", "", reason, line)


def _one_line(text: str) -> str:
    return " ".join(text.split())
