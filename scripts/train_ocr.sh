#!/usr/bin/env bash
# `make train-ocr`: the text-CAPTCHA recogniser's recipe (docs/captcha-ocr.md). Installs the
# training-only requirements and fonts, then makes the data (fixed seeds, cached in
# .cache/ocr_train), fine-tunes ddddocr's reader on the CPU, exports
# workers/captcha/models/ocr_crnn.onnx and its manifest, stores its weights in 8 bits
# (scripts/ocr_train/quantize.py) and fits the gate. About 45 minutes on an otherwise idle 2-core
# machine (docs/captcha-ocr.md). Extra arguments go to scripts/ocr_train/train.py (e.g. --train
# 3000 --epochs 1 for a quick try); --out DIR (or --out=DIR) to quantize too.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
fonts=(fonts-dejavu-core fonts-liberation fonts-urw-base35 fonts-freefont-ttf)  # FreeFont: the wheezy source draws with it
# and every package named in scripts/ocr_train/fonts.py:EXTRA_PACKAGES, and the faces held out of
# training for the gate's calibration (scripts/ocr_train/heldout.py:HELDOUT_PACKAGES)
mapfile -t extra < <(grep -ho '^    "fonts-[a-z0-9-]*"' scripts/ocr_train/fonts.py scripts/ocr_train/heldout.py | tr -d ' "')
fonts+=("${extra[@]}")
missing=()
for pkg in "${fonts[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# torch: exactly the pinned version, a CPU build (this machine's pip configuration provides one; see the doc).
.venv/bin/pip install -q -r requirements-train.txt
start=$(date +%s)
out=()  # where train.py wrote the weights, when not the committed place
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
    --out) j=$((i + 1)); [ "$j" -le $# ] && out=(--out "${!j}") ;;
    --out=*) out=("${!i}") ;;
  esac
done
.venv/bin/python -m scripts.ocr_train.train "$@"
# The exported weights to 8-bit integers, the validation split read again with them (the manifest's
# figures are the committed file's).
.venv/bin/python -m scripts.ocr_train.quantize ${out[@]+"${out[@]}"}
echo "train-ocr: $(( $(date +%s) - start )) s wall"
# The gate is fitted for these weights (its file names their sha256): fit it again (not after a
# quick try with other arguments, which may not have written to the committed place).
if [ $# -eq 0 ]; then
  .venv/bin/pip install -q -r requirements-calibrate.txt
  .venv/bin/python -m scripts.ocr_train.calibrate
fi
