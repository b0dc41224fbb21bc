"""Inspect AI ``.eval`` logs in the chunked sample layout load as their originals (SPEC R34, R35).

Since inspect_ai 0.3.250 a sample may be the entries under ``samples/<id>_epoch_<n>/`` (a shell
``sample.json`` whose ``message_refs`` name the conversation's messages, and chunks
``messages/<start>.json``, ``events/<start>.json``, ``calls/<start>.json``,
``attachments/<start>.json`` beside ``skeleton.json``, ``events/stats.json`` and
``events/uuids.json``; ``inspect_ai/log/_recorders/chunked/format.py``). The workbench read every
entry under ``samples/`` as a sample and refused a real one (ts-mono's ``ais-decoder.eval``):
``samples[0] (field messages): a sample needs messages (and 63 more problems)``.

The two fixtures are real logs the project holds, converted by inspect_ai 0.3.285's own
``convert_eval_logs_to_chunked`` (``fixtures/inspect-ai/SOURCE.md``). The hostile variants are
those files with entries taken out, cut short or replaced (R35: each loads around the sample it
breaks, or is refused, a problem naming the zip entry and field; never a traceback, never an
empty load said nothing of).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from helpers.paths import FIXTURES
from workbench import LoadError, load_runs
from workbench._load.inspect_zstd import ZIP_ZSTANDARD, zstd_member

INSPECT = FIXTURES / "inspect-ai"
DOCENT = INSPECT / "docent_luce_intercode_ctf_gpt-4o.eval"
DOCENT_CHUNKED = INSPECT / "docent_luce_intercode_ctf_gpt-4o.chunked.eval"
METR = INSPECT / "metr_small.eval"
METR_CHUNKED = INSPECT / "metr_small.chunked.eval"
FIRST = "samples/15_epoch_1"
"""The docent log's first sample (36 events, 23 messages, in chunks of 3)."""


def _boundaries(path: Path) -> list[tuple[Any, ...]]:
    result = load_runs(path)
    return [
        (
            run.task_key,
            run.outcome,
            b.call_id,
            b.tool,
            b.args,
            json.dumps(b.response, sort_keys=True),
            b.is_error,
            b.error_code,
            b.error_message,
        )
        for run in result.runs
        for b in run.boundaries
    ]


@pytest.mark.parametrize(
    ("original", "chunked", "runs", "calls", "failed"),
    [(DOCENT, DOCENT_CHUNKED, 15, 121, 6), (METR, METR_CHUNKED, 6, 76, 0)],
    ids=["docent-chunks-of-3", "metr-default-chunks"],
)
def test_a_chunked_log_loads_to_the_boundaries_of_its_original(
    original: Path, chunked: Path, runs: int, calls: int, failed: int
) -> None:
    """R34: one run per sample and epoch, the same calls (ids, tools, arguments), responses and
    failures in the same order, whichever layout Inspect wrote. Hand counts in SOURCE.md."""
    result = load_runs(chunked)
    assert result.format == "inspect-ai" and result.problems == ()
    assert len(result.runs) == runs
    found = _boundaries(chunked)
    assert len(found) == calls and sum(row[6] for row in found) == failed
    assert found == _boundaries(original)
    before = load_runs(original).runs
    assert [r.conversation for r in result.runs] == [r.conversation for r in before]


def test_the_fixtures_are_in_the_chunked_layout() -> None:
    """What the equality above rests on: no sample is a single entry, and the docent log's
    chunks hold several messages each (its converter ran with ``chunk_size=3``)."""
    for path in (DOCENT_CHUNKED, METR_CHUNKED):
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
        assert not [n for n in names if n.startswith("samples/") and n.count("/") == 1]
        assert f"{FIRST}/sample.json" in names or "samples/default_epoch_6/sample.json" in names
    members = _members(DOCENT_CHUNKED)
    assert len(json.loads(members[f"{FIRST}/messages/3.json"])) == 3
    assert json.loads(members[f"{FIRST}/sample.json"])["message_refs"] == [
        [0, 19],
        [12, 13],
        [19, 23],
    ]


def test_the_tools_a_sample_offered_are_read_through_its_attachments() -> None:
    """Inspect stores a long tool description once, as ``attachment://``: the conversation's
    tools gave the model that reference instead of the text (METR's bash, python, submit)."""
    for path in (METR, METR_CHUNKED):
        conversation = load_runs(path).runs[0].conversation
        assert conversation is not None
        tools = conversation.tools
        assert tools and not [t for t in tools if "attachment://" in json.dumps(t)]


# --- hostile variants ---------------------------------------------------------------------


def _members(path: Path) -> dict[str, bytes]:
    """A log's members, decompressed (Inspect writes Zstandard, which ``zipfile`` writes and
    reads only from Python 3.14)."""
    with zipfile.ZipFile(path) as archive:
        return {
            info.filename: zstd_member(archive, info)
            if info.compress_type == ZIP_ZSTANDARD
            else archive.read(info)
            for info in archive.infolist()
        }


def _write(tmp_path: Path, members: dict[str, bytes], name: str = "log.eval") -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for member, data in members.items():
            target.writestr(member, data)
    return path


def _docent(**change: bytes | None) -> dict[str, bytes]:
    """The chunked docent log's members, with ``change`` (entry under the first sample ->
    new bytes, or ``None`` to take it out)."""
    members = _members(DOCENT_CHUNKED)
    for rest, data in change.items():
        name = f"{FIRST}/{rest.replace('__', '/').replace('_dot_', '.')}"
        assert name in members or data is not None, name
        if data is None:
            del members[name]
        else:
            members[name] = data
    return members


def _loaded_around(path: Path) -> list[str]:
    """The problems of a log whose first sample is broken: the other 14 load, and strict
    loading refuses the file with the same problems."""
    result = load_runs(path, strict=False)
    assert result.format == "inspect-ai"
    assert len(result.runs) == 14 and "sample-15-epoch-1" not in [r.task_key for r in result.runs]
    assert sum(len(r.boundaries) for r in result.runs) == 121 - 10
    with pytest.raises(LoadError) as caught:
        load_runs(path, strict=True)
    assert [str(p) for p in caught.value.problems] == [str(p) for p in result.problems]
    return [f"{p.where}|{p.field}|{p.message}" for p in result.problems]


def test_a_missing_chunk_is_named_by_the_entry_it_would_be(tmp_path: Path) -> None:
    """R35: ``messages/3.json`` taken out leaves a gap the next chunk's name shows."""
    (problem,) = _loaded_around(_write(tmp_path, _docent(**{"messages/3.json": None})))
    assert problem.startswith(f"{FIRST}/messages/3.json||absent: ")
    assert "messages/6.json starts at item 6" in problem


def test_a_missing_last_events_chunk_is_named_from_the_stats_sidecar(tmp_path: Path) -> None:
    """The last chunk leaves no gap: ``events/stats.json`` lists it."""
    (problem,) = _loaded_around(_write(tmp_path, _docent(**{"events/33.json": None})))
    assert problem == f"{FIRST}/events/33.json||absent, though {FIRST}/events/stats.json lists it"


def test_a_skeleton_that_counts_events_the_chunks_do_not_hold(tmp_path: Path) -> None:
    """With no stats sidecar to list the absent chunk, the skeleton's count (36) says it, and
    so do the uuids (one per event)."""
    members = _docent(**{"events/33.json": None, "events/stats.json": None})
    problems = _loaded_around(_write(tmp_path, members))
    assert f"{FIRST}/events/uuids.json||36 uuids, and the events chunks hold 33 events" in problems
    assert (
        f"{FIRST}/skeleton.json|counts.events|36, and the events chunks hold 33 events" in problems
    )


def test_message_refs_past_the_messages_name_the_shell(tmp_path: Path) -> None:
    (problem,) = _loaded_around(_write(tmp_path, _docent(**{"messages/21.json": None})))
    assert problem.startswith(
        f"{FIRST}/sample.json|message_refs|range 2, [19, 23), reaches past the 21 item(s)"
    )


def test_message_refs_that_name_the_messages_over_and_over_are_refused(tmp_path: Path) -> None:
    """A few bytes a range, each naming every message: memory filled with names (R35)."""
    members = _docent()
    members[f"{FIRST}/sample.json"] = json.dumps({"message_refs": [[0, 23]] * 100}).encode()
    (problem,) = _loaded_around(_write(tmp_path, members))
    assert problem == f"{FIRST}/sample.json|message_refs|names 2,300 messages of the 23 there are"


def test_a_model_event_whose_calls_are_absent_names_the_event(tmp_path: Path) -> None:
    """The last calls chunk taken out: a model event's ``call.call_refs`` points past them."""
    members = _docent()
    last = max(
        (n for n in members if n.startswith(f"{FIRST}/calls/")),
        key=lambda n: int(n.rsplit("/", 1)[1][:-5]),
    )
    del members[last]
    problems = _loaded_around(_write(tmp_path, members))
    assert problems and all("|[" in p and "].call.call_refs|" in p for p in problems)
    assert f"({last} absent?)" in problems[0]


def test_a_missing_attachments_chunk_leaves_no_reference_unread(tmp_path: Path) -> None:
    """Unresolved ``attachment://<index>`` would be served as the result's text."""
    problems = _loaded_around(_write(tmp_path, _docent(**{"attachments/0.json": None})))
    (problem,) = problems
    assert "attachment://" in problem and f"({FIRST}/attachments/0.json absent?)" in problem


@pytest.mark.parametrize(
    ("entry", "data", "expected"),
    [
        ("messages/0.json", b'{"role": "user"}', "messages/0.json||not a JSON array of messages"),
        ("messages/0.json", b"[]", "messages/0.json||not a JSON array of messages"),
        ("events/3.json", b'[{"event": "info"}, 7, {}]', "events/3.json|[1]|not a JSON object"),
        ("attachments/0.json", b"[1, 2]", "attachments/0.json|[0]|not text"),
        ("sample.json", b"[]", "sample.json||not a JSON object"),
        ("sample.json", b'{"id": 15, "epoch": 1}', "sample.json|message_refs|missing"),
        ("events/stats.json", b'{"version": 1}', "events/stats.json|chunks|missing or not a list"),
        ("events/uuids.json", b'{"a": 1}', "events/uuids.json||not a list"),
        ("messages/03.json", b"[{}]", "messages/03.json||not a chunk's name"),
    ],
    ids=[
        "chunk-an-object",
        "chunk-empty",
        "event-a-number",
        "attachment-a-number",
        "shell-a-list",
        "shell-without-refs",
        "stats-without-chunks",
        "uuids-an-object",
        "zero-padded-name",
    ],
)
def test_an_entry_of_the_wrong_type_is_named_with_its_field(
    tmp_path: Path, entry: str, data: bytes, expected: str
) -> None:
    members = _docent()
    members[f"{FIRST}/{entry}"] = data
    problems = _loaded_around(_write(tmp_path, members))
    assert any(p.startswith(f"{FIRST}/{expected}") for p in problems), problems


def test_a_sample_whose_shell_is_absent_is_named(tmp_path: Path) -> None:
    (problem,) = _loaded_around(_write(tmp_path, _docent(**{"sample.json": None})))
    assert problem.startswith(f"{FIRST}/sample.json||absent, though the sample's entries are (")


def test_a_sample_in_both_forms_is_read_once_as_inspect_reads_it(tmp_path: Path) -> None:
    """Inspect's ``classify_sample_shape`` takes the single entry when both are there; the
    chunked one is a problem, not a second run."""
    original = _members(DOCENT)
    members = _docent()
    members[f"{FIRST}.json"] = original[f"{FIRST}.json"]
    result = load_runs(_write(tmp_path, members), strict=False)
    assert len(result.runs) == 15
    (problem,) = result.problems
    assert problem.where == f"{FIRST}/" and "also the single entry" in problem.message


def test_a_log_of_both_layouts_loads_in_sample_order(tmp_path: Path) -> None:
    """One log may mix the layouts, sample by sample: the same boundaries as the original."""
    original = _members(DOCENT)
    members = {n: d for n, d in _docent().items() if not n.startswith(f"{FIRST}/")}
    members[f"{FIRST}.json"] = original[f"{FIRST}.json"]
    assert _boundaries(_write(tmp_path, members)) == _boundaries(DOCENT)


def test_a_truncated_chunked_log_is_refused_not_a_traceback(tmp_path: Path) -> None:
    data = DOCENT_CHUNKED.read_bytes()
    for keep in (len(data) // 2, len(data) - 30):
        path = tmp_path / f"cut-{keep}.eval"
        path.write_bytes(data[:keep])
        with pytest.raises(LoadError) as caught:
            load_runs(path, strict=False)
        (problem,) = caught.value.problems
        assert problem.where == "(file)" and "not a readable zip archive" in problem.message


def test_a_chunk_larger_than_the_limit_is_named_before_anything_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory stays bounded as for a single-entry sample: each entry's declared size, then
    their sum, within the limit (1 MiB here, so the test writes little)."""
    import workbench._load.inspect_ai as inspect_ai

    monkeypatch.setattr(inspect_ai, "MAX_FILE_BYTES", 1 << 20)
    members = _docent(**{"events/3.json": b"[{}" + b" " * (1100 << 10) + b"]"})
    with pytest.raises(LoadError) as caught:
        load_runs(_write(tmp_path, members), strict=False)
    (problem,) = caught.value.problems
    assert problem.where == f"{FIRST}/events/3.json"
    assert problem.message == "zip member larger than the limit"


def test_a_chunk_that_is_not_json_refuses_the_file_naming_it(tmp_path: Path) -> None:
    members = _docent(**{"events/6.json": b'[{"event": "tool", '})
    with pytest.raises(LoadError) as caught:
        load_runs(_write(tmp_path, members), strict=False)
    (problem,) = caught.value.problems
    assert problem.file.endswith(f"!{FIRST}/events/6.json") and "invalid JSON" in problem.message
