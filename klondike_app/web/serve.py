"""Serving the apps: in the foreground for the ``klondike play`` and ``klondike watch`` commands
(:func:`serve`), or from inside Python in a thread on a free localhost port (for the screenshot
commands, the load test and the browser tests)."""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
import urllib.request
import webbrowser
from contextlib import contextmanager


def add_server_arguments(parser: argparse.ArgumentParser, default_port: int) -> None:
    """--host, --port and --no-open."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 exposes it)")
    parser.add_argument("--port", type=int, default=default_port, help=f"port (default {default_port}; 0 picks a free one)")
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")


def port_error(port: int) -> str | None:
    """Why ``port`` cannot be listened on, or None."""
    return None if 0 <= port <= 65535 else f"bad port {port}: a port is 0..65535"


def serve(app, host: str, port: int, open_browser: bool, announce) -> int:
    """Serve ``app`` until Ctrl+C; once listening, print ``announce(url)`` and open the URL in
    a browser if ``open_browser``. Returns the exit status."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))

    def when_listening():
        # the port is known once the socket is bound (port 0 asks the system for a free one)
        while not server.started:
            if server.should_exit:
                return
            threading.Event().wait(0.05)
        bound = server.servers[0].sockets[0].getsockname()[1]
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        url = f"http://{shown}:{bound}/"
        print(announce(url), flush=True)
        if open_browser:
            webbrowser.open(url)

    threading.Thread(target=when_listening, daemon=True).start()
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn raises Ctrl+C again once it has shut down: a normal stop
        pass
    return 0 if server.started else 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_server(app, start_timeout: float = 30.0, port: int | None = None):
    """``app`` served by uvicorn on localhost (``port``, or a free one) in a thread; yields the base URL."""
    import uvicorn

    port = free_port() if port is None else port
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def post_json(url: str, body: dict) -> dict:
    """POST ``body`` to ``url`` and return the JSON answer (raises on an error status)."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())
