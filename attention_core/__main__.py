"""Entry point of ``python -m attention_core``."""

import sys

from .cli import main

sys.exit(main())
