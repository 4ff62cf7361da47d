"""The few answers the server writes itself, in the app's JSON error shape and with the
app's security headers, so a client sees one kind of error whoever wrote it."""

from __future__ import annotations

import html
import json
import re
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


class CapturedError:
    """Stands in for the client socket while gunicorn writes its HTML error answer."""

    def __init__(self):
        self.data = b""

    def gettimeout(self):
        return 0.0  # gunicorn's write_nonblock then writes straight through sendall

    def sendall(self, data):
        self.data += data

    def status_and_message(self) -> tuple[int, str]:
        """The status and the sentence of gunicorn's answer: ``HTTP/1.1 400 Bad Request``
        … ``<h1><p>Bad Request</p></h1> <message>``."""
        head, _, body = self.data.decode("latin-1").partition("\r\n\r\n")
        status = int(head.split(" ", 2)[1])
        found = re.search(r"</h1>\s*(.*?)\s*</body>", body, re.S)
        message = html.unescape(found.group(1)) if found else ""
        return status, message or HTTPStatus(status).phrase
