#!/usr/bin/env bash
# What the third-party CAPTCHA split draws with (benchmarks/_ocr_third_party.py), for the benchmark
# and for the tests of its harness: GNU FreeFont, Node.js with the JavaScript generators pinned
# in benchmarks/node/package-lock.json (react-simple-captcha's module is run by Chromium, which
# scripts/setup.sh installs), and PHP, Perl and Ruby with Debian's generator packages
# (benchmarks/debian). The Python generators are pinned in requirements-dev.txt (scripts/setup.sh).
# Idempotent and quick when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
dpkg-query -W -f='${Status}' fonts-freefont-ttf 2>/dev/null | grep -q "install ok installed" || missing+=(fonts-freefont-ttf)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
# PHP: Gregwar/Captcha and PEAR's Text_CAPTCHA (with Image_Text, only recommended by it); Perl:
# GD::SecurityImage and Authen::Captcha; Ruby: simple_captcha2, with ImageMagick, whose `convert` it
# runs (its package does not depend on it), and DejaVu Sans, the face its README names;
# react-simple-captcha asks the browser for Arial: Liberation Sans, its metric twin, stands in.
for pkg in php-cli php-gd php-gregwar-captcha php-text-captcha php-image-text libgd-securityimage-perl \
           libauthen-captcha-perl ruby-simple-captcha2 imagemagick fonts-dejavu-core fonts-liberation; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "==> installing system packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
stamp="benchmarks/node/node_modules/.installed-$(sha256sum benchmarks/node/package-lock.json | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "==> installing the JavaScript CAPTCHA generators (benchmarks/node)"
  npm ci --prefix benchmarks/node --no-audit --no-fund --silent
  touch "$stamp"
fi
