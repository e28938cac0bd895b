"""A pytest plugin for mutation runs (``-p tests.mutation_order`` in ``[tool.mutmut]``): each mutant's tests run
in the order most likely to fail soonest, so a killed mutant costs one short test, not every test before it.

mutmut hands a mutant's child process the tests that call the mutated function, in no particular order, and
stops at the first failure (``-x``). This plugin sorts them:

1. the test that killed this very mutant before (in an earlier run: the file ``MUTATION_KILLS_SEED`` names);
2. tests that killed other mutants of the same function, most kills first (a test that notices one change
   to a function tends to notice the next);
3. then the rest, quickest first (each test's seconds from mutmut's own ``mutmut-stats.json``).

The kill history is the file ``mutation-kills.tsv`` in mutmut's ``mutants/`` directory (the child's working
directory), one ``mutant<TAB>test id`` line per kill, appended by each child, read together with the seed
file of an earlier run in the same format. Outside a mutant's child (``MUTANT_UNDER_TEST`` unset, or mutmut's
``stats``, ``fail`` and clean runs) the plugin changes nothing. The order decides only how soon a mutant is
caught, never whether: the listed tests still run until one fails, and a stale history (renamed tests,
renumbered mutants) only costs time.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

KILLS = Path("mutation-kills.tsv")
STATS = Path("mutmut-stats.json")


def _mutant_under_test() -> str | None:
    """The name of the mutant this process tests (``jobs.run.x_run_job__mutmut_3``), or None."""
    name = os.environ.get("MUTANT_UNDER_TEST", "")
    return name if "__mutmut_" in name else None


def function_of(mutant: str) -> str:
    """The mangled name of ``mutant``'s function: ``jobs.run.x_run_job__mutmut_3`` -> ``jobs.run.x_run_job``."""
    return mutant.partition("__mutmut_")[0]


def _history() -> list[tuple[str, str]]:
    """``(mutant, test id)`` kills of the seed file (an earlier run) and of this run so far."""
    lines: list[str] = []
    for path in (os.environ.get("MUTATION_KILLS_SEED"), KILLS):
        if path:
            try:
                lines += Path(path).read_text(encoding="utf-8").splitlines()
            except FileNotFoundError:
                pass
    return [(mutant, test) for line in lines for mutant, _, test in [line.partition("\t")] if test]


def _seconds() -> dict[str, float]:
    """Each test's seconds in mutmut's measuring run (``duration_by_test``), by test id."""
    try:
        return dict(json.loads(STATS.read_text(encoding="utf-8"))["duration_by_test"])
    except (FileNotFoundError, KeyError, ValueError):
        return {}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """This mutant's earlier killer first, then its function's killers (most kills first), then quickest first."""
    mutant = _mutant_under_test()
    if mutant is None:
        return
    function, history = function_of(mutant), _history()
    exact = {test for name, test in history if name == mutant}
    kills = Counter(test for name, test in history if function_of(name) == function)
    seconds = _seconds()
    items.sort(key=lambda item: (item.nodeid not in exact, -kills[item.nodeid],
                                 seconds.get(item.nodeid, float("inf"))))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Append ``mutant<TAB>test id`` to the kill history when a test fails under a mutant."""
    mutant = _mutant_under_test()
    if mutant is None or not report.failed:
        return
    with KILLS.open("a", encoding="utf-8") as history:
        history.write(f"{mutant}\t{report.nodeid}\n")
