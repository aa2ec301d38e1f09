"""``python -m concomp.bench PROBLEM... [options]``: see :mod:`concomp.bench.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
