"""`make mutation`'s plan: every listed module and test file exists, and the quickest modules run first."""

from __future__ import annotations

from bench.mutation import ROOT, cheapest_first, children_for, load_plan


def test_every_module_and_test_file_of_the_plan_exists():
    modules, equivalent = load_plan()
    assert modules
    for module, tests in modules.items():
        assert (ROOT / module).is_file(), module
        assert tests and all((ROOT / test).is_file() for test in tests), (module, tests)
    named = {m.replace("/", ".").removesuffix(".py") for m in modules}
    assert all(name.split(".x")[0] in named for name in equivalent), "an equivalent of a module not mutated"


def test_the_quickest_modules_run_first_unmeasured_ones_before_them_and_cut_short_ones_after():
    report = {"slow.py": {"seconds": 900}, "quick.py": {"seconds": 40}, "mid.py": {"seconds": 300},
              "partial.py": {"seconds": None}}
    assert cheapest_first(["partial.py", "slow.py", "new.py", "quick.py", "mid.py", "other.py"], report) == [
        "new.py", "other.py", "quick.py", "mid.py", "slow.py", "partial.py"]


def test_a_module_whose_tests_wait_gets_the_children_its_table_names_and_others_the_default(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.deepresearch.mutation.modules]\n"a.py" = ["t.py"]\n'
                         '[tool.deepresearch.mutation.children]\n"jobs/locks.py" = 6\n')
    assert children_for("jobs/locks.py", 2, pyproject) == 6
    assert children_for("a.py", 2, pyproject) == 2
    pyproject.write_text('[tool.deepresearch.mutation.modules]\n"a.py" = ["t.py"]\n')  # no table at all
    assert children_for("jobs/locks.py", 3, pyproject) == 3
