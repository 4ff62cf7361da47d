"""attention_api: the request format of Attention Explorer, and the web app's parts.

attention_core does the maths with numpy alone; this package turns the outside world into
calls to it and back, in folders by feature, each with its routes (a Flask blueprint,
registered by ``app.create_app``), its requests and answers side by side: ``attention``
(POST /api/attention: the request, the answer, the presets, the scaling lab), ``running``
(the key/value cache, FlashAttention's tiles, the cost of n²), ``classroom`` (exercises,
worksheets, slides), ``real_models`` (the pretrained models' routes), ``pages`` (the HTML
pages, the OpenAPI document, /health), ``typesetting`` (typst), ``cli`` (the command line)
and ``web`` (what every route shares: the body, errors, headers, gzip, JSON). ``values`` and
``names`` check single values and name them as the page does.
"""

from .attention.request import AttentionRequest, Limits, parse_request
from .attention.response import Computed, compute, plain, response_body, working_body
from .values import JSONSyntaxError, parse_json

__all__ = [
    "AttentionRequest", "Computed", "JSONSyntaxError", "Limits", "compute", "parse_json",
    "parse_request", "plain", "response_body", "working_body",
]
