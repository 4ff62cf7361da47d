"""``python -m attention_api …``: the ``attention-explorer`` command (serve, compute,
exercise, check) from this folder, without installing the package."""

import sys

from attention_api.cli.main import console

sys.exit(console())
