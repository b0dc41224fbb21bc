"""The model cache (SPEC R41): one JSONL line per live turn, keyed by the SHA-256 of the
canonical request; a bad or edited line is refused by line; writers in several processes
merge rather than overwrite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import workbench as wb

TURN = {
    "role": "assistant",
    "content": None,
    "toolCalls": [{"id": "c", "name": "f", "args": {"x": 1}}],
}


def request(text: str = "hi", trial: int = 0, **params: object) -> wb.ChatRequest:
    return wb.ChatRequest(
        messages=({"role": "user", "content": text},),
        tools=({"name": "f"},),
        model="m",
        client="openai-chat",
        params=params,
        seed=7,
        task_id="t",
        trial=trial,
    )


def test_the_key_is_the_sha256_of_the_canonical_request() -> None:
    """R41: key order and 1 vs 1.0 do not change the key; any member that matters does."""
    import hashlib

    from workbench._common.canonical import canonical_json

    base = request(temperature=1)
    assert base.key == hashlib.sha256(canonical_json(base.to_json()).encode()).hexdigest()
    assert request(temperature=1.0).key == base.key
    for other in (request("ho"), request(trial=1), request(temperature=0.5)):
        assert other.key != base.key


@given(st.text(max_size=30), st.integers(0, 5))
def test_a_stored_turn_is_found_again_after_reading_the_file(text: str, trial: int) -> None:
    """R41: put then a fresh load returns the same turn (a JSON round trip)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.jsonl"
        wb.ModelCache(path).put(request(text, trial), TURN)
        assert wb.ModelCache(path).get(request(text, trial)) == TURN
        assert wb.ModelCache(path).get(request(text + "!", trial)) is None


def test_the_file_is_stable_json_one_line_per_turn(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    cache = wb.ModelCache(path)
    cache.put(request("a"), TURN)
    cache.put(request("a"), {"role": "assistant", "content": "other"})  # first one wins
    cache.put(request("b"), TURN)
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    assert len(lines) == 2 and len(cache) == 2
    entry = json.loads(lines[0])
    assert sorted(entry) == ["key", "request", "turn"] and entry["turn"] == TURN
    assert lines[0] == json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def test_two_writers_on_one_file_keep_both_turns(tmp_path: Path) -> None:
    """Sweep workers each hold a cache object on the same file: a put merges, never clobbers."""
    path = tmp_path / "c.jsonl"
    one, two = wb.ModelCache(path), wb.ModelCache(path)
    one.put(request("a"), TURN)
    two.put(request("b"), TURN)
    fresh = wb.ModelCache(path)
    assert request("a") in fresh and request("b") in fresh


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "must be an object"),
        ('{"key": "abc", "request": {}, "turn": {}}', "64 lowercase hex"),
    ],
)
def test_a_bad_line_is_refused_naming_the_file_and_line(
    tmp_path: Path, line: str, reason: str
) -> None:
    path = tmp_path / "c.jsonl"
    good = wb.ModelCache(tmp_path / "good.jsonl")
    good.put(request(), TURN)
    path.write_text((tmp_path / "good.jsonl").read_text() + line + "\n", encoding="utf-8")
    with pytest.raises(wb.JSONFileError, match=reason) as caught:
        wb.ModelCache(path)
    assert caught.value.line == 2 and str(path) in str(caught.value)


def test_an_edited_request_is_refused_rather_than_served(tmp_path: Path) -> None:
    """A hand-edited request no longer hashes to its key: served for nothing, refused."""
    path = tmp_path / "c.jsonl"
    wb.ModelCache(path).put(request(), TURN)
    entry = json.loads(path.read_text())
    entry["request"]["messages"][0]["content"] = "edited"
    path.write_text(json.dumps(entry) + "\n")
    with pytest.raises(wb.JSONFileError, match="not the SHA-256 of its request"):
        wb.ModelCache(path)


def test_a_turn_that_is_not_an_assistant_turn_is_not_stored() -> None:
    with pytest.raises(ValueError, match="assistant turn"):
        wb.ModelCache().put(request(), {"role": "user", "content": "x"})
