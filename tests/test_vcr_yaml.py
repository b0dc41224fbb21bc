"""The fast cassette decoder gives libyaml's value or ``None``, never another value.

``load_vcr_yaml`` (``workbench._load.vcr_yaml``) decodes the YAML that PyYAML's emitter writes for
vcrpy cassettes without libyaml. Every check here compares it with ``yaml.load(text,
Loader=yaml.CSafeLoader)``, type for type (``True`` is not ``1``, floats bit for bit, keys in
order): on every real cassette in ``fixtures/``, on data dumped by PyYAML's emitters (Python and
libyaml, widths 80, 120 and unbounded, ASCII or not, literal block strings), and on arbitrary or
mangled text, where it must return ``None`` whenever libyaml refuses the text.
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs in the test environment
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from helpers.paths import FIXTURES
from workbench._load.cassette_yaml import load_yaml
from workbench._load.reading import value_problem
from workbench._load.vcr_yaml import MAX_DEPTH, decode_vcr_yaml, load_vcr_yaml

REAL_FILES = sorted(
    path for pattern in ("**/*.yaml", "**/*.yaml.gz", "**/*.yml") for path in FIXTURES.glob(pattern)
)
LIBYAML: Any = yaml.CSafeLoader


class LiteralDumper(yaml.Dumper):  # type: ignore[misc]
    """Multi-line strings as literal blocks (``|``), as pydantic-ai writes its cassettes."""


def _literal_str(dumper: Any, data: str) -> Any:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


LiteralDumper.add_representer(str, _literal_str)

DUMPERS: dict[str, Any] = {
    "Dumper": yaml.Dumper,
    "CDumper": yaml.CDumper,
    "SafeDumper": yaml.SafeDumper,
    "CSafeDumper": yaml.CSafeDumper,
    "LiteralDumper": LiteralDumper,
}


def _text(path: Path) -> str:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8")


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down; floats bit for bit; keys in order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)  # NaN too: the same bits
    if isinstance(a, dict):
        return (
            len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b, strict=True))
            and all(same(a[k], b[k]) for k in a)
        )
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def libyaml(text: str) -> tuple[bool, Any]:
    """(whether libyaml decodes ``text``, its value)."""
    try:
        return True, yaml.load(text, Loader=LIBYAML)
    except Exception:  # any refusal: the fast decoder must give None
        return False, None


def check(text: str) -> Any:
    """``load_vcr_yaml(text)``, asserted to be None or libyaml's value."""
    got = load_vcr_yaml(text)
    if got is not None:
        ok, expected = libyaml(text)
        assert ok, f"libyaml refuses what the fast decoder took: {text!r}"
        assert same(got, expected), f"{text!r}: {got!r} != {expected!r}"
    return got


# --- Real cassettes -----------------------------------------------------------------------


NOT_PYYAML_EMITTED = {
    # Future-House/aviary's cassettes are reformatted by prettier: a long quoted body starts on
    # the line after its key, which PyYAML's emitter never writes, so libyaml reads them
    "aviary_TestPaperQATaskDataset.test_tool_failure.yaml",
    # Ruby's Psych (ruby_llm, Ruby's VCR: Ruby's own !binary tag) and R's yaml (ellmer: bare
    # timestamps, no leading ---)
    "ruby_llm_deepseek-chat_respects_specific_tool_choice.yml",
    "ellmer_parallel-tool-uneven.yml",
}
"""Real cassettes written by another emitter than PyYAML's (the subset ``vcr_yaml`` takes)."""


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_real_cassettes_decode_as_libyaml_does(path: Path) -> None:
    text = _text(path)
    got = check(text)
    if path.name in NOT_PYYAML_EMITTED:  # read by libyaml, through the loader's own tags
        assert got is None and load_yaml(text.encode("utf-8"), path.name) is not None
    elif "!!python/" not in text:  # tags beyond !!binary: libyaml's safe loader refuses them
        assert got is not None, "a real cassette fell back to libyaml"


def test_there_are_real_cassettes() -> None:
    assert len(REAL_FILES) >= 9


# --- Hand-picked shapes -------------------------------------------------------------------

DECODED = [
    "a: 1\nb: -2\nc: 0x1F\nd: 0o17\ne: 017\nf: 1_000\ng: 190:20:30\nh: +12\n",
    "a: 1.5\nb: -0.0\nf: 1e5\ng: 1.5e+5\nh: 1.5e5\ni: 6.8523015e+5\nj: 1.5e+300\n",
    "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: ~\ng: null\nh: Null\ni:\nj: true\nk: FALSE\n",
    "a: 'yes'\nb: \"1\"\nc: ''\nd: 'it''s'\ne: \"\\t\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\/\\ \"\n",
    "k: 'a\n\n  b\n\n\n  c'\n",
    'k: "a\\\n  \\ b\\\n\n  c  d"\n',
    "k: plain text that\n  goes on\n\n  and on\n",
    "- a\n- - b\n  - c\n- d: 1\n  e:\n  - f\n  - g: h\n    i: j\n-\n- []\n- {}\n",
    "a: |\n  x\n   y\n\n  z\nb: |-\n  x\nc: |+\n  x\n\nd: |2-\n    lead\n  x\ne: 1\n",
    "a: !!binary |\n  aGVsbG8gd29y\n  bGQ=\nb: !!binary ''\n",
    'a: {"b": [1, 2.5, "c", null, true, {"d": {}}], "e": "f\\n\\u00e9"}\n',
    "a: {code: 200, message: OK}\nb: [x, 'y', \"z\", 1, ~]\nc: {}\n",
    "'quoted key': 1\n\"k\\u00e9y\": 2\n'1': a string key\n",
    "---\na: 1\n...\n",
    "plain root\n...\n",
    "a: 1\nb: 'no line break at the end'",
    "|-\n  root literal\n",
    "{}\n",
    "a: [1e5, 1.5e+20, 1.5e20, 1234567890123456789, 18446744073709551615]\n",
    'a: {"x": 1e5, "y": 9999999999999999999}\n',
]

UNSUPPORTED = [
    "a: &x 1\nb: *x\n",
    "a: 2001-12-14\n",
    "<<: {a: 1}\n",
    "a: =\n",
    "a: >\n  folded\n",
    "a: 1 # comment\n",
    "# comment\na: 1\n",
    "? complex\n: key\n",
    "a: !!str 1\n",
    "a: !custom 1\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: 1\n---\nb: 2\n",
    "\ufeffa: 1\n",
    "a: 1\r\nb: 2\r\n",
    "a:\n\tb: 1\n",
    "a: \x01\n",
    "a: b\u2028c\n",
    "a: |\n  x",
    "a: {b: 1,\n  c: 2}\n",
    'a: "\\ud83d\\ude00"\n',
    # what the workbench refuses in a file (R35): libyaml's path reports it, with the field
    "a: .inf\n",
    "a: -.Inf\n",
    "a: .nan\n",
    "a: 1.0e+999\n",
    "a: [1, 123456789012345678901234567890]\n",
    "a: 18446744073709551616\n",
    "a: -9223372036854775809\n",
    'a: {"y": 99999999999999999999}\n',
    "1: int key\n",  # keys JSON has not (R35): a suite has only string keys
    "null: null key\n",
    "a: {1: x}\n",
]


@pytest.mark.parametrize("text", DECODED)
def test_shapes_of_the_subset_are_decoded(text: str) -> None:
    assert check(text) is not None


@pytest.mark.parametrize("text", UNSUPPORTED)
def test_shapes_outside_the_subset_give_none(text: str) -> None:
    assert load_vcr_yaml(text) is None


def test_deep_nesting_gives_none_without_recursion() -> None:
    deep = "".join(" " * depth + "a:\n" for depth in range(MAX_DEPTH + 5)) + " " * 999 + "b: 1\n"
    assert load_vcr_yaml(deep) is None
    assert load_vcr_yaml("a: " + "[" * 5000 + "]" * 5000 + "\n") is None
    shallow = "".join(" " * depth + "a:\n" for depth in range(50)) + " " * 50 + "b: 1\n"
    assert check(shallow) is not None


def _nested_yaml(blocks: int, levels: int, pad: int, sequence: bool) -> str:
    """``blocks`` block mappings, then a one-line JSON flow collection ``levels`` deep (padded
    with a string of ``pad`` characters), as an entry or as a sequence item."""
    lines = "".join(" " * depth + "a:\n" for depth in range(blocks))
    flow = "[" * levels + '"' + "x" * pad + '"' + "]" * levels if levels else '"x"'
    indent = " " * blocks
    return lines + (f"{indent}- {flow}\n" if sequence else f"{indent}b: {flow}\n")


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, MAX_DEPTH + 2),
    st.integers(0, MAX_DEPTH + 10),
    st.integers(0, 700),
    st.booleans(),
)
def test_a_value_said_shallow_is_never_too_deep(
    blocks: int, levels: int, pad: int, sequence: bool
) -> None:
    """R35: ``load_yaml`` skips its depth check where ``decode_vcr_yaml`` says the value
    cannot nest as deep as the limit; whatever nesting of block and flow collections, the check
    would then have found nothing."""
    value, may_be_deep = decode_vcr_yaml(_nested_yaml(blocks, levels, pad, sequence))
    if value is not None and not may_be_deep:
        assert value_problem(value, full=False) is None


def test_a_deep_flow_after_a_remembered_key_is_refused(tmp_path: Path) -> None:
    """R35: a long line whose ``key: `` was met before is decoded by the block reader's quick
    path (its prefix remembered); a JSON flow there that nests past the limit is refused too
    (found by a review of stop 37: no other test reached that path)."""
    import workbench as wb

    key = "k" * 95
    flow = '["",' + "[" * 197 + "]" * 197 + "]"
    text = f'interactions:\n- p:\n    {key}: "short"\n  q:\n    other: 1\n    {key}: {flow}\n'
    value, may_be_deep = decode_vcr_yaml(text)
    assert value is not None and may_be_deep
    path = tmp_path / "cassette.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(wb.LoadError) as raised:
        load_yaml(path.read_bytes(), str(path))
    assert f"nested deeper than {MAX_DEPTH} levels" in raised.value.problems[0].message


@pytest.mark.parametrize(("blocks", "levels"), [(3, MAX_DEPTH - 3), (0, MAX_DEPTH), (196, 5)])
def test_a_cassette_nested_past_the_limit_is_refused(
    tmp_path: Path, blocks: int, levels: int
) -> None:
    """R35: block mappings and a one-line flow collection (decoded by orjson) that together
    nest past the limit are refused, naming the field, though each alone is within it."""
    import workbench as wb

    path = tmp_path / "cassette.yaml"
    path.write_text(_nested_yaml(blocks, levels, 0, False), encoding="utf-8")
    with pytest.raises(wb.LoadError) as raised:
        load_yaml(path.read_bytes(), str(path))
    (problem,) = raised.value.problems
    assert f"nested deeper than {MAX_DEPTH} levels" in problem.message, problem


def test_what_the_workbench_refuses_is_reported_by_the_libyaml_path(tmp_path: Path) -> None:
    """R35: NaN, infinities and integers past 64 bits are problems naming the field: the fast
    decoder gives ``None`` for them, and the cassette is read again the careful way."""
    import workbench as wb

    for value, field in ((".nan", "interactions[0].x"), ("1" * 30, "interactions[0].x")):
        path = tmp_path / "cassette.yaml"
        path.write_text(f"interactions:\n- x: {value}\n  request: {{}}\n", encoding="utf-8")
        assert load_vcr_yaml(path.read_text(encoding="utf-8")) is None
        with pytest.raises(wb.LoadError) as raised:
            wb.load_runs(path)
        (problem,) = raised.value.problems
        assert problem.field == field, problem


# --- Dumped data --------------------------------------------------------------------------

ODD_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "yes",
        "No",
        "on",
        "OFF",
        "y",
        "n",
        "~",
        "null",
        "Null",
        "true",
        "False",
        "0x1F",
        "0o17",
        "017",
        "0b101",
        "1e3",
        "1.5e+3",
        "1_000",
        "190:20:30",
        "2024-01-01",
        "2001-12-14t21:59:43.10-05:00",
        ".inf",
        "-.inf",
        ".nan",
        "<<",
        "=",
        "- a",
        "-a",
        "? a",
        ":a",
        "a: b",
        "a:b",
        "a #b",
        "a#b",
        "#a",
        "'a'",
        '"a"',
        "a'b",
        "{a}",
        "[a]",
        "a, b",
        "&a",
        "*a",
        "!a",
        "|",
        ">",
        "%a",
        "@a",
        "`a",
        "---",
        "...",
        "--- a",
        "a\nb",
        "a\n\nb",
        "a\n",
        "\n",
        "\na",
        " a",
        "a ",
        "a\tb",
        "\\",
        "\\n",
        "\x85",
        "\u2028",
        "\ufeff",
        "\xa0",
        "é",
        "😀",
        "\x00",
        "\x7f",
        "a\r\nb",
    ]
)
TEXT = st.one_of(
    ODD_STRINGS,
    st.text(max_size=30),
    st.text(alphabet=" -:#'\"\n\\ab{}[],.0123e", max_size=40),
    st.lists(
        st.sampled_from(["word", "a", "-", "#", ":", "  ", "\n", "'", "x" * 30]), max_size=30
    ).map(" ".join),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
    st.binary(max_size=100),
)
KEYS = st.one_of(TEXT, st.sampled_from(["request", "response", "body", "string", "headers"]))
DATA = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=25,
)
DUMPS = st.tuples(
    st.sampled_from(sorted(DUMPERS)),
    st.sampled_from([80, 120, 10**9]),
    st.booleans(),
)


def _dump(data: Any, dumper: str, width: int, unicode: bool) -> str | None:
    try:
        text = yaml.dump(
            data,
            Dumper=DUMPERS[dumper],
            default_flow_style=False,
            width=width,
            allow_unicode=unicode,
        )
    except yaml.YAMLError:  # the safe dumpers refuse nothing here; be safe anyway
        return None
    return text if isinstance(text, str) else None


def _dumped_data_is_decoded_as_libyaml_does(data: Any, how: tuple[str, int, bool]) -> None:
    text = _dump(data, *how)
    assume(text is not None)
    assert text is not None
    check(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DATA, DUMPS)
def test_dumped_data_is_decoded_as_libyaml_does(data: Any, how: tuple[str, int, bool]) -> None:
    _dumped_data_is_decoded_as_libyaml_does(data, how)


@pytest.mark.slow
@settings(max_examples=5_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DATA, DUMPS)
def test_dumped_data_is_decoded_as_libyaml_does_many(data: Any, how: tuple[str, int, bool]) -> None:
    _dumped_data_is_decoded_as_libyaml_does(data, how)


# --- Cassette-shaped data: the fast path is taken ---------------------------------------

PLAIN_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=60
)
JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**63), max_value=2**63 - 1),
        st.floats(allow_nan=False, allow_infinity=False),
        PLAIN_TEXT,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(PLAIN_TEXT, inner, max_size=4)
    ),
    max_leaves=20,
)
PATHS = st.from_regex(r"[a-z]{1,10}", fullmatch=True)
HEADERS = st.dictionaries(
    st.sampled_from(["content-type", "content-length", "accept", "user-agent", "x-request-id"]),
    st.lists(st.one_of(PLAIN_TEXT, st.integers(0, 10**6).map(str)), min_size=1, max_size=2),
    max_size=5,
)


@st.composite
def cassettes(draw: st.DrawFn) -> dict[str, Any]:
    import json

    interactions = []
    for _ in range(draw(st.integers(1, 4))):
        body = json.dumps(draw(JSON_VALUES))
        answer = json.dumps(draw(JSON_VALUES))
        interactions.append(
            {
                "request": {
                    "body": body,
                    "headers": draw(HEADERS),
                    "method": draw(st.sampled_from(["POST", "GET"])),
                    "uri": "https://api.example.com/v1/" + draw(PATHS),
                },
                "response": {
                    "body": {"string": answer},
                    "headers": draw(HEADERS),
                    "status": {"code": draw(st.sampled_from([200, 400, 500])), "message": "OK"},
                },
            }
        )
    return {"interactions": interactions, "version": 1}


@settings(max_examples=100, deadline=None)
@given(cassettes(), st.sampled_from(["Dumper", "CDumper", "LiteralDumper"]), st.booleans())
def test_cassettes_take_the_fast_path(cassette: dict[str, Any], dumper: str, unicode: bool) -> None:
    text = _dump(cassette, dumper, 80, unicode)
    assert text is not None
    assert check(text) is not None


def _flow_cassette(exchanges: list[tuple[Any, Any]], dumps: Any = None) -> str:
    """The benchmark's shape: pydantic-ai's ``parsed_body`` written as one line of JSON."""
    import json

    dumps = dumps or json.dumps
    return "interactions:\n" + "".join(
        f"- request:\n    uri: https://api.openai.com/v1/responses\n    method: POST\n"
        f"    parsed_body: {dumps(request)}\n  response:\n    status: {{code: 200}}\n"
        f"    parsed_body: {dumps(response)}\n"
        for request, response in exchanges
    )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(JSON_VALUES, JSON_VALUES), min_size=1, max_size=4))
def test_json_bodies_in_flow_style_take_the_fast_path(exchanges: list[tuple[Any, Any]]) -> None:
    got = check(_flow_cassette(exchanges))
    if all(isinstance(value, dict | list) for pair in exchanges for value in pair):
        assert got is not None


ANY_JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=20),
        st.sampled_from(["\ud83d\ude00", "\x7f", "\u2028", "\x85", "\\u", '"', "1e5", "é"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
JSON_WRITERS = st.sampled_from(
    [
        {},
        {"ensure_ascii": False},
        {"separators": (",", ":")},
        {"separators": (",", ":"), "ensure_ascii": False},
        {"indent": None, "separators": (", ", " : ")},
    ]
)


def _json_bodies_decode_as_libyaml_does(
    exchanges: list[tuple[Any, Any]], options: dict[str, Any]
) -> None:
    import json

    check(_flow_cassette(exchanges, lambda value: json.dumps(value, **options)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(ANY_JSON, ANY_JSON), min_size=1, max_size=3), JSON_WRITERS)
def test_any_json_bodies_decode_as_libyaml_does(
    exchanges: list[tuple[Any, Any]], options: dict[str, Any]
) -> None:
    """Floats, exponents, integers past 64 bits, escapes of surrogates, any text."""
    _json_bodies_decode_as_libyaml_does(exchanges, options)


@pytest.mark.slow
@settings(max_examples=3_000, deadline=None)
@given(st.lists(st.tuples(ANY_JSON, ANY_JSON), min_size=1, max_size=3), JSON_WRITERS)
def test_any_json_bodies_decode_as_libyaml_does_many(
    exchanges: list[tuple[Any, Any]], options: dict[str, Any]
) -> None:
    _json_bodies_decode_as_libyaml_does(exchanges, options)


# --- Arbitrary and mangled text ------------------------------------------------------------

YAMLISH = st.text(alphabet="ab01.-:#'\"|>!&*?{}[], \n\\e~", max_size=80)


def _mangled(draw: st.DrawFn, text: str) -> str:
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "indent"]))
        if action == "delete":
            del lines[at]
        elif action == "duplicate":
            lines.insert(at, lines[at])
        elif action == "swap" and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        elif action == "insert":
            where = draw(st.integers(0, len(lines[at])))
            piece = draw(st.sampled_from([*" -:#'\"|>!&*?{}[],\\\t\r", "  ", "\ufeff"]))
            lines[at] = lines[at][:where] + piece + lines[at][where:]
        elif action == "indent":
            lines[at] = " " * draw(st.integers(1, 3)) + lines[at]
    return "\n".join(lines)


@st.composite
def mangled_real_files(draw: st.DrawFn) -> str:
    path = draw(st.sampled_from(REAL_FILES))
    text = _text(path)
    lines = text.split("\n")
    start = draw(st.integers(0, max(0, len(lines) - 1)))
    window = "\n".join(lines[start : start + draw(st.integers(1, 40))]) + "\n"
    return _mangled(draw, window)


@st.composite
def mangled_dumps(draw: st.DrawFn) -> str:
    text = _dump(draw(DATA), *draw(DUMPS))
    assume(text is not None)
    assert text is not None
    return _mangled(draw, text)


@st.composite
def mangled_flow_cassettes(draw: st.DrawFn) -> str:
    exchanges = draw(st.lists(st.tuples(ANY_JSON, ANY_JSON), min_size=1, max_size=3))
    return _mangled(draw, _flow_cassette(exchanges))


ANY_TEXT = st.one_of(
    st.text(max_size=60),
    YAMLISH,
    mangled_real_files(),
    mangled_dumps(),
    mangled_flow_cassettes(),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_TEXT)
def test_any_text_gives_none_or_libyaml_s_value(text: str) -> None:
    check(text)


@pytest.mark.slow
@settings(max_examples=8_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_TEXT)
def test_any_text_gives_none_or_libyaml_s_value_many(text: str) -> None:
    check(text)


def test_not_text_gives_none() -> None:
    assert load_vcr_yaml(b"a: 1\n") is None  # type: ignore[arg-type]


# --- Found by a hostile review (stop 24) --------------------------------------------------


def test_long_compact_entries_are_items_of_their_own() -> None:
    """Two long ``- key: {JSON}`` lines are two items: a cache of long lines' keys once wrote
    the second into the first item's mapping (and a cassette lost an interaction)."""
    line = '- k: {"v": "%s"}\n'
    first, second = "1" + "x" * 90, "2" + "x" * 90
    assert check(line % first + line % second) == [{"k": {"v": first}}, {"k": {"v": second}}]


LONG_LINES = st.lists(
    st.tuples(
        st.sampled_from(["", "", "  ", "    "]),
        st.sampled_from(["- {k}: {v}", "{k}: {v}", "- - {k}: {v}", "{k}:", "- {k}:", "- short"]),
        st.sampled_from(["k", "m", "request", "response"]),
        st.integers(80, 120),
    ),
    min_size=2,
    max_size=10,
)


@settings(max_examples=300, deadline=None)
@given(LONG_LINES)
def test_long_key_json_lines_decode_as_libyaml_does(lines: list[tuple[str, str, str, int]]) -> None:
    """Lines of 100 characters and more, ``key: {JSON}`` in every shape, at several columns:
    where the long-line cache applies, and where it must not."""
    import json

    text = "".join(
        indent + form.format(k=key, v=json.dumps({"v": "x" * width})) + "\n"
        for indent, form, key, width in lines
    )
    check(text)


def test_a_long_run_of_backslashes_is_decoded_in_linear_time() -> None:
    """A ``\\U`` escape and then 26,000 escaped backslashes: once 20 s (a regex tried the run
    again from each backslash), now a few milliseconds."""
    import time

    text = 'a: "\\U0001F600' + "\\\\" * 26_000 + '"\n'
    start = time.process_time()
    check(text)
    assert time.process_time() - start < 2


def test_an_integer_too_long_for_64_bits_is_refused_before_it_is_built(tmp_path: Path) -> None:
    """PyYAML builds a sexagesimal integer (``1:59:59:...``) in time quadratic in its length: a
    750 KB one took over 20 s. Any integer scalar longer than a 64-bit one can be is refused
    first, on both paths, with its line."""
    import time

    import workbench as wb

    path = tmp_path / "cassette.yaml"
    path.write_text("interactions:\n- x: 1" + ":59" * 250_000 + "\n", encoding="utf-8")
    start = time.process_time()
    with pytest.raises(wb.LoadError) as raised:
        wb.load_runs(path)
    assert time.process_time() - start < 5
    (problem,) = raised.value.problems
    assert problem.where == "line 2" and "past 64 bits" in problem.message
