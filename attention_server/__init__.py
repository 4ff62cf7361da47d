"""attention_server: how Attention Explorer is served in production.

``serve`` starts nginx (the template ``nginx.conf``) on HOST:PORT in front of stock
gunicorn (gunicorn.conf.py) on a private unix socket, and stops them together;
``startup`` refuses a taken port and loads the real models before gunicorn forks. The
app itself (app.py, attention_api) knows nothing of it.
"""
