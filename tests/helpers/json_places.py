"""Every place in a decoded JSON value, a copy with values swapped at some of them, and a
real recording with one value set, for the tests that change a value somewhere in a real
recording and check that it loads what it can or is refused with places (R35)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs in the test environment
from hypothesis import strategies as st

MISSING = object()
"""A value for :func:`set_first` that removes the member."""


def value_paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths (keys and indexes) to ``value`` itself and to every value inside it."""
    out = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            out += value_paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += value_paths(item, (*here, index))
    return out


_ONE_TO_THREE = st.integers(1, 3)


def with_values_swapped(
    value: Any,
    data: st.DataObject,
    values: st.SearchStrategy[Any],
    changes: st.SearchStrategy[int] | None = None,
) -> Any:
    """A deep copy of ``value`` with a value drawn from ``values`` put at a drawn place (never
    the root), as many times as ``changes`` draws (1 to 3 unless given; fewer, once no place
    is left)."""
    changed = copy.deepcopy(value)
    for _ in range(data.draw(changes if changes is not None else _ONE_TO_THREE)):
        places = value_paths(changed)[1:]
        if not places:
            break
        place = data.draw(st.sampled_from(places))
        holder = changed
        for key in place[:-1]:
            holder = holder[key]
        holder[place[-1]] = copy.deepcopy(data.draw(values))
    return changed


def _first(node: Any, wanted: dict[str, Any]) -> dict[str, Any] | None:
    """The first object in ``node`` that holds each of ``wanted``'s members at their values
    (or, given ``...``, at all)."""
    if isinstance(node, dict):
        if all(k in node and (v is ... or node[k] == v) for k, v in wanted.items()):
            return node
        children: Any = node.values()
    else:
        children = node if isinstance(node, list) else ()
    return next((f for c in children if (f := _first(c, wanted)) is not None), None)


def _set(node: Any, wanted: dict[str, Any], member: str, value: Any) -> bool:
    found = _first(node, wanted)
    if found is not None:
        if value is MISSING:
            del found[member]
        else:
            found[member] = value
    return found is not None


def set_first(
    source: Path, wanted: dict[str, Any], member: str, value: Any, out: Path
) -> tuple[Path, int | None]:
    """``source`` (a JSON document, or JSON lines) with ``member`` of its first object that
    holds each of ``wanted``'s members at their values (or, given ``...``, at all) set to
    ``value`` (removed, for :data:`MISSING`), and the changed line's number (JSON lines)."""
    text = source.read_text()
    path = out / source.name
    if source.suffix == ".jsonl":
        lines = text.splitlines()
        for number, line in enumerate(lines):
            record = None if line.startswith("#") or not line.strip() else json.loads(line)
            if record is not None and _set(record, wanted, member, value):
                lines[number] = json.dumps(record)
                path.write_text("\n".join(lines) + "\n")
                return path, number + 1
        raise AssertionError(f"no {wanted} in {source}")
    document = json.loads(text)
    assert _set(document, wanted, member, value), f"no {wanted} in {source}"
    path.write_text(json.dumps(document))
    return path, None


def set_in_cassette(
    source: Path,
    wanted: dict[str, Any],
    member: str,
    value: Any,
    out: Path,
    *,
    resent: bool,
) -> tuple[Path, int]:
    """``source`` (a YAML HTTP cassette whose bodies are JSON text or ``parsed_body``) with
    ``member`` set to ``value`` in the first object matching ``wanted`` (as for
    :func:`set_first`) of the first response body holding one, and, ``resent``, in every
    request body after it that holds the same object (the client sending the reply back);
    the number of the interaction changed first."""
    cassette = yaml.safe_load(source.read_text())
    changed: dict[str, Any] | None = None
    first = -1
    for number, interaction in enumerate(cassette["interactions"]):
        sides = ("response", "request") if changed is None else ("request",)
        for side in sides:
            holder = interaction[side]
            for key, body in _bodies(holder):
                if changed is None and side == "response":
                    found = _first(body, wanted)
                    if found is None:
                        continue
                    changed, first = copy.deepcopy(found), number
                    _set(body, wanted, member, value)
                elif changed is not None and side == "request" and resent:
                    if not _set(body, changed, member, value):
                        continue
                else:
                    continue
                _put(holder, key, body)
    assert changed is not None, f"no {wanted} in a response of {source}"
    path = out / source.name
    path.write_text(yaml.dump(cassette, Dumper=_NoAliases))
    return path, first


class _NoAliases(yaml.SafeDumper):  # type: ignore[misc]  # (no stubs: an untyped base)
    """Writes a value set in several places in full each time (cassettes have no aliases)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _bodies(holder: dict[str, Any]) -> list[tuple[str, Any]]:
    """A request's or response's JSON body, decoded, with where it was (``parsed_body``,
    ``body``: JSON text, ``body.string``: JSON text)."""
    if isinstance(holder.get("parsed_body"), dict | list):
        return [("parsed_body", holder["parsed_body"])]
    body = holder.get("body")
    text = body.get("string") if isinstance(body, dict) else body
    if isinstance(text, str) and text.lstrip().startswith(("{", "[")):
        return [("string" if isinstance(body, dict) else "body", json.loads(text))]
    return []


def _put(holder: dict[str, Any], key: str, body: Any) -> None:
    if key == "parsed_body":
        holder["parsed_body"] = body
    elif key == "string":
        holder["body"]["string"] = json.dumps(body)
    else:
        holder["body"] = json.dumps(body)
