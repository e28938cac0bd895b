"""py3langid's language identifier, its model decompressed once per machine and memory-mapped by every process.

py3langid 0.4 ships its model as an LZMA-compressed NumPy archive (``data/model.npz.xz``, 4.6 MB that
unpack to 68 MB) and unpacks it in every process that loads it: about 0.4 s of CPU and 100 MB of
private memory per process, which every later fork of that process (each pandoc or LaTeX run)
pays again in copied page tables. Here the model's arrays, already restricted to the languages
asked for, are written once as ``.npy`` files into a cache folder and opened read-only with
``numpy.load(mmap_mode="r")``: their pages are the page cache's, shared by every process on the
machine, read on first use, and not copied by a fork.

The cache folder is ``$XDG_CACHE_HOME/deepresearch/langid`` (``~/.cache/deepresearch/langid`` when
unset; the XDG Base Directory Specification), one sub-folder per py3langid version, model file and
language set. A folder is written under a temporary name and renamed into place, so a reader sees a
whole model or none; two processes that build it at once each rename their own copy and the second
finds the first's. A folder whose files cannot be read as the model (cut short, emptied) is
written again once. When the folder cannot be written or read (a read-only or full home), the
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
from importlib.metadata import version
from pathlib import Path

import numpy as np
from py3langid import langid

log = logging.getLogger(__name__)

#: The arrays of py3langid's model file, as :func:`py3langid.modelio.load_model` reads them:
#: feature x language log-probabilities, language priors, the byte DFA's distinct rows, each state's
#: row and each state's feature (-1 for none).
ARRAYS = ("ptc", "pc", "nextmove", "nextmove_row", "out_feat")
#: What a cache folder that cannot be written or read raises (numpy: ValueError for a damaged
#: header, EOFError for an empty file; json: ValueError).
_DAMAGED = (OSError, ValueError, EOFError, KeyError)


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/deepresearch/langid``, or ``~/.cache/deepresearch/langid`` (XDG Base Directory
    Specification: a relative or empty ``XDG_CACHE_HOME`` is ignored)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "deepresearch" / "langid"


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
            return _mapped(folder)
        except _DAMAGED as err:  # a file cut short or changed: written again once
            log.info("event=language_model_cache_rewritten error=%r", err)
            _discard(folder)
            _write(folder, model_file, langs)
            return _mapped(folder)
    except _DAMAGED as err:
        log.info("event=language_model_cache_unused error=%r", err)
        return langid._load_identifier(norm_probs=True, langs=langs)


def _discard(folder: Path) -> None:
    """Move ``folder`` aside (a rename, so a process mapping it keeps its files) and remove it."""
    aside = Path(tempfile.mkdtemp(prefix=".damaged-", dir=folder.parent))
    try:
        folder.rename(aside / "model")
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _key(model_file: Path, langs: list[str]) -> str:
    """A folder name that changes with py3langid's version, its model file and the language set."""
    stat = model_file.stat()
    text = json.dumps([version("py3langid"), str(model_file), stat.st_size, stat.st_mtime_ns, sorted(langs)])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _write(folder: Path, model_file: Path, langs: list[str]) -> None:
    """Unpack ``model_file``, keep the columns of ``langs`` and write the arrays into ``folder``
    (through a temporary folder renamed into place). Raises OSError, ValueError (unknown code)."""
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
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
    try:
        for name in ARRAYS:
            np.save(staging / f"{name}.npy", arrays[name], allow_pickle=False)
        (staging / "classes.json").write_text(json.dumps([classes[i] for i in keep]))
        try:
            staging.rename(folder)
        except OSError:
            if not folder.is_dir():  # not a concurrent builder's rename: a real failure
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _mapped(folder: Path) -> langid.LanguageIdentifier:
    """The identifier over the arrays of ``folder``, memory-mapped read-only (the DFA tables as
    ``memoryview`` objects, which index to plain ints as py3langid's ``array`` objects do).
    Raises OSError, ValueError (a damaged or incomplete folder)."""
    data = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in ARRAYS}
    classes = json.loads((folder / "classes.json").read_text())
    if data["ptc"].shape[1] != len(classes) or data["pc"].shape != (len(classes),):
        raise ValueError(f"{folder}: the model's arrays do not match its {len(classes)} languages")
    if len(data["nextmove_row"]) != len(data["out_feat"]):
        raise ValueError(f"{folder}: the model's DFA tables differ in length")
    return langid.LanguageIdentifier(data["ptc"], data["pc"], classes, memoryview(data["nextmove"]),
                                     memoryview(data["out_feat"]), norm_probs=True,
                                     tk_row=memoryview(data["nextmove_row"]))
