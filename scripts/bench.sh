#!/usr/bin/env bash
# Run every benchmark; each prints one JSON document.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# GNU FreeFont: the third-party CAPTCHA split draws with it (benchmarks/_ocr_third_party.py).
if ! dpkg-query -W -f='${Status}' fonts-freefont-ttf 2>/dev/null | grep -q "install ok installed"; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends fonts-freefont-ttf >/dev/null
fi
for bench in benchmarks/[a-z]*.py; do
  echo "# $bench" >&2
  .venv/bin/python "$bench"
done
