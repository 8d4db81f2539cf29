#!/usr/bin/env bash
# Run every benchmark; each prints one JSON document.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/third_party_generators.sh  # FreeFont and the JavaScript generators of the third-party CAPTCHA split
for bench in benchmarks/[a-z]*.py; do
  echo "# $bench" >&2
  .venv/bin/python "$bench"
done
