"""`make mutation`'s plan: every listed module and test file exists, modules sharing tests run together, the
quickest runs go first, and a run's output is split per module."""

from __future__ import annotations

import json

from bench.mutation import (
    ROOT,
    cheapest_first,
    children_for,
    figures,
    groups,
    history_text,
    load_plan,
    merged_history,
    module_of_function,
    seed_lines,
)


def test_every_module_and_test_file_of_the_plan_exists():
    modules, equivalent = load_plan()
    assert modules
    for module, tests in modules.items():
        assert (ROOT / module).is_file(), module
        assert tests and all((ROOT / test).is_file() for test in tests), (module, tests)
    named = {m.replace("/", ".").removesuffix(".py") for m in modules}
    assert all(name.split(".x")[0] in named for name in equivalent), "an equivalent of a module not mutated"


def test_the_quickest_runs_go_first_unmeasured_ones_before_them_and_cut_short_ones_after():
    report = {"slow.py": {"seconds": 900}, "quick.py": {"seconds": 40}, "mid.py": {"seconds": 300},
              "partial.py": {"seconds": None}, "pair_a.py": {"seconds": 200}, "pair_b.py": {"seconds": 200}}
    runs = [["partial.py"], ["slow.py"], ["new.py"], ["quick.py"], ["mid.py"], ["pair_a.py", "pair_b.py"],
            ["other.py", "quick.py"]]
    assert cheapest_first(runs, report) == [
        ["new.py"], ["other.py", "quick.py"], ["quick.py"], ["pair_a.py", "pair_b.py"], ["mid.py"], ["slow.py"],
        ["partial.py"]]


def test_modules_sharing_a_test_file_are_one_run_and_the_others_each_their_own():
    plan = {"a.py": ["t1.py"], "b.py": ["t2.py"], "c.py": ["t3.py", "t2.py"], "d.py": ["t4.py"],
            "e.py": ["t4.py", "t1.py"], "f.py": ["t5.py"]}
    # e joins a's run and d's: the three become one run, in the plan's order
    assert groups(plan) == [["a.py", "d.py", "e.py"], ["b.py", "c.py"], ["f.py"]]
    modules, _ = load_plan()
    assert sorted(m for g in groups(modules) for m in g) == sorted(modules)


def test_a_runs_results_are_split_per_module_with_equivalents_set_aside():
    results = "\n".join([
        "    jobs.a.x_f__mutmut_1: killed", "    jobs.a.x_f__mutmut_2: survived", "    jobs.a.x_f__mutmut_3: timeout",
        "    jobs.a.x_g__mutmut_1: survived", "    jobs.ab.x_f__mutmut_1: survived", "    jobs.b.x_h__mutmut_1: killed"])
    equivalent = {"jobs.a.x_g__mutmut_1": "why", "jobs.b.x_h__mutmut_1": "never a survivor"}
    a = figures(results, equivalent, "jobs/a.py")
    assert (a["mutants"], a["killed"], a["survived"], a["equivalent"], a["score"]) == (
        4, 2, 1, {"jobs.a.x_g__mutmut_1": "why"}, 66.7)
    assert a["survivors"] == ["jobs.a.x_f__mutmut_2: survived"]
    b = figures(results, equivalent, "jobs/b.py")
    assert (b["mutants"], b["killed"], b["equivalent"], b["score"]) == (1, 1, {}, 100.0)


def test_a_module_whose_tests_wait_gets_the_children_its_table_names_and_others_the_default(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.deepresearch.mutation.modules]\n"a.py" = ["t.py"]\n'
                         '[tool.deepresearch.mutation.children]\n"jobs/locks.py" = 6\n')
    assert children_for("jobs/locks.py", 2, pyproject) == 6
    assert children_for("a.py", 2, pyproject) == 2
    pyproject.write_text('[tool.deepresearch.mutation.modules]\n"a.py" = ["t.py"]\n')  # no table at all
    assert children_for("jobs/locks.py", 3, pyproject) == 3
def test_a_mutants_tests_run_its_earlier_killer_first_then_its_functions_then_quickest_first(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from tests import mutation_order

    monkeypatch.chdir(tmp_path)  # mutmut's mutants/ directory, where its children run
    monkeypatch.delenv("MUTATION_KILLS_SEED", raising=False)
    (tmp_path / "mutmut-stats.json").write_text(json.dumps({"duration_by_test": {
        "t::slow": 6.0, "t::quick": 0.1, "t::mid": 1.0, "t::killer": 2.0, "t::other_killer": 0.05}}))
    ids = ["t::slow", "t::unmeasured", "t::mid", "t::killer", "t::quick", "t::other_killer"]

    def order(mutant: str | None) -> list[str]:
        if mutant is None:
            monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
        else:
            monkeypatch.setenv("MUTANT_UNDER_TEST", mutant)
        items = [SimpleNamespace(nodeid=i) for i in ids]
        mutation_order.pytest_collection_modifyitems(None, items)
        return [item.nodeid for item in items]

    def failed(mutant: str, test: str) -> None:
        monkeypatch.setenv("MUTANT_UNDER_TEST", mutant)
        mutation_order.pytest_runtest_logreport(SimpleNamespace(failed=True, nodeid=test))
        mutation_order.pytest_runtest_logreport(SimpleNamespace(failed=False, nodeid="t::slow"))  # a pass: not a kill

    assert order("jobs.run.x_f__mutmut_1") == ["t::other_killer", "t::quick", "t::mid", "t::killer", "t::slow",
                                                "t::unmeasured"]
    failed("jobs.run.x_f__mutmut_1", "t::killer")
    failed("jobs.run.x_f__mutmut_2", "t::killer")
    failed("jobs.run.x_f__mutmut_3", "t::mid")
    failed("jobs.run.x_g__mutmut_1", "t::slow")  # another function's killer
    assert order("jobs.run.x_f__mutmut_4") == ["t::killer", "t::mid", "t::other_killer", "t::quick", "t::slow",
                                                "t::unmeasured"]
    assert order("jobs.run.x_f__mutmut_3")[:2] == ["t::mid", "t::killer"]  # its own killer before the function's
    assert order("jobs.run.x_g__mutmut_2")[0] == "t::slow"
    # an earlier run's kills (the seed file) count as this run's
    seed = tmp_path / "seed.tsv"
    seed.write_text("jobs.run.x_f__mutmut_9\tt::unmeasured\n")
    monkeypatch.setenv("MUTATION_KILLS_SEED", str(seed))
    assert order("jobs.run.x_f__mutmut_9")[:2] == ["t::unmeasured", "t::killer"]
    # outside a mutant's child (mutmut's measuring, clean and forced-fail runs) nothing is reordered or written
    for run in (None, "stats", "", "fail"):
        assert order(run) == ids
    written = (tmp_path / "mutation-kills.tsv").read_text()
    failed("stats", "t::quick")
    assert (tmp_path / "mutation-kills.tsv").read_text() == written
    assert written.splitlines() == ["jobs.run.x_f__mutmut_1\tt::killer", "jobs.run.x_f__mutmut_2\tt::killer",
                                    "jobs.run.x_f__mutmut_3\tt::mid", "jobs.run.x_g__mutmut_1\tt::slow"]


def test_the_kill_history_seeds_a_run_with_its_modules_and_keeps_each_mutants_first_killer():
    assert module_of_function("jobs.conversation.rules.x_decide") == "jobs/conversation/rules.py"
    assert module_of_function("jobs.run.x\u01c1_TurnJob\u01c1run") == "jobs/run.py"
    history = {"jobs.run.x_f": {"t::a": [1, 3], "t::b": [2]}, "engine.citations.x_g": {"t::c": [5]}}
    assert seed_lines(history, ["jobs/run.py"]) == ["jobs.run.x_f__mutmut_1\tt::a", "jobs.run.x_f__mutmut_3\tt::a",
                                                    "jobs.run.x_f__mutmut_2\tt::b"]
    assert seed_lines(history, ["jobs/locks.py"]) == []
    kills = ["jobs.run.x_f__mutmut_4\tt::b", "jobs.run.x_h__mutmut_1\tt::a",
             "jobs.run.x_f__mutmut_4\tt::a",  # the same mutant again (run once more by name): its first killer stays
             "not a kill line"]
    merged = merged_history(history, ["jobs/run.py"], kills)
    # this run's kills replace the module's old ones; other modules' history stays
    assert merged == {"engine.citations.x_g": {"t::c": [5]}, "jobs.run.x_f": {"t::b": [4]},
                      "jobs.run.x_h": {"t::a": [1]}}
    assert json.loads(history_text(merged)) == merged  # one line per function
    assert len(history_text(merged).splitlines()) == 2 + len(merged)
