"""The public surface: one list of names, re-exported only, each reporting ``workbench``.

httpx style: implementation modules are private and ``__init__`` re-exports; these tests keep the
API from growing (or shrinking) by accident, keep the type checkers' view (the TYPE_CHECKING
imports) equal to what runs, and check that every type a public signature names can be imported
from ``workbench`` itself.
"""

from __future__ import annotations

import ast
import inspect
import pickle
import re
import subprocess
import sys
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import workbench
import workbench.bridge
import workbench.server
import workbench.widgets

PACKAGE = Path(workbench.__file__).resolve().parent


def exports_of(init: Path) -> dict[str, str]:
    """The ``_EXPORTS`` table of a package ``__init__``, read from its source."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        target = getattr(node, "target", None)
        if isinstance(node, ast.AnnAssign) and getattr(target, "id", "") == "_EXPORTS":
            assert node.value is not None, f"{init}: _EXPORTS has no value"
            value: dict[str, str] = ast.literal_eval(node.value)
            return value
    raise AssertionError(f"{init} has no _EXPORTS table")


def type_checking_imports(init: Path) -> dict[str, str]:
    """``name -> module`` of the ``from .x import A as A`` lines under ``if TYPE_CHECKING``."""
    found: dict[str, str] = {}
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom), ast.unparse(stmt)
                for alias in stmt.names:
                    assert alias.asname == alias.name, f"{alias.name} is not re-exported as itself"
                    found[alias.name] = str(stmt.module)
    return found


@pytest.mark.parametrize("package", [workbench, workbench.bridge, workbench.server])
def test_all_is_the_export_table_sorted(package: types.ModuleType) -> None:
    init = Path(str(package.__file__))
    assert package.__all__ == sorted(exports_of(init))
    assert len(set(package.__all__)) == len(package.__all__)


@pytest.mark.parametrize("package", [workbench, workbench.bridge, workbench.server])
def test_type_checkers_see_exactly_the_export_table(package: types.ModuleType) -> None:
    """The TYPE_CHECKING imports (what mypy sees) name the same objects, from the same modules."""
    init = Path(str(package.__file__))
    assert type_checking_imports(init) == exports_of(init)


def test_every_name_resolves_to_its_module() -> None:
    for name, module in exports_of(PACKAGE / "__init__.py").items():
        value = getattr(workbench, name)
        defining = sys.modules[f"workbench.{module}"]
        assert getattr(defining, name) is value, name


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from workbench import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(workbench.__all__)


def test_unknown_names_are_attribute_errors() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        workbench.nope  # noqa: B018


def test_init_only_reexports() -> None:
    """``__init__`` defines no class or function of the domain: its only functions are the
    lazy-import machinery."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    assert defined <= {"__getattr__", "__dir__", "_claim"}


def test_exported_objects_report_workbench_as_their_module() -> None:
    """Classes and functions say ``workbench``, as httpx's do, so reprs and pickles name the
    public path."""
    for name in workbench.__all__:
        # tests/conftest.py wraps `replay` to validate every event log: look through it.
        value = inspect.unwrap(getattr(workbench, name))
        if isinstance(value, type) or inspect.isfunction(value):
            assert value.__module__ == "workbench", name
    assert repr(workbench.Suite({"tasks": []})).startswith("Suite(")
    assert f"{workbench.ToolResult.__module__}.{workbench.ToolResult.__qualname__}" == (
        "workbench.ToolResult"
    )


def test_objects_reached_through_the_library_report_workbench_too() -> None:
    """A result's class reports ``workbench`` even if it was never looked up by name first."""
    code = (
        "import workbench as wb\n"
        "s = {'suiteId': 'x.y.evals.z', 'version': '1.0.0', 'modes': ['golden'],\n"
        "     'tasks': [{'taskId': 't', 'input': {'script': []},"
        " 'expected': {'kind': 'golden', 'match': {'strategy': 'exact', 'value': 1}}}]}\n"
        "r = wb.replay(s)\n"
        "print(type(r).__module__, type(r.tasks[0]).__module__, type(r.suite).__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["workbench"] * 3


def test_exported_records_pickle_by_their_public_path() -> None:
    """Sweep workers receive agents, faults and plans by pickle: the public path must resolve."""
    values: list[Any] = [
        workbench.ScriptedAgent({"retry": 2}),
        workbench.Fault("t", 3, "hard"),
        workbench.SweepPlan(trials=2, seed=1),
        workbench.ReplayOptions(trials=3),
        workbench.Step("a", "{}", True, "fixture", "boom"),
    ]
    for value in values:
        copy = pickle.loads(pickle.dumps(value))
        assert type(copy) is type(value)
    agent = pickle.loads(pickle.dumps(values[0]))
    assert agent.default_policy == {"retry": 2}


# -- every type a public signature names is exported ------------------------------------------

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _public_callables() -> Iterator[tuple[str, Callable[..., Any], dict[str, Any]]]:
    """(label, callable, its defining module's namespace) for every exported function and
    every public method and property of every exported class."""
    for name in workbench.__all__:
        value = getattr(workbench, name)
        if inspect.isfunction(value):
            value = inspect.unwrap(value)
            yield name, value, value.__globals__
        elif isinstance(value, type):
            for attr, member in vars(value).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                target = member.fget if isinstance(member, property) else member
                if isinstance(target, classmethod | staticmethod):
                    target = target.__func__
                if inspect.isfunction(target):
                    yield f"{name}.{attr}", target, target.__globals__


def _named_types(annotation: str, namespace: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for word in _IDENTIFIER.findall(annotation):
        if word in namespace:
            yield word, namespace[word]


def test_every_type_in_a_public_signature_is_exported() -> None:
    exported = {id(getattr(workbench, n)) for n in workbench.__all__}
    missing: list[str] = []
    for label, func, namespace in _public_callables():
        for annotation in func.__annotations__.values():
            text = annotation if isinstance(annotation, str) else repr(annotation)
            for word, value in _named_types(text, namespace):
                module = getattr(value, "__module__", "") or ""
                ours = module == "workbench" or module.startswith("workbench.")
                is_type = isinstance(value, type) or (typing.get_origin(value) is not None and ours)
                if ours and is_type and id(value) not in exported:
                    missing.append(f"{label}: {word} ({module})")
    assert not missing, "\n".join(sorted(set(missing)))


def test_type_aliases_of_the_vocabulary_are_exported() -> None:
    """The closed vocabularies (``Literal`` aliases) a signature names are importable."""
    aliases = ("ArgsMatch", "ErrorCode", "FaultKind", "OnMiss", "Outcome", "RunFormat")
    more = ("ServedBy", "TrajectoryMatch", "GoldenStrategy", "PayloadPreset", "Policy")
    for name in (*aliases, *more):
        assert name in workbench.__all__, name


# -- the other public packages ----------------------------------------------------------------


def test_widgets_all_is_guarded() -> None:
    names = {
        n
        for n, v in vars(workbench.widgets).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType) and n != "annotations"
    }
    assert sorted(workbench.widgets.__all__) == workbench.widgets.__all__
    assert set(workbench.widgets.__all__) <= names
    assert names - set(workbench.widgets.__all__) <= {"in_kernel"}


@pytest.mark.parametrize("package", [workbench.bridge, workbench.server])
def test_public_package_all_resolves_lazily(package: types.ModuleType) -> None:
    for name in package.__all__:
        assert getattr(package, name) is not None, name


# -- import cost ------------------------------------------------------------------------------


def test_import_workbench_stays_under_100_ms() -> None:
    """``python -X importtime -c "import workbench"``: the package's own cumulative time."""
    times = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import workbench"],
            capture_output=True,
            text=True,
            check=True,
        )
        line = [ln for ln in out.stderr.splitlines() if ln.rstrip().endswith("| workbench")][-1]
        times.append(int(line.split("|")[1]) / 1000)
    assert min(times) < 100, times
