# Venus RPA: one image for web (daphne), Celery workers, beat and flower.
# The model server (vLLM) is NOT in this image: it runs as the separate `vllm` compose service
# on GPU hosts (requirements-gpu.txt), so no CUDA build of PyTorch lands here.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VENUS_CHROMIUM_PATH=/usr/bin/chromium \
    VENUS_LOCAL_DIR=/app/.local \
    VENUS_MEDIA_ROOT=/app/.local/media \
    VENUS_STATIC_ROOT=/app/static \
    VENUS_STATIC_COLLECTED=1

# chromium: Playwright drives the system browser through executable_path (its own browser
#   download is never used).
# fonts-liberation / fonts-wqy-microhei: Latin metrics and CJK glyphs, so Chinese pages render
#   and screenshots sent to the model show real text instead of boxes.
# xvfb / xdotool / openbox / x11-utils / xclip / dbus / at-spi2-core / python3-pyatspi /
#   libatk-adaptor / libgail-common: the desktop surface (Xvfb displays with a window manager,
#   input, clipboard for non-ASCII text, accessibility names read by the system python3).
# pcmanfm / gnumeric / mousepad: the desktop practice applications (file manager, spreadsheet,
#   text editor) that desktop automations start.
# tini: PID 1 that reaps Chromium's child processes and forwards signals to Celery/daphne.
# adb: Android workers run their adb server here (network devices are `adb connect`ed to it).
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        adb \
        chromium \
        fonts-liberation \
        fonts-wqy-microhei \
        tini \
        xvfb \
        xdotool \
        openbox \
        x11-utils \
        xclip \
        dbus \
        at-spi2-core \
        python3-pyatspi \
        libatk-adaptor \
        libgail-common \
        pcmanfm \
        gnumeric \
        mousepad \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first so code edits do not invalidate the pip layer.
COPY requirements.txt requirements-ocr.txt /app/
RUN pip install -r /app/requirements.txt && pip install --no-deps -r /app/requirements-ocr.txt

RUN groupadd --system venus \
    && useradd --system --gid venus --home-dir /home/venus --create-home --shell /usr/sbin/nologin venus

COPY --chown=venus:venus . /app

# Static files, compressed, for whitenoise (VENUS_STATIC_COLLECTED=1 serves these). Throwaway keys
# only so settings load: nothing is signed or encrypted here, and no key is written to the image.
RUN DJANGO_SECRET_KEY=collectstatic-only VENUS_CREDENTIAL_KEY=collectstatic-only \
    python manage.py collectstatic --noinput -v0

# .local holds runtime state (media, generated keys in local mode). Create it owned by venus so
# a named volume mounted at /app/.local/media starts with the right owner.
RUN mkdir -p /app/.local/media \
    && chown -R venus:venus /app/.local

USER venus

EXPOSE 8000

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "venus_rpa.asgi:application"]
