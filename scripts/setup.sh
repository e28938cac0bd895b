#!/usr/bin/env bash
# Install what deepresearch-bot needs on Debian/Ubuntu: system packages (TeX, fonts, poppler,
# Redis, the Python docs used by the demo) and a virtualenv in .venv. Safe to run again.
# Fonts for every script a report may hold: fonts-noto-core (Latin, Greek, Cyrillic, Arabic, Hebrew,
# Devanagari, Thai...), fonts-noto-cjk (Chinese, Japanese, Korean), fonts-symbola (emoji in black and
# white: XeTeX cannot draw colour emoji fonts; a character no font has prints as a named placeholder).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  python3 python3-venv python3-dev gcc
  texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended lmodern fontconfig
  latexmk fonts-noto-cjk fonts-noto-core fonts-dejavu-core fonts-symbola poppler-utils
  redis-server python3-doc
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "Installing system packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "deepresearch-bot needs Python 3.11 or newer; $PY is $("$PY" --version)" >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip 2>&1 >/dev/null | grep -v -e "^WARNING: Location" || true
extras=""
[ "${1:-}" = "--dev" ] && extras="[dev]"
# setuptools' notice about editable installs (folders named like the package) is for its own
# developers: left out, as are pip's notes about index locations this machine does not have
# constraints.txt: the versions the tests last passed with (a new release cannot break a fresh install)
PYTHONWARNINGS="ignore::UserWarning" .venv/bin/python -m pip install -q -c constraints.txt -e ".${extras}" 2>&1 \
  | grep -v -e "^WARNING: Location" -e "^$" || true
.venv/bin/deepresearch --help >/dev/null
echo "Ready: .venv/bin/deepresearch"
