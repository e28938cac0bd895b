.PHONY: setup test demo bench chaos lint

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
