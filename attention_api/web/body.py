"""A JSON request's body, read whole within the app's body limit and decoded strictly."""

from __future__ import annotations

from flask import current_app, request
from werkzeug.exceptions import RequestEntityTooLarge, UnsupportedMediaType

from ..values import parse_json


def request_body() -> bytes:
    """The whole body, or 413 if it is over MAX_CONTENT_LENGTH however it is framed.

    werkzeug refuses a Content-Length over the limit, but reads a body without one
    (chunked) only up to the limit and returns that much as if it were all of it.
    """
    if request.content_length is not None or not request.environ.get("wsgi.input_terminated"):
        return request.get_data(cache=False)
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    stream, parts, size = request.environ["wsgi.input"], [], 0
    while size <= limit and (part := stream.read(limit + 1 - size)):
        parts.append(part)
        size += len(part)
    if size > limit:
        raise RequestEntityTooLarge()
    return b"".join(parts)


def json_payload():
    """The request's JSON body, decoded (values.parse_json); 415 for another type, 413 for
    one over the limit, 400 for one that is not JSON (as JSONSyntaxError)."""
    if not request.is_json:
        raise UnsupportedMediaType(
            f"Send the request as application/json, not "
            f"{request.mimetype or 'a body without a Content-Type'}.")
    return parse_json(request_body())
