"""Same as ``klondike bench-worlds`` (``--help`` lists its options); needs the package installed."""

import sys

from klondike_app.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["bench-worlds", *sys.argv[1:]]))
