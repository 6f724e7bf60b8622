"""The browser game: ``klondike play`` serves a table of draw-3 Klondike played on the engine."""
