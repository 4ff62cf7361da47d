"""attention_server: how Attention Explorer is served in production.

``worker`` is the gunicorn worker that gunicorn.conf.py names: gthread, with each request
read whole by the worker's event loop before a thread takes it (``framing`` says when a
request is whole; ``replies`` writes the few answers the server sends itself). The app
itself (app.py, attention_api) knows nothing of it.
"""
