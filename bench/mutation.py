"""`python -m bench.mutation`: mutation testing of the modules that decide correctness, with mutmut.

Each module of ``[tool.deepresearch.mutation.modules]`` in ``pyproject.toml`` is mutated with the
tests listed for it: the tree (``engine``, ``jobs``, ``bots``, ``tests``, ``pyproject.toml``) is
copied to ``.mutation/<module>/``, the copy's ``[tool.mutmut]`` table gets ``only_mutate`` and
``pytest_add_cli_args_test_selection``, and ``mutmut run`` runs there at the lowest CPU priority.
mutmut runs, for each mutant, only the listed tests that call the mutated function.

``bench/mutation.json`` gets, per module: ``mutants``, ``killed`` (a test failed or timed out),
``survived`` (the tests passed; mutants no test reaches count here too), ``equivalent`` (the
survivors ``[tool.deepresearch.mutation.equivalent]`` explains, with the reason), ``score``
(killed / (mutants - equivalent), in percent), the survivors' names, the seconds it took and
when. Modules not run this time keep their earlier entry. Not part of ``.ci/run``: a full run takes
minutes per module. The scratch copy stays until the next run, so a survivor can be read with
``cd .mutation/<module> && ../../.venv/bin/mutmut show NAME``.

Usage::

    python -m bench.mutation                                  # every listed module
    python -m bench.mutation --module engine/citations.py     # one (repeatable)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "mutation.json"
WORK = ROOT / ".mutation"
TREE = ("engine", "jobs", "bots", "tests", "pyproject.toml")
#: mutmut's words for a detected mutant (``mutmut.stats.status_by_exit_code``).
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
_RESULT = re.compile(r"^\s+(\S+): (.+)$")


def load_plan(pyproject: Path = ROOT / "pyproject.toml") -> tuple[dict[str, list[str]], dict[str, str]]:
    """``({module: [test paths]}, {mutant name: reason it is equivalent})`` from ``pyproject.toml``.

    Raises:
        KeyError: ``[tool.deepresearch.mutation.modules]`` is missing.
    """
    table = tomllib.loads(pyproject.read_text())["tool"]["deepresearch"]["mutation"]
    return dict(table["modules"]), dict(table.get("equivalent") or {})


def children_for(module: str, default: int, pyproject: Path = ROOT / "pyproject.toml") -> int:
    """Mutants of ``module`` tested at once: ``[tool.deepresearch.mutation.children]`` names more for
    modules whose tests mostly wait (leases, polls) rather than compute; else ``default``."""
    table = tomllib.loads(pyproject.read_text())["tool"]["deepresearch"]["mutation"]
    return int((table.get("children") or {}).get(module, default))


def scratch_copy(module: str, tests: list[str]) -> Path:
    """A fresh copy of the tree for ``module``, its ``[tool.mutmut]`` narrowed to it; returns its path."""
    work = WORK / module.replace("/", "_").removesuffix(".py")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in TREE:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, work / name, ignore=skip)
        else:
            shutil.copy2(source, work / name)
    narrowed = (f"[tool.mutmut]\nonly_mutate = {json.dumps([module])}\n"
                f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n")
    text = (work / "pyproject.toml").read_text()
    (work / "pyproject.toml").write_text(text.replace("[tool.mutmut]\n", narrowed, 1))
    return work


def mutmut(work: Path, *args: str, timeout: float | None = None) -> str:
    """Run ``mutmut ARGS`` in ``work`` at ``nice 19``; returns its output.

    Raises:
        subprocess.CalledProcessError: mutmut failed (its output is in the exception).
        subprocess.TimeoutExpired: it ran past ``timeout`` seconds.
    """
    exe = Path(sys.executable).with_name("mutmut")
    command = ["nice", "-n", "19", str(exe), *args]
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=timeout, check=True,  # noqa: S603
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return done.stdout


def figures(results: str, equivalent: dict[str, str]) -> dict:
    """The module's figures from ``mutmut results --all true`` output (see the module docstring)."""
    status = {m.group(1): m.group(2).strip() for line in results.splitlines() if (m := _RESULT.match(line))}
    killed = sorted(name for name, word in status.items() if word in KILLED)
    survived = sorted(name for name, word in status.items() if word not in KILLED)
    equivalents = {name: equivalent[name] for name in survived if name in equivalent}
    judged = len(status) - len(equivalents)
    return {
        "mutants": len(status),
        "killed": len(killed),
        "survived": len(survived) - len(equivalents),
        "equivalent": equivalents,
        "score": round(100 * len(killed) / judged, 1) if judged else None,
        "survivors": [f"{name}: {status[name]}" for name in survived if name not in equivalents],
    }


def measure(module: str, tests: list[str], equivalent: dict[str, str], *, children: int, timeout: float) -> dict:
    """Mutate ``module`` against ``tests``; its entry for ``bench/mutation.json``."""
    started = time.monotonic()
    work = scratch_copy(module, tests)
    mutmut(work, "run", "--max-children", str(children), timeout=timeout)
    entry = figures(mutmut(work, "results", "--all", "true", timeout=600), equivalent)
    entry.update(tests=tests, seconds=round(time.monotonic() - started),
                 measured_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return entry


def cheapest_first(modules: list[str], report: dict) -> list[str]:
    """``modules`` ordered by the seconds their last run took (``report``), quickest first: a run cut short
    has measured as many modules as it could. Modules never measured come first, those whose last run
    was cut short (``seconds`` null) last, each group in the given order."""
    def cost(module: str) -> float:
        if module not in report:
            return -1.0
        seconds = report[module].get("seconds")
        return float("inf") if seconds is None else seconds

    return sorted(modules, key=cost)


def main(argv: list[str] | None = None) -> int:
    """Measure the modules asked for (all by default) and update ``bench/mutation.json``; 1 on a failure."""
    parser = argparse.ArgumentParser(prog="python -m bench.mutation", description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", help="a module path as listed in pyproject.toml")
    parser.add_argument("--children", type=int, help="mutants tested at once, for every module (default: 2, or "
                        "what [tool.deepresearch.mutation.children] says for the module)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds one module may take")
    args = parser.parse_args(argv)
    modules, equivalent = load_plan()
    chosen = args.module or list(modules)
    unknown = [m for m in chosen if m not in modules]
    if unknown:
        parser.error(f"not in [tool.deepresearch.mutation.modules]: {', '.join(unknown)}")
    report = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    failed = False
    started = time.monotonic()
    for module in cheapest_first(chosen, report):
        print(f"mutating {module} ...", file=sys.stderr, flush=True)
        try:
            report[module] = measure(module, modules[module], equivalent,
                                     children=args.children or children_for(module, 2), timeout=args.timeout)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
            output = (err.stdout or "") + (err.stderr or "") if isinstance(err.stdout, str) else ""
            print(f"{module}: mutmut failed ({type(err).__name__})\n{output[-2000:]}", file=sys.stderr)
            failed = True
            continue
        entry = report[module]
        print(f"{module}: {entry['killed']}/{entry['mutants']} killed, {len(entry['equivalent'])} equivalent, "
              f"score {entry['score']}%", file=sys.stderr)
        RESULTS.write_text(json.dumps(dict(sorted(report.items())), indent=2, ensure_ascii=False) + "\n")
    print(f"{len(chosen)} module(s) in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
