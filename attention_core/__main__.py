"""Entry point of ``python -m attention_core``: the worksheet command of ``attention_api.cli.main``.

The one file of the core that imports the protocol package: reading a request file is
the request format's business, not the maths'.
"""

import sys

from attention_api.cli.main import main

sys.exit(main(prog="python -m attention_core"))
