"""``python -m concomp``: the same command as the ``concomp`` console script."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
