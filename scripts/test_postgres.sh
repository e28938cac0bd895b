#!/usr/bin/env bash
# Make sure a PostgreSQL server answers on 127.0.0.1:5432 for the tests, as scripts/test.sh does for Redis:
# install Debian's postgresql when no server is there, start its cluster, and let the local user
# `postgres` in without a password over TCP from 127.0.0.1 only (a test machine's server, never a
# production one). Each Postgres test creates its own database and drops it afterwards.
set -euo pipefail
ready() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
if command -v pg_isready >/dev/null && ready; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  echo "Installing postgresql"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi
version=$(ls /etc/postgresql | sort -V | tail -1)
conf=/etc/postgresql/$version/main
# trust for the test role over loopback TCP, ahead of the packaged rules
if ! $SUDO grep -q "^host all postgres 127.0.0.1/32 trust" "$conf/pg_hba.conf"; then
  $SUDO sed -i '1i host all postgres 127.0.0.1/32 trust' "$conf/pg_hba.conf"
fi
echo "Starting PostgreSQL $version on 127.0.0.1:5432"
$SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null \
  || $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main reload
for _ in $(seq 1 100); do ready && exit 0; sleep 0.1; done
echo "PostgreSQL did not answer on 127.0.0.1:5432" >&2
exit 1
