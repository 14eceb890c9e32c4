"""``python -m gpflow_deep demo`` is the same as ``gpflow-deep demo``."""

import sys

from .cli import main

sys.exit(main())
