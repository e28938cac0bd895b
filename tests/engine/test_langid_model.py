"""The language identifier's model is unpacked once per machine into the cache folder and memory-mapped
after that; it says what py3langid's own loader says, and a cache that cannot be used costs only time."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import time
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
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*(f"{n}.npy" for n in langid_model.ARRAYS), "classes.json", "manifest.json"])

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


def _overwrite_middle(path: Path, data: bytes) -> None:
    """``data`` written over the middle of ``path``: its header and size stay as they were."""
    with open(path, "r+b") as f:
        f.seek(path.stat().st_size // 2)
        f.write(data)


#: Ways a cache folder is found damaged: cut short, emptied, another file's content, bytes changed
#: past a valid header (a disk error, a half-synced write), a folder replaced by a file.
DAMAGES = {
    "truncated": lambda f: (f / "nextmove.npy").write_bytes((f / "nextmove.npy").read_bytes()[:1000]),
    "emptied": lambda f: (f / "ptc.npy").write_bytes(b""),
    "classes cut": lambda f: (f / "classes.json").write_text('["en"]'),
    "classes reversed": lambda f: (f / "classes.json").write_text(json.dumps(
        json.loads((f / "classes.json").read_text())[::-1])),
    "classes a number": lambda f: (f / "classes.json").write_text("5"),
    "classes null": lambda f: (f / "classes.json").write_text("null"),
    "manifest gone": lambda f: (f / "manifest.json").unlink(),
    "nextmove bytes": lambda f: _overwrite_middle(f / "nextmove.npy", b"\xff" * 200_000),
    "out_feat bytes": lambda f: _overwrite_middle(f / "out_feat.npy", b"\x7f" * 4000),
    "nextmove_row bytes": lambda f: _overwrite_middle(f / "nextmove_row.npy", b"\xff" * 4000),
    "a file": lambda f: (shutil.rmtree(f), f.write_text("not a model")),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_cache_is_written_again(cache, reference, damage, caplog):
    langid_model.load_identifier(LANGS)
    (folder,) = cache.iterdir()
    DAMAGES[damage](folder)
    with caplog.at_level(logging.INFO, logger="engine.langid_model"):
        _same(langid_model.load_identifier(LANGS), reference)
    assert "event=language_model_cache_rewritten" in caplog.text or damage == "a file"
    assert [p.name for p in cache.iterdir()] == [folder.name]  # written again, nothing left aside
    again = langid_model.load_identifier(LANGS)
    assert isinstance(again.nb_ptc, np.memmap)
    _same(again, reference)


def test_what_killed_builds_left_and_models_long_unused_are_removed_by_the_next_build(cache):
    langid_model.load_identifier(["de", "en"])
    (old,) = cache.iterdir()
    os.utime(old, (0, time.time() - (langid_model.UNUSED_DAYS + 1) * 86400))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = [cache / f".building-{dead.stdout.strip()}-x1", cache / f".damaged-{dead.stdout.strip()}-x2"]
    live = cache / f".building-{os.getpid()}-x3"  # a build still running here: kept
    for folder in [*left, live]:
        folder.mkdir()
        (folder / "ptc.npy").write_bytes(b"half")
    langid_model.load_identifier(["en", "fr"])  # another language set: a build
    assert sorted(p.name for p in cache.iterdir()) == sorted([live.name, _only_model(cache).name])
    # a folder in use is touched (at most daily), so a build never takes it for an unused one
    os.utime(_only_model(cache), (0, time.time() - (langid_model.UNUSED_DAYS + 1) * 86400))
    langid_model.load_identifier(["en", "fr"])
    langid_model.load_identifier(["de", "en"])
    assert len([p for p in cache.iterdir() if not p.name.startswith(".")]) == 2


def _only_model(cache: Path) -> Path:
    (folder,) = [p for p in cache.iterdir() if not p.name.startswith(".")]
    return folder


def test_processes_that_build_the_cache_at_once_all_load_it_and_leave_one_folder(cache, tmp_path):
    script = ("import sys; from engine.langid_model import load_identifier; "
              f"m = load_identifier({LANGS!r}); print(m.classify(sys.argv[1])[0])")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    procs = [subprocess.Popen([sys.executable, "-c", script, "Wie funktioniert eine Wärmepumpe?"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [proc.communicate(timeout=300) for proc in procs]
    assert [out.strip() for out, _ in results] == ["de"] * 3, results
    assert len(list(cache.iterdir())) == 1  # no staging folder left behind


@pytest.mark.parametrize("home", ["", "relative/home"])
def test_an_empty_or_relative_home_is_not_taken_as_the_cache_folders_place(monkeypatch, home):
    """XDG Base Directory: the default is ``$HOME/.cache``; with ``HOME`` empty or relative the user's
    home folder comes from the password database (as a login shell would set it), never ``/.cache``
    or a folder below wherever the command runs."""
    import pwd

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", home)
    expected = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "deepresearch" / "langid"
    assert langid_model.cache_root() == expected
