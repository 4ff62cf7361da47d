"""The few answers the server writes itself, in the app's JSON error shape and with the
app's security headers, so a client sees one kind of error whoever wrote it."""

from __future__ import annotations

import json
from http import HTTPStatus

from attention_api.headers import SECURITY_HEADERS

CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


def error_response(status: int, message: str) -> bytes:
    """A whole HTTP/1.1 response: ``{"error": {"message", "field": null}}``, then close."""
    body = json.dumps({"error": {"message": message, "field": None}},
                      ensure_ascii=False, separators=(",", ":")).encode()
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body)),
               "Connection": "close", **SECURITY_HEADERS}
    head = f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    return head.encode("latin-1") + body
