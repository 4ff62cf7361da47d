"""attention_core: scaled dot-product attention in numpy float64, with every intermediate kept.

>>> from attention_core import attention, working
>>> r = attention([[1, 0], [0, 1], [1, 1]], [[1, 0], [1, 2]], [[2, 0], [0, 1]], [[1, 0], [0, 2]])
>>> r.output[2].round(3)
array([0.955, 1.627])
"""

from .engine import AttentionResult, attention, softmax_rows
from .errors import AttentionInputError
from .multihead import MultiHeadResult, multi_head_attention
from .openapi import openapi_document
from .positions import sinusoidal
from .presets import default_request, presets
from .request import AttentionRequest, Limits, parse_request
from .response import Computed, compute, plain, response_body, working_body
from .values import JSONSyntaxError, parse_json
from .working import RowWorking, working

__version__ = "0.1.0"

__all__ = [
    "AttentionInputError", "AttentionRequest", "AttentionResult", "Computed",
    "JSONSyntaxError", "Limits", "MultiHeadResult", "RowWorking", "attention", "compute",
    "default_request", "multi_head_attention", "openapi_document", "parse_json",
    "parse_request", "plain", "presets", "response_body", "sinusoidal", "softmax_rows",
    "working", "working_body",
]
