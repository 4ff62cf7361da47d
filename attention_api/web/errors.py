"""Every error the app answers, as JSON ``{"error": {"message", "field"}}`` with its status."""

from __future__ import annotations

from typing import Annotated

from flask import Blueprint, current_app, jsonify, request
from pydantic import Field
from werkzeug.exceptions import ClientDisconnected, HTTPException

from attention_core.errors import AttentionInputError

from ..declared import Answer
from ..names import page_message
from ..values import JSONSyntaxError

bp = Blueprint("errors", __name__)

# What any POST of a JSON body may be answered instead of its 200, for the API document: a
# body that is not JSON (400), that stopped arriving (408), too large (413), not sent as JSON
# (415), or a value that cannot be computed (422). A route that may be busy adds "503".
REFUSED = ("400", "408", "413", "415", "422")


class Refusal(Answer):
    message: Annotated[str, Field(min_length=1, description=(
        'a sentence a student can act on; it names inputs as the page does, numbered from 1: '
        '"W_K row 1 column 2", "Head 2: …"'))]
    field: Annotated[str | None, Field(description=(
        'the input to fix, as the request spells it: "W_K[0][1]", "heads[1].W_V", "d_k"; '
        "or null"))]


class Error(Answer):  # the body of every error, declared for the API document
    error: Refusal


def error(status: int, message: str, field: str | None = None):
    """The JSON error response: a sentence to act on, and the request field it concerns."""
    return jsonify({"error": {"message": message, "field": field}}), status


def retry_later(message: str, seconds: int):
    """503 with Retry-After: the server is busy with others' work, nothing was computed,
    and the same request may be sent again after ``seconds``."""
    response = error(503, message)[0]
    response.headers["Retry-After"] = str(seconds)
    return response, 503


@bp.app_errorhandler(JSONSyntaxError)
def not_json(exc: JSONSyntaxError):
    """400: the body is not JSON; the message says where it stops being JSON (values.py)."""
    return error(400, str(exc))


@bp.app_errorhandler(AttentionInputError)
def bad_input(exc: AttentionInputError):
    """422: a request that is JSON but not a computation; the message and the field name
    the value as the page names it (names.py). Every route's, the CLI aside, comes here."""
    return error(422, page_message(exc), exc.field)


@bp.app_errorhandler(ClientDisconnected)
def body_not_received(exc: ClientDisconnected):
    """408: the body stopped arriving (werkzeug's own answer is a bare 400)."""
    # The client went away mid-body. In production this never reaches the app: nginx
    # reads every body whole first, and closes a client that stops sending
    # (attention_server/nginx.conf).
    return error(408, "The request body stopped arriving before it was complete; "
                      "nothing was computed. Send it again.")


@bp.app_errorhandler(HTTPException)
def http_error(exc: HTTPException):
    """404, 405 (with Allow), 413, 415 … with a sentence naming the path or the limit."""
    messages = {
        404: f"There is nothing at {request.path}.",
        405: f"{request.path} does not accept {request.method}.",
        413: (f"The request body is larger than the limit of "
              f"{current_app.config['MAX_CONTENT_LENGTH']} bytes."),
    }
    message = messages.get(exc.code) or exc.description or exc.name
    response = error(exc.code or 500, message)[0]
    if exc.code == 405 and exc.valid_methods:
        response.headers["Allow"] = ", ".join(exc.valid_methods)
    return response, exc.code


@bp.app_errorhandler(Exception)
def unexpected_error(exc: Exception):
    """500 without a traceback; the traceback goes to the log."""
    current_app.logger.exception("unhandled error")
    return error(500, "Something went wrong on the server; the request was not computed.")
