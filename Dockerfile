# Attention Explorer. Production serving (gunicorn, health check) is the subject of a later issue;
# this image runs the same app the README's run command starts.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HOST=0.0.0.0 PORT=8000
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY app.py ./
COPY attention_core ./attention_core
COPY templates ./templates
COPY static ./static
USER 10001
EXPOSE 8000
CMD ["python", "app.py"]
