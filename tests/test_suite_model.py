"""The suite model: byte-stable round trips, official validity (R9), the overwrite guard and atomic
saves. Official validity is checked here with the official schema file itself (jsonschema and a
``referencing`` registry holding ``agent-eval-suite.schema.json`` and ``ids.schema.json``), not
only through the workbench's own validator.
"""

from __future__ import annotations

import copy
import functools
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

import workbench as wb
from helpers.paths import BILLING, OFFICIAL, TAU_FULL
from workbench import FileChangedError, Suite, SuiteError


@functools.cache
def official_validator() -> jsonschema.protocols.Validator:
    """The official RFC 0081 suite schema, read from the vendored file, with its ``ids`` file."""
    suite = json.loads((OFFICIAL / "agent-eval-suite.schema.json").read_text(encoding="utf-8"))
    ids = json.loads((OFFICIAL / "ids.schema.json").read_text(encoding="utf-8"))
    registry: Registry[Any] = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in (suite, ids)
    )
    cls = jsonschema.validators.validator_for(suite)
    return cls(suite, registry=registry)


def official_errors(data: Any) -> list[str]:
    return [e.message for e in official_validator().iter_errors(data)]


def plain_suite() -> dict[str, Any]:
    """An RFC 0081 suite with none of the RFC 0244/0245 or project members."""
    return {
        "suiteId": "core.acme.evals.refunds",
        "version": "1.2.0",
        "targetAgentId": "core.acme.refund-agent",
        "modes": ["golden", "rubric"],
        "thresholds": {"passScore": 0.8},
        "tasks": [
            {
                "taskId": "refund-1",
                "input": {"message": "refund order 7", "nested": {"z": 1, "a": [1.5, "é"]}},
                "expected": {"kind": "golden", "match": {"strategy": "contains", "value": "ok"}},
                "fixtures": {
                    "toolResponses": [{"tool": "orders.get", "response": {"status": "shipped"}}],
                    "memorySeed": [{"fact": "vip"}],
                },
            },
            {
                "taskId": "refund-2",
                "input": "plain text input",
                "expected": {"kind": "rubric", "rubric": [{"criterion": "polite", "weight": 1}]},
            },
        ],
    }


def test_official_validator_sees_what_it_should() -> None:
    """The schema loaded here refuses the extension members (so the R9 checks below can fail)."""
    assert official_errors(plain_suite()) == []
    extended = plain_suite()
    extended["tasks"][0]["fixtures"]["toolResponses"][0]["isError"] = True
    assert official_errors(extended)
    with_trials = plain_suite()
    with_trials["trials"] = 2
    assert official_errors(with_trials)


def test_plain_suite_validates_officially_and_export_adds_nothing(tmp_path: Path) -> None:
    """R9: a suite using no extension member is valid against the official schema unchanged, and
    save -> load -> save never adds an extension member (no defaults written out)."""
    data = plain_suite()
    suite = Suite(copy.deepcopy(data))
    assert suite.extension_members() == []
    assert suite.validate(official=True) == []
    path = suite.save(tmp_path / "plain.json")
    reloaded = Suite.load(path)
    assert reloaded.data == data
    assert official_errors(json.loads(path.read_text(encoding="utf-8"))) == []
    assert reloaded.extension_members() == []
    reloaded.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_promoted_suite_round_trips_byte_for_byte(tmp_path: Path) -> None:
    """load -> export -> load gives the same bytes (stable JSON), for a real promoted suite."""
    suite = wb.promote(wb.load_runs(TAU_FULL)).suite
    first = suite.save(tmp_path / "tau.json")
    loaded = Suite.load(first)
    assert loaded.to_json() == first.read_text(encoding="utf-8") == suite.to_json()
    second = loaded.save(tmp_path / "tau2.json")
    assert second.read_bytes() == first.read_bytes()
    assert loaded == suite


def test_unknown_members_survive_a_round_trip(tmp_path: Path) -> None:
    """Members the workbench does not know are kept as they are."""
    data = plain_suite()
    data["x-team"] = {"owner": "ana"}
    data["tasks"][0]["x-note"] = [1, 2]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    saved = Suite.load(path).save(tmp_path / "out.json")
    assert json.loads(saved.read_text(encoding="utf-8")) == data


def test_export_is_stable_json(tmp_path: Path) -> None:
    """Members in their order (R42: a recorded payload keeps its member order), 2-space indent,
    trailing newline, UTF-8 text kept as text."""
    data = plain_suite()
    data["tasks"][0]["fixtures"] = {
        "toolResponses": [{"tool": "t", "response": {"z": 1, "a": {"y": 2, "b": 3}}}]
    }
    text = Suite(data).to_json()
    assert text.endswith("}\n")
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert text.index('"z"') < text.index('"a"') and text.index('"y"') < text.index('"b"')


def test_saving_over_a_file_changed_on_disk_is_refused(tmp_path: Path) -> None:
    """The overwrite guard: another writer's change is not silently lost."""
    path = tmp_path / "s.json"
    Suite(plain_suite()).save(path)
    suite = Suite.load(path)
    suite.data["version"] = "2.0.0"
    other = plain_suite()
    other["version"] = "9.9.9"
    path.write_text(json.dumps(other), encoding="utf-8")
    with pytest.raises(FileChangedError, match="changed on disk") as info:
        suite.save()
    assert info.value.path == str(path)
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == "9.9.9"
    suite.save(overwrite=True)
    assert Suite.load(path).version == "2.0.0"


def test_saving_twice_after_own_save_is_allowed(tmp_path: Path) -> None:
    """The guard compares with what this suite last wrote, not with the first load."""
    path = tmp_path / "s.json"
    Suite(plain_suite()).save(path)
    suite = Suite.load(path)
    suite.data["version"] = "1.3.0"
    suite.save()
    suite.data["version"] = "1.4.0"
    suite.save()
    assert Suite.load(path).version == "1.4.0"


def test_saving_to_a_new_path_is_not_guarded(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    Suite(plain_suite()).save(path)
    suite = Suite.load(path)
    path.write_text(json.dumps(plain_suite()) + " ", encoding="utf-8")
    target = suite.save(tmp_path / "copy.json")
    assert suite.path == str(target)


def test_failed_save_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Atomic save: a failure mid-write leaves the previous file whole and no temp file behind."""
    path = tmp_path / "s.json"
    Suite(plain_suite()).save(path)
    before = path.read_bytes()
    suite = Suite.load(path)
    suite.data["tasks"] = suite.data["tasks"] * 50

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="No space left"):
        suite.save()
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_failed_rename_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.json"
    Suite(plain_suite()).save(path)
    before = path.read_bytes()
    suite = Suite.load(path)
    suite.data["version"] = "3.0.0"

    def broken_replace(src: Any, dst: Any) -> None:
        raise OSError(5, "I/O error")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        suite.save()
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_suite_file_errors_name_the_file_and_field(tmp_path: Path) -> None:
    not_object = tmp_path / "list.json"
    not_object.write_text("[]", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"list\.json.*JSON object"):
        Suite.load(not_object)
    no_tasks = tmp_path / "notasks.json"
    no_tasks.write_text('{"suiteId": "a.b.evals.c"}', encoding="utf-8")
    with pytest.raises(SuiteError, match=r"notasks\.json.*'tasks'"):
        Suite.load(no_tasks)
    broken = tmp_path / "broken.json"
    broken.write_text('{"tasks": [\n,]}', encoding="utf-8")
    with pytest.raises(wb.JSONFileError, match=r"broken\.json.*line 2"):
        Suite.load(broken)


def test_task_lookup_and_copy_are_independent() -> None:
    suite = Suite(plain_suite())
    assert suite.task("refund-2")["input"] == "plain text input"
    with pytest.raises(KeyError, match="refund-1, refund-2"):
        suite.task("nope")
    clone = suite.copy()
    clone.task("refund-1")["input"]["message"] = "changed"
    assert suite.task("refund-1")["input"]["message"] == "refund order 7"


def test_promoted_suite_is_not_officially_valid_and_says_why() -> None:
    """R9 the other way: a promoted suite uses the extension (``isError``, ``trajectory``,
    ``x-promotion``), so the official schema refuses it and ``extension_members`` names them."""
    suite = wb.promote(wb.load_runs(BILLING)).suite
    members = suite.extension_members()
    assert "tasks[0].fixtures.toolResponses[3].isError" in members
    assert "x-promotion" in members
    assert official_errors(suite.data)
    assert suite.validate() == []
