"""Same as ``klondike same-rows`` (``--help`` lists its options); needs the package installed."""

import sys

from klondike_app.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["same-rows", *sys.argv[1:]]))
