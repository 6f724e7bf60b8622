"""Same as ``klondike bench``: speed and strength benchmarks (``--help`` lists the sections)."""

import sys

from klondike_app.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["bench", *sys.argv[1:]]))
