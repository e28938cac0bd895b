"""Everything the product imports comes from a dependency it declares (not from the dev extra).

The test tools install more than a user's ``bash scripts/setup.sh`` does; a module that only a dev
tool happens to bring (markdown-it-py's "gfm-like" preset needs linkify-it-py, which only mutmut's
textual pulled in) works under the tests and fails the quick start.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.bots.console_helpers import RUN_TIMEOUT, ask_env, write_docs

#: Modules a run loads from the standard library or the project itself: no distribution to declare.
_OWN = {"engine", "jobs", "bots", "manifests"}
#: Modules loaded when present and done without otherwise, each with where it comes from.
_OPTIONAL = {
    "setproctitle": "rq names its worker processes with it when it is installed (rq/worker/base.py)",
    "_distutils_hack": "setuptools' .pth hook, loaded at every start of a virtualenv's Python",
}


def runtime_closure(project: str = "deepresearch-bot") -> set[str]:
    """The canonical names of ``project`` and every distribution its dependencies (no extras of its
    own; the extras its dependencies name) require, as installed here."""
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(project, frozenset[str]())]
    while todo:
        name, extras = todo.pop()
        key = (canonicalize_name(name), extras)
        if key in seen:
            continue
        seen.add(key)
        try:
            lines = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for line in lines:
            req = Requirement(line)
            wanted = extras if name != project else frozenset()
            if req.marker and not any(req.marker.evaluate({"extra": e}) for e in {"", *wanted}):
                continue
            todo.append((req.name, frozenset(req.extras)))
    return {name for name, _ in seen}


def _loaded(tmp_path: Path, name: str, argv: list[str], also: str = "") -> set[str]:
    """The top-level modules a ``deepresearch ARGV`` process had loaded when it exited."""
    out = tmp_path / f"{name}.json"
    script = textwrap.dedent(f"""
        import atexit, json, sys
        atexit.register(lambda: json.dump(sorted({{m.split(".")[0] for m in sys.modules}}), open({str(out)!r}, "w")))
        {also}
        sys.argv = ["deepresearch", *{argv!r}]
        from bots.cli import main
        main()
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=ask_env(tmp_path),
                         cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert run.returncode == 0, run.stderr[-3000:]
    return set(json.loads(out.read_text()))


def test_every_module_a_run_loads_is_from_a_declared_dependency(tmp_path):
    docs = write_docs(tmp_path / "docs")
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nSolar panels[^1] need an inverter.\n\n[^1]: On the roof.\n", encoding="utf-8")
    loaded = _loaded(tmp_path, "ask", ["ask", "--offline", "--no-clarify", "--corpus", str(docs), "--file",
                                       str(notes), "How efficient are solar panels?"])
    report = next((tmp_path / "data" / "artifacts").rglob("report.md"))
    loaded |= _loaded(tmp_path, "render", ["render", str(report), "--out", str(tmp_path / "again")],
                      also="import bots.slack.app, bots.teams.server, jobs.worker, engine.openai_model, "
                           "engine.search.tavily, engine.search.postgres_text")
    owners = metadata.packages_distributions()
    declared = runtime_closure()
    undeclared = {module: owners[module] for module in sorted(loaded - _OWN - set(_OPTIONAL) - set(sys.stdlib_module_names))
                  if module in owners and not {canonicalize_name(d) for d in owners[module]} & declared}
    assert undeclared == {}


def _distribution_modules(name: str) -> set[str]:
    """The dotted module names a distribution installs (its ``.py`` files, extension modules and
    package folders)."""
    modules = set()
    for file in metadata.distribution(name).files or []:
        path = Path(str(file))
        parts = (*path.parts[:-1], path.name.split(".")[0])
        if path.suffix in (".py", ".so") and ".." not in parts and not parts[0].endswith((".dist-info", ".data")):
            modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return modules


def _product_imports() -> set[str]:
    """Every module name the product's own code (engine, jobs, bots, manifests) imports."""
    names = set()
    root = Path(__file__).resolve().parents[1]
    for folder in sorted(_OWN):
        for path in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module)
                    names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_every_declared_dependency_is_imported_by_the_product():
    """A dependency in ``pyproject.toml`` that no product module imports is one to remove."""
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    imported = _product_imports()
    unused = [req.name for req in map(Requirement, project["dependencies"])
              if not _distribution_modules(req.name) & imported]
    assert unused == []
