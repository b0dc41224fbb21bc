"""The short paths of the chat cassette loaders give what the general ones give (SPEC R34, R35).

Each short path is a statement about the general one: a quick look that tells what the full
reading would tell, or a common case read without the general code's detours. Each property
here holds it to that on generated (SYNTHETIC) inputs.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench._load.reading import decode_json, may_be_json

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_ALPHABET = '{}[]":,\\ \t\n\r\x0b0123456789-+.eEtrufalsnNIiy\ud800\u00e9'
_JSONISH = st.text(alphabet=_ALPHABET, max_size=24)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


def _pretty_lines(value: Any, indent: int | None) -> list[bytes]:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass").split(b"\n")


@SETTINGS
@given(
    st.binary(max_size=24)
    | _JSONISH.map(lambda t: t.encode("utf-8", "surrogatepass"))
    | st.builds(_pretty_lines, _VALUES, st.sampled_from([None, 0, 1, 2])).flatmap(st.sampled_from)
)
def test_bytes_may_be_json_says_no_only_to_bytes_decode_json_refuses(data: bytes) -> None:
    """The OpenWOP sniff skips, without decoding it, a line :func:`may_be_json` says no to:
    every such line is one the strict decode refuses (a pretty-printed document's lines)."""
    if not may_be_json(data):
        assert decode_json(data, "")[1] is not None
    if decode_json(data, "")[1] is None:
        assert may_be_json(data)


@SETTINGS
@given(_VALUES, st.sampled_from([None, 1]))
def test_every_json_document_may_be_json(value: Any, indent: int | None) -> None:
    """The other way round: a JSON document, however laid out, is never skipped."""
    assert may_be_json(json.dumps(value, indent=indent).encode())
    assert may_be_json(b" \r\n" + json.dumps(value).encode() + b"\t ")
