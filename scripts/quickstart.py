"""Same as ``klondike quickstart`` (``--help`` lists its options); needs the package installed."""

import sys

from klondike_app.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["quickstart", *sys.argv[1:]]))
