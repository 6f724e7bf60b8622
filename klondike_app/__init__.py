"""Applications on top of the rules (`klondike_env`) and the players (`agents`).

The ``klondike`` command, the web game and the viewer live here. Imports run one way:
``klondike_env`` <- ``agents`` <- ``klondike_app``; nothing below imports this package.
"""
