"""Same as ``klondike evaluate-policy`` (``--help`` lists its options); needs the package installed."""

import sys

from klondike_app.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["evaluate-policy", *sys.argv[1:]]))
