"""``python -m concomp.bench PROBLEM... [options]``: see :mod:`concomp.bench.cli`."""

import sys

from .cli import main

sys.exit(main())
