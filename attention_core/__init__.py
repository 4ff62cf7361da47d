"""attention_core: scaled dot-product attention in numpy float64, with every intermediate kept.

The maths only: it imports numpy and the standard library, nothing of the web app, so a
notebook or a script can use it alone. The request format of the HTTP API and the CLI
(parsing, response assembly, OpenAPI) is the package ``attention_api``.

>>> from attention_core import attention, working
>>> r = attention([[1, 0], [0, 1], [1, 1]], [[1, 0], [1, 2]], [[2, 0], [0, 1]], [[1, 0], [0, 2]])
>>> r.output[2].round(3)
array([0.955, 1.627])
"""

from .engine import AttentionResult, attention, softmax_rows
from .errors import AttentionInputError
from .multihead import MultiHeadResult, multi_head_attention
from .positions import alibi_slopes, rotate, sinusoidal
from .presets import default_request, presets
from .working import RowWorking, working

__version__ = "0.1.0"

__all__ = [
    "AttentionInputError", "AttentionResult", "MultiHeadResult", "RowWorking", "alibi_slopes",
    "attention", "default_request", "multi_head_attention", "presets", "rotate", "sinusoidal",
    "softmax_rows", "working",
]
