"""`python -m bench.mutation`: mutation testing of the modules that decide correctness, with mutmut.

Each module of ``[tool.deepresearch.mutation.modules]`` in ``pyproject.toml`` is mutated with the
tests listed for it; modules that share a test file are mutated in one run, against all their tests
(:func:`groups`). For each run the tree (``engine``, ``jobs``, ``bots``, ``tests``, ``pyproject.toml``) is
copied to ``.mutation/<first module>/``, the copy's ``[tool.mutmut]`` table gets ``only_mutate`` and
``pytest_add_cli_args_test_selection``, and ``mutmut run`` runs there at the lowest CPU priority.
mutmut runs, for each mutant, only the listed tests that call the mutated function, and the plugin
``tests.mutation_order`` runs them in the order likeliest to fail first.

``bench/mutation.json`` gets, per module: ``mutants``, ``killed`` (a test failed or timed out),
``survived`` (the tests passed; mutants no test reaches count here too), ``equivalent`` (the
survivors ``[tool.deepresearch.mutation.equivalent]`` explains, with the reason), ``score``
(killed / (mutants - equivalent), in percent), the survivors' names, the tests, the modules of its run
(``run_with``), the seconds that run took and when. Modules not run this time keep their earlier entry.
Not part of ``.ci/run``. The scratch copy stays until the next run, so a survivor can be read with
``cd .mutation/<first module> && ../../.venv/bin/mutmut show NAME``.

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
import tempfile
import time
import tomllib
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "mutation.json"
#: The test that killed each mutant in the last run, ``{function: {test id: [mutant numbers]}}``: the next run
#: tries it first (``tests.mutation_order``), so a killed mutant costs about one test.
KILL_HISTORY = ROOT / "bench" / "mutation-kills.json"
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


def scratch_copy(modules: list[str], tests: list[str]) -> Path:
    """A fresh copy of the tree for ``modules``, its ``[tool.mutmut]`` narrowed to them; returns its path
    (``.mutation/<first module>``)."""
    work = WORK / modules[0].replace("/", "_").removesuffix(".py")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in TREE:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, work / name, ignore=skip)
        else:
            shutil.copy2(source, work / name)
    narrowed = (f"[tool.mutmut]\nonly_mutate = {json.dumps(modules)}\n"
                f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n")
    text = (work / "pyproject.toml").read_text()
    (work / "pyproject.toml").write_text(text.replace("[tool.mutmut]\n", narrowed, 1))
    return work


def groups(modules: dict[str, list[str]]) -> list[list[str]]:
    """``modules`` (module -> its test files) gathered into the runs that mutate them: modules that share a
    test file are mutated in one run against all their test files, so mutmut's fixed cost per run (it runs the
    tests three times before the first mutant: to map tests to functions, clean, and with a forced failure) is
    paid once for them. Each group lists its modules in the given order; groups come in the order of their
    first module. mutmut still runs, for each mutant, only the tests that call the mutated function."""
    found: list[list[str]] = []
    for module in modules:
        joined = [group for group in found if any(set(modules[module]) & set(modules[m]) for m in group)]
        merged = [m for group in joined for m in group] + [module]
        found = [group for group in found if group not in joined]
        found.append(sorted(merged, key=list(modules).index))
    return sorted(found, key=lambda group: list(modules).index(group[0]))


def union(lists: list[list[str]]) -> list[str]:
    """The items of ``lists`` in first-seen order, each once."""
    return list(dict.fromkeys(item for items in lists for item in items))


#: Memory-backed file systems for the tests' temporary files, first that exists (Linux's ``/dev/shm``).
MEMORY_TMP = (Path("/dev/shm"),)


def mutmut(work: Path, *args: str, timeout: float | None = None, env: dict[str, str] | None = None) -> str:
    """Run ``mutmut ARGS`` in ``work`` at ``nice 19``; returns its output.

    The tests' temporary files (pytest's ``tmp_path``: SQLite stores, checkpoints, reports) go to a fresh
    folder on a memory file system (:data:`MEMORY_TMP`) when there is one, removed afterwards: thousands of
    short test runs then wait on no disk flush (the turn runner's tests ran 20% faster).

    Raises:
        subprocess.CalledProcessError: mutmut failed (its output is in the exception).
        subprocess.TimeoutExpired: it ran past ``timeout`` seconds.
    """
    exe = Path(sys.executable).with_name("mutmut")
    command = ["nice", "-n", "19", str(exe), *args]
    memory = next((folder for folder in MEMORY_TMP if folder.is_dir() and os.access(folder, os.W_OK)), None)
    with tempfile.TemporaryDirectory(prefix="mutation-", dir=memory) as scratch_tmp:
        done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=timeout, check=True,  # noqa: S603
                              env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": scratch_tmp, **(env or {})})
    return done.stdout


def figures(results: str, equivalent: dict[str, str], module: str) -> dict:
    """``module``'s figures from ``mutmut results --all true`` output (see the module docstring); the output
    may list other modules' mutants too (a group's run), which are left out."""
    prefix = module.removesuffix(".py").replace("/", ".") + "."
    status = {m.group(1): m.group(2).strip() for line in results.splitlines()
              if (m := _RESULT.match(line)) and m.group(1).startswith(prefix)}
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


def module_of_function(function: str) -> str:
    """The module path of a mangled function name: ``jobs.run.x_run_job`` -> ``jobs/run.py``."""
    return function.rpartition(".")[0].replace(".", "/") + ".py"


def seed_lines(history: dict[str, dict[str, list[int]]], modules: list[str]) -> list[str]:
    """The ``mutant<TAB>test id`` lines of ``history`` (:data:`KILL_HISTORY`'s shape) for ``modules``."""
    return [f"{function}__mutmut_{number}\t{test}" for function, tests in sorted(history.items())
            if module_of_function(function) in modules for test, numbers in tests.items() for number in numbers]


def merged_history(history: dict[str, dict[str, list[int]]], modules: list[str], kills: list[str]
                   ) -> dict[str, dict[str, list[int]]]:
    """``history`` with the entries of ``modules`` replaced by this run's ``kills`` (``mutant<TAB>test id``
    lines; a mutant's first line counts: later ones come from re-runs of a single mutant)."""
    first: dict[str, str] = {}
    for line in kills:
        mutant, _, test = line.partition("\t")
        if "__mutmut_" in mutant and test:
            first.setdefault(mutant, test)
    merged = {function: tests for function, tests in history.items() if module_of_function(function) not in modules}
    for mutant, test in first.items():
        function, _, number = mutant.partition("__mutmut_")
        merged.setdefault(function, {}).setdefault(test, []).append(int(number))
    return {function: {test: sorted(numbers) for test, numbers in sorted(tests.items())}
            for function, tests in sorted(merged.items())}


def history_text(history: dict[str, dict[str, list[int]]]) -> str:
    """:data:`KILL_HISTORY`'s JSON text: one line per function, so a run's change reads as a short diff."""
    lines = [f"{json.dumps(function, ensure_ascii=False)}: {json.dumps(tests, ensure_ascii=False)}"
             for function, tests in history.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def measure(group: list[str], plan: dict[str, list[str]], equivalent: dict[str, str], *, children: int,
            timeout: float) -> dict[str, dict]:
    """Mutate the modules of ``group`` in one run against all their tests; ``{module: its entry for
    bench/mutation.json}``. Each entry's ``seconds`` is the whole run's and ``run_with`` names the group.
    Each mutant's tests start with the one that killed it last time (:data:`KILL_HISTORY`, updated after)."""
    started = time.monotonic()
    tests = union([plan[module] for module in group])
    work = scratch_copy(group, tests)
    history = json.loads(KILL_HISTORY.read_text()) if KILL_HISTORY.exists() else {}
    seed = work / "kills-seed.tsv"
    seed.write_text("".join(line + "\n" for line in seed_lines(history, group)), encoding="utf-8")
    mutmut(work, "run", "--max-children", str(children), timeout=timeout, env={"MUTATION_KILLS_SEED": str(seed)})
    results = mutmut(work, "results", "--all", "true", timeout=600)
    seconds = round(time.monotonic() - started)
    when = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    kills = work / "mutants" / "mutation-kills.tsv"
    kills_text = kills.read_text(encoding="utf-8") if kills.exists() else ""
    KILL_HISTORY.write_text(history_text(merged_history(history, group, kills_text.splitlines())), encoding="utf-8")
    entries = {}
    for module in group:
        entries[module] = figures(results, equivalent, module)
        entries[module].update(tests=tests, run_with=group, seconds=seconds, measured_at=when)
    return entries


def cheapest_first(runs: list[list[str]], report: dict) -> list[list[str]]:
    """``runs`` (groups of modules) ordered by the seconds their last run took (``report``, per module),
    quickest first: a run cut short has measured as many modules as it could. Groups with a module never
    measured come first, those whose last run was cut short (``seconds`` null) last, each in the given
    order."""
    def cost(group: list[str]) -> float:
        if any(module not in report for module in group):
            return -1.0
        seconds = [report[module].get("seconds") for module in group]
        return float("inf") if None in seconds else max(seconds)

    return sorted(runs, key=cost)


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
    chosen_plan = {module: modules[module] for module in chosen}
    for group in cheapest_first(groups(chosen_plan), report):
        print(f"mutating {', '.join(group)} ...", file=sys.stderr, flush=True)
        children = args.children or max(children_for(module, 2) for module in group)
        try:
            report.update(measure(group, chosen_plan, equivalent, children=children, timeout=args.timeout))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
            output = (err.stdout or "") + (err.stderr or "") if isinstance(err.stdout, str) else ""
            print(f"{', '.join(group)}: mutmut failed ({type(err).__name__})\n{output[-2000:]}", file=sys.stderr)
            failed = True
            continue
        for module in group:
            entry = report[module]
            print(f"{module}: {entry['killed']}/{entry['mutants']} killed, {len(entry['equivalent'])} equivalent, "
                  f"score {entry['score']}%", file=sys.stderr)
        RESULTS.write_text(json.dumps(dict(sorted(report.items())), indent=2, ensure_ascii=False) + "\n")
    print(f"{len(chosen)} module(s) in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
