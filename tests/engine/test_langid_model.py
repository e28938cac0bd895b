"""The language identifier's model is unpacked once per machine into the cache folder and memory-mapped
after that; it says what py3langid's own loader says, and a cache that cannot be used costs only time."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from py3langid import modelio
from py3langid.langid import _load_identifier

from engine import langid_model
from engine.chinese import TRADITIONAL
from engine.language import NAMES

ROOT = Path(__file__).resolve().parents[2]
LANGS = sorted(set(NAMES) - {TRADITIONAL})
TEXTS = ["How does asyncio cancel tasks and handle timeouts?", "Wie funktioniert eine Wärmepumpe im Winter?",
         "¿Qué es asyncio?", "Comment fonctionne une pompe à chaleur ?", "用Postgres还是MySQL比较好",
         "asyncioはどのようにタスクをキャンセルしますか", "Hoe gedragen warmtepompen zich?", "Как работает asyncio?",
         "Vantaggi Kubernetes?", "", "12345 !!!", "x" * 3000, "Ünïcödé ẞ ǅ \u200b test"]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A cache folder of the test's own (``XDG_CACHE_HOME``)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "deepresearch" / "langid"


@pytest.fixture(scope="module")
def reference():
    """py3langid's identifier as py3langid loads it."""
    return _load_identifier(norm_probs=True, langs=LANGS)


def _same(identifier, reference) -> None:
    for text in TEXTS:
        got, want = identifier.classify(text), reference.classify(text)
        assert got[0] == want[0] and got[1] == pytest.approx(want[1], abs=1e-6), text
        assert [code for code, _ in identifier.rank(text)] == [code for code, _ in reference.rank(text)], text


def test_the_cached_model_says_what_py3langids_loader_says_and_is_mapped_not_unpacked(cache, reference, monkeypatch):
    _same(langid_model.load_identifier(LANGS), reference)  # written, then mapped
    (folder,) = cache.iterdir()
    assert sorted(p.name for p in folder.iterdir()) == sorted([*(f"{n}.npy" for n in langid_model.ARRAYS), "classes.json"])

    def unpacking(*args, **kwargs):
        raise AssertionError("the model was unpacked again")

    monkeypatch.setattr(modelio, "load_model", unpacking)
    again = langid_model.load_identifier(LANGS)
    assert isinstance(again.nb_ptc, np.memmap) and isinstance(again.tk_nextmove, memoryview)
    _same(again, reference)


def test_another_language_set_or_py3langid_version_gets_a_folder_of_its_own(cache, monkeypatch):
    langid_model.load_identifier(["de", "en"])
    langid_model.load_identifier(["en", "fr"])
    monkeypatch.setattr(langid_model, "version", lambda name: "99.0")
    narrow = langid_model.load_identifier(["de", "en"])
    assert len(list(cache.iterdir())) == 3
    assert narrow.classify("Wie funktioniert eine Wärmepumpe?")[0] == "de"
    with pytest.raises(ValueError, match="Unknown language"):
        langid_model.load_identifier(["en", "tlh"])


def test_a_cache_that_cannot_be_written_is_logged_and_the_model_loaded_in_memory(tmp_path, monkeypatch, reference, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # the cache folder would be under a file
    with caplog.at_level(logging.INFO, logger="engine.langid_model"):
        identifier = langid_model.load_identifier(LANGS)
    _same(identifier, reference)
    assert "event=language_model_cache_unused" in caplog.text
    assert not isinstance(identifier.nb_ptc, np.memmap)


@pytest.mark.parametrize("damage", ["truncated", "emptied", "classes"])
def test_a_damaged_cache_is_written_again(cache, reference, damage, caplog):
    langid_model.load_identifier(LANGS)
    (folder,) = cache.iterdir()
    if damage == "truncated":
        path = folder / "nextmove.npy"
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "emptied":
        (folder / "ptc.npy").write_bytes(b"")
    else:
        (folder / "classes.json").write_text('["en"]')
    with caplog.at_level(logging.INFO, logger="engine.langid_model"):
        _same(langid_model.load_identifier(LANGS), reference)
    assert "event=language_model_cache_rewritten" in caplog.text
    assert [p.name for p in cache.iterdir()] == [folder.name]  # written again, nothing left aside
    again = langid_model.load_identifier(LANGS)
    assert isinstance(again.nb_ptc, np.memmap)
    _same(again, reference)


def test_processes_that_build_the_cache_at_once_all_load_it_and_leave_one_folder(cache, tmp_path):
    script = ("import sys; from engine.langid_model import load_identifier; "
              f"m = load_identifier({LANGS!r}); print(m.classify(sys.argv[1])[0])")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    procs = [subprocess.Popen([sys.executable, "-c", script, "Wie funktioniert eine Wärmepumpe?"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [proc.communicate(timeout=300) for proc in procs]
    assert [out.strip() for out, _ in results] == ["de"] * 3, results
    assert len(list(cache.iterdir())) == 1  # no staging folder left behind
