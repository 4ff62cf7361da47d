"""attention_api: the request format of Attention Explorer, and the web app's parts.

attention_core does the maths with numpy alone; this package turns the outside world into
calls to it and back. The request format (shared by the HTTP API and the command line):
``values`` (strict JSON, single values), ``request`` (a whole request and its ``fields``
query language), ``response`` (running the engine, assembling and encoding the answer),
``openapi`` (the API's description), ``lab`` (the scaling lab's query strings), ``cli``
and ``report`` (the command line and its worksheets). The web app (Flask blueprints,
registered by ``app.create_app``): ``pages``, ``api``, ``errors``, ``assets``.
"""

from .request import AttentionRequest, Limits, parse_request
from .response import Computed, compute, plain, response_body, working_body
from .values import JSONSyntaxError, parse_json

__all__ = [
    "AttentionRequest", "Computed", "JSONSyntaxError", "Limits", "compute", "parse_json",
    "parse_request", "plain", "response_body", "working_body",
]
