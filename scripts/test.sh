#!/usr/bin/env bash
# Install everything (scripts/setup.sh --dev), make sure Redis answers on 127.0.0.1:6379 and PostgreSQL on
# 127.0.0.1:5432 (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres), run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "Starting redis-server on 127.0.0.1:6379"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
bash scripts/test_postgres.sh
.venv/bin/ruff check .
# Bytecode is written (a shell or image may say not to, PYTHONDONTWRITEBYTECODE): the tests start some
# hundreds of `deepresearch` processes, each of which would compile the project's modules again, and each
# pytest worker would rewrite every test module's assertions again.
unset PYTHONDONTWRITEBYTECODE
.venv/bin/python -m compileall -q engine jobs bots bench >/dev/null
# A private temporary folder: pytest prunes old ones of other sessions running at the same time.
basetemp=$(mktemp -d "${TMPDIR:-/tmp}/deepresearch-tests.XXXXXX")
# Four workers: most tests wait on child processes, so four keep two cores busy (TEST_WORKERS to change);
# work stealing: a worker that runs out takes tests queued for another, so no core idles at the end.
exec .venv/bin/python -m pytest -q -n "${TEST_WORKERS:-4}" --dist worksteal --basetemp "$basetemp" "$@"
