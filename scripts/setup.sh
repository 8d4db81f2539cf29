#!/usr/bin/env bash
# Install what the project needs on a fresh Debian machine: system packages and .venv.
# Idempotent and quick when everything is there already.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(chromium redis-server postgresql fonts-liberation fonts-dejavu-core fonts-wqy-microhei adb)
# The desktop surface: Xvfb displays with openbox, input and clipboard, accessibility names (read by
# the system python3's pyatspi), and the practice applications (docs/surfaces.md).
DESKTOP_PACKAGES=(xvfb xdotool openbox x11-utils xclip dbus at-spi2-core python3-pyatspi libatk-adaptor libgail-common
                  pcmanfm gnumeric mousepad)
missing=()
command -v chromium >/dev/null || missing+=(chromium fonts-liberation)
command -v redis-server >/dev/null || missing+=(redis-server)
# adb: the Android surface's adb server (tests and `make up` connect the emulated phone to it).
command -v adb >/dev/null || missing+=(adb)
[ -x /usr/lib/postgresql/15/bin/initdb ] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
# Fonts the practice CAPTCHAs draw with (grep without -q: no SIGPIPE to fc-list under pipefail).
fc-list 2>/dev/null | grep -i "WenQuanYi Micro Hei" >/dev/null || missing+=(fonts-wqy-microhei)
fc-list 2>/dev/null | grep -i "DejaVu Sans" >/dev/null || missing+=(fonts-dejavu-core)
for pkg in "${DESKTOP_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "==> installing system packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v docker-compose >/dev/null && [ "${WITH_COMPOSE:-0}" = "1" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker-compose >/dev/null
fi

PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
stamp=".venv/.installed-$(cat requirements.txt requirements-dev.txt requirements-ocr.txt | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "==> installing Python packages"
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -r requirements-dev.txt
  # Without its dependencies: it asks for opencv-python, which would overwrite the cv2 of the
  # pinned opencv-python-headless (requirements.txt); its other dependencies are pinned there.
  .venv/bin/pip install -q --no-deps -r requirements-ocr.txt
  rm -f .venv/.installed-*
  touch "$stamp"
fi
# The real third-party applications the tests drive (Trac, Roundup…), each in its own venv.
scripts/realapps.sh
