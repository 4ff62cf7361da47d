"""attention_api.web.errors: 408, 413, 415, 404, 405 (with Allow) and 500, each as JSON."""

import io
import json

import pytest

import settings
from app import create_app

MAX_BODY_BYTES = settings.MAX_BODY_BYTES.default


def post(client, body, content_type="application/json"):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post("/api/attention", data=data, content_type=content_type)


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          None])
def test_wrong_content_type_is_415(client, content_type, cat_sat):
    r = client.post("/api/attention", data=json.dumps(cat_sat), content_type=content_type)
    assert r.status_code == 415
    assert r.get_json()["error"]["field"] is None


def test_body_over_the_limit_is_413(client):
    # 5 MiB: a real model's head opened in the editor (settings.py)
    assert MAX_BODY_BYTES == 5_242_880
    r = post(client, b" " * (MAX_BODY_BYTES + 1))
    assert r.status_code == 413
    assert "5242880 bytes" in r.get_json()["error"]["message"]


def test_unknown_route_404_and_wrong_method_405_are_json(client):
    r = client.get("/api/nope")
    assert r.status_code == 404 and r.get_json()["error"]["field"] is None
    r = client.get("/api/attention")
    assert r.status_code == 405 and "does not accept GET" in r.get_json()["error"]["message"]
    assert "POST" in r.headers["Allow"]


def test_unexpected_error_is_a_json_500_without_traceback(app, monkeypatch, cat_sat):
    import attention_api.attention.routes
    def boom(*_):
        raise RuntimeError("secret internals")
    monkeypatch.setattr(attention_api.attention.routes, "compute", boom)
    app.logger.disabled = True
    r = post(app.test_client(), cat_sat)
    assert r.status_code == 500
    text = r.get_data(as_text=True)
    assert "secret internals" not in text and "Traceback" not in text
    assert r.get_json()["error"]["field"] is None


class SilentClient(io.RawIOBase):
    """A request body socket: five bytes, then the timeout of a client gone silent (as a
    socket's read timeout raises it)."""

    def __init__(self):
        self.sent = False

    def readable(self):
        return True

    def seekable(self):  # the test client asks where the stream starts
        return True

    def tell(self):
        return 0

    def seek(self, *args):
        return 0

    def readinto(self, buffer):
        if self.sent:
            raise TimeoutError("timed out")
        self.sent = True
        buffer[:5] = b'{"X":'
        return 5


def json_posts(client) -> list[str]:
    """Every path the API document says takes a POST."""
    document = client.get("/api/openapi.json")
    assert document.status_code == 200
    return [path for path, ops in document.get_json()["paths"].items() if "post" in ops]


def test_the_document_gives_every_post_the_statuses_of_a_refused_body(client):
    paths = json_posts(client)
    assert len(paths) >= 12
    document = client.get("/api/openapi.json").get_json()
    for path in paths:
        assert {"400", "408", "413", "415", "422"} <= set(document["paths"][path]["post"][
            "responses"]), path


@pytest.mark.parametrize("path", ["/api/attention", "/api/exercise", "/api/cost",
                                  "/api/model/attention"])
def test_a_body_that_stops_arriving_is_a_408_saying_so(client, path):
    assert path in json_posts(client)
    r = client.post(path, input_stream=SilentClient(), content_length=100,
                    content_type="application/json",
                    environ_overrides={"wsgi.input_terminated": False})  # a real server's stream
    assert r.status_code == 408
    assert r.get_json() == {"error": {
        "message": "The request body stopped arriving before it was complete; nothing was "
                   "computed. Send it again.",
        "field": None}}


@pytest.mark.parametrize(("padding", "status"), [(0, 200), (1, 413)])
def test_a_body_without_a_length_is_held_to_the_same_limit(cat_sat, padding, status):
    """A chunked body reaches the app with no Content-Length; werkzeug alone would read
    the first MAX_CONTENT_LENGTH bytes of it and call that the body."""
    compact = json.dumps(cat_sat, separators=(",", ":")).encode()
    limit = len(compact) + 10
    body = compact[:-1] + b" " * (10 + padding) + b"}"  # exactly the limit, or one byte over
    client = create_app({"TESTING": True, "MAX_CONTENT_LENGTH": limit}).test_client()
    response = client.post("/api/attention", input_stream=io.BytesIO(body),
                           headers={"Content-Type": "application/json"},
                           environ_overrides={"wsgi.input_terminated": True})
    assert response.status_code == status
    if status == 413:
        assert response.get_json()["error"]["message"] == (
            f"The request body is larger than the limit of {limit} bytes.")
    else:
        assert response.get_json()["tokens"] == ["the", "cat", "sat"]
