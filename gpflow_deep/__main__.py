"""``python -m gpflow_deep demo`` is the same as ``gpflow-deep demo``."""

import sys

from gpflow_deep.app.cli.main import main

sys.exit(main())
