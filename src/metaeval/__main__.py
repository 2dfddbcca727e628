"""``python -m metaeval``: the command line (``metaeval.cli``)."""

import sys

from .cli import main

sys.exit(main())
