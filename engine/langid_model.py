"""py3langid's language identifier, its model decompressed once per machine and memory-mapped by every process.

py3langid 0.4 ships its model as an LZMA-compressed NumPy archive (``data/model.npz.xz``, 4.6 MB that
unpack to 68 MB) and unpacks it in every process that loads it: about 0.4 s of CPU and 100 MB of
private memory per process, which every later fork of that process (each pandoc or LaTeX run)
pays again in copied page tables. Here the model's arrays, already restricted to the languages
asked for, are written once as ``.npy`` files into a cache folder and opened read-only with
``numpy.load(mmap_mode="r")``: their pages are the page cache's, shared by every process on the
machine, read on first use, and not copied by a fork.

The cache folder is ``$XDG_CACHE_HOME/deepresearch/langid`` (``~/.cache/deepresearch/langid`` when
unset; the XDG Base Directory Specification), one sub-folder per py3langid version, model file
content (SHA-256: installations of the same version share it) and language set. A folder is written
under a temporary name, each file synced to disk (fsync) and listed with its size in
``manifest.json`` (and the SHA-256 of the small ones), then renamed into place, so a reader sees a
whole model or none, even after a power cut; two processes that build it at once each rename their
own copy and the second finds the first's. A folder whose files do not match their manifest, or
whose tables point outside each other (which would fail later, at the first question), is written
again once. Building also removes what builds killed half-way left (``.building-PID-*``) and model
folders no process has used for :data:`UNUSED_DAYS` days (a folder is touched, at most once a day,
when used). When the folder cannot be written or read (a read-only or full home), the
identifier is built in memory exactly as py3langid builds it, and the reason is logged at INFO
level: the results are the same, only slower to load.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np
from py3langid import langid

from engine.fsutil import owner_alive, xdg_base
from engine.redact import quoted

log = logging.getLogger(__name__)

#: The arrays of py3langid's model file, as :func:`py3langid.modelio.load_model` reads them:
#: feature x language log-probabilities, language priors, the byte DFA's distinct rows, each state's
#: row and each state's feature (-1 for none).
ARRAYS = ("ptc", "pc", "nextmove", "nextmove_row", "out_feat")
#: The files whose SHA-256 is checked at every load (about 0.6 MB in all); the two large arrays
#: (47 MB) are checked by size and by the bounds of the tables that index them.
HASHED = ("classes.json", "pc.npy", "nextmove_row.npy", "out_feat.npy")
#: Days after which a model folder no process used is removed (by a process building another).
UNUSED_DAYS = 30
#: What a cache folder that cannot be written or read raises (numpy: ValueError for a damaged
#: header, EOFError for an empty file; json: ValueError; a manifest or classes of the wrong type:
#: TypeError, KeyError, AttributeError).
_DAMAGED = (OSError, ValueError, EOFError, KeyError, TypeError, AttributeError)
_DAY = 86400.0


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/deepresearch/langid``, or ``~/.cache/deepresearch/langid``
    (:func:`engine.fsutil.xdg_base`: a relative or empty ``XDG_CACHE_HOME`` or ``HOME`` is ignored).

    Raises:
        KeyError: no home folder can be found.
    """
    return xdg_base("XDG_CACHE_HOME", ".cache") / "deepresearch" / "langid"


def load_identifier(langs: list[str]) -> langid.LanguageIdentifier:
    """py3langid's identifier (probabilities normalised) over ``langs`` (ISO 639-1 codes of its model).

    Its arrays are memory-mapped from the cache folder (written first when missing); on any
    error there it is built in memory by py3langid as ``_load_identifier(norm_probs=True,
    langs=langs)`` would. Raises ValueError for a code the model does not know, as py3langid does.
    """
    model_file = langid.MODEL_DIR / langid.MODEL_FILE
    try:
        folder = cache_root() / _key(model_file, langs)
        if not folder.is_dir():
            _write(folder, model_file, langs)
        try:
            identifier = _mapped(folder)
        except _DAMAGED as err:  # a file cut short or changed: written again once
            log.info("event=language_model_cache_rewritten error=%s detail=%s", type(err).__name__, quoted(err))
            _discard(folder)
            _write(folder, model_file, langs)
            identifier = _mapped(folder)
        _touch(folder)
        return identifier
    except (*_DAMAGED, RuntimeError) as err:
        log.info("event=language_model_cache_unused error=%s detail=%s", type(err).__name__, quoted(err))
        return langid._load_identifier(norm_probs=True, langs=langs)


def _discard(folder: Path) -> None:
    """Move ``folder`` (or a file or link in its place) aside, a rename, so a process mapping it
    keeps its files, and remove it."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        folder.unlink()
        return
    aside = Path(tempfile.mkdtemp(prefix=f".damaged-{os.getpid()}-", dir=folder.parent))
    try:
        folder.rename(aside / "model")
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _key(model_file: Path, langs: list[str]) -> str:
    """A folder name that changes with py3langid's version, its model file's content and the language set."""
    digest = hashlib.sha256(model_file.read_bytes()).hexdigest()
    text = json.dumps([version("py3langid"), digest, sorted(langs)])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _write(folder: Path, model_file: Path, langs: list[str]) -> None:
    """Unpack ``model_file``, keep the columns of ``langs`` and write the arrays into ``folder``
    (through a temporary folder, synced, then renamed into place; a file or link in its place is
    removed). Raises OSError, ValueError (unknown code)."""
    from py3langid.modelio import load_model

    ptc, pc, classes, nextmove, nextmove_row, out_feat = load_model(model_file)
    unknown = set(langs) - set(classes)
    if unknown:
        raise ValueError(f"Unknown language code(s): {sorted(unknown)}")
    keep = [i for i, code in enumerate(classes) if code in set(langs)]
    arrays = {"ptc": np.ascontiguousarray(np.asarray(ptc)[:, keep]), "pc": np.asarray(pc)[keep],
              "nextmove": np.frombuffer(nextmove, dtype=np.dtype(nextmove.typecode)),
              "nextmove_row": np.frombuffer(nextmove_row, dtype=np.dtype(nextmove_row.typecode)),
              "out_feat": np.asarray(out_feat, dtype=np.int32)}
    folder.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(folder)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        _discard(folder)
    staging = Path(tempfile.mkdtemp(prefix=f".building-{os.getpid()}-", dir=folder.parent))
    try:
        for name in ARRAYS:
            _synced(staging / f"{name}.npy", lambda f, a=arrays[name]: np.save(f, a, allow_pickle=False))
        codes = json.dumps([classes[i] for i in keep]).encode()
        _synced(staging / "classes.json", lambda f: f.write(codes))
        manifest = {p.name: {"bytes": p.stat().st_size, **({"sha256": _sha256(p)} if p.name in HASHED else {})}
                    for p in staging.iterdir()}
        _synced(staging / "manifest.json", lambda f: f.write(json.dumps(manifest).encode()))
        _fsync(staging)
        try:
            staging.rename(folder)
        except OSError:
            if not folder.is_dir():  # not a concurrent builder's rename: a real failure
                raise
        _fsync(folder.parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _synced(path: Path, write) -> None:
    """Create ``path``, ``write(file)`` into it and sync it to disk."""
    with open(path, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())


def _fsync(folder: Path) -> None:
    """Sync ``folder``'s entries to disk (POSIX: a rename is durable once its folder is synced)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _remove_leftovers(folder: Path) -> None:
    """Remove, beside ``folder``, the temporary folders of builds whose process is gone
    (``.building-PID-*``, ``.damaged-PID-*``) and model folders unused for :data:`UNUSED_DAYS` days.
    Raises nothing."""
    now = time.time()
    try:
        entries = list(folder.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        try:
            if entry.name.startswith((".building-", ".damaged-")):
                pid = entry.name.split("-")[1]
                if not pid.isdigit() or not owner_alive(int(pid)):
                    shutil.rmtree(entry, ignore_errors=True)
            elif entry != folder and entry.is_dir() and not entry.is_symlink() \
                    and now - entry.stat().st_mtime > UNUSED_DAYS * _DAY:
                _discard(entry)
        except OSError:
            continue


def _touch(folder: Path) -> None:
    """Mark ``folder`` used (its modification time) when it was last marked over a day ago. Raises nothing."""
    try:
        if time.time() - folder.stat().st_mtime > _DAY:
            os.utime(folder)
    except OSError:
        pass


def _mapped(folder: Path) -> langid.LanguageIdentifier:
    """The identifier over the arrays of ``folder``, memory-mapped read-only (the DFA tables as
    ``memoryview`` objects, which index to plain ints as py3langid's ``array`` objects do), once the
    files match ``manifest.json`` and each table indexes only inside the one it points into.
    Raises OSError, ValueError (a damaged or incomplete folder), TypeError, KeyError."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, entry in manifest.items():
        path = folder / name
        if path.stat().st_size != entry["bytes"] or ("sha256" in entry and _sha256(path) != entry["sha256"]):
            raise ValueError(f"{path}: not as written ({entry['bytes']} bytes)")
    if set(manifest) != {*(f"{n}.npy" for n in ARRAYS), "classes.json"}:
        raise ValueError(f"{folder}: the manifest lists {sorted(manifest)}")
    data = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in ARRAYS}
    classes = json.loads((folder / "classes.json").read_text())
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
        raise ValueError(f"{folder}: classes.json is no list of language codes")
    ptc, states, rows = data["ptc"], len(data["nextmove_row"]), len(data["nextmove"]) // 256
    if ptc.ndim != 2 or ptc.shape[1] != len(classes) or data["pc"].shape != (len(classes),):
        raise ValueError(f"{folder}: the model's arrays do not match its {len(classes)} languages")
    if states != len(data["out_feat"]) or not states or not rows:
        raise ValueError(f"{folder}: the model's DFA tables differ in length")
    if (data["nextmove"].max() >= states or data["nextmove_row"].max() >= rows
            or data["out_feat"].max() >= ptc.shape[0] or data["out_feat"].min() < -1):
        raise ValueError(f"{folder}: the model's DFA tables point outside each other")
    return langid.LanguageIdentifier(ptc, data["pc"], classes, memoryview(data["nextmove"]),
                                     memoryview(data["out_feat"]), norm_probs=True,
                                     tk_row=memoryview(data["nextmove_row"]))
