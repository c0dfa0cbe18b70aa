"""``courtside web``: the game in a web browser, served from this computer, and a relay to a board.

    courtside web --fetch-runtime              # once: MicroPython's WebAssembly port, into the cache
    courtside web                              # http://127.0.0.1:8765/ until Ctrl-C
    courtside web --open --http-port 0         # any free port, opened in the browser
    courtside web --port /dev/ttyACM0          # the page also shows (and drives) that board
    courtside web --port auto --start          # the one Pico found, its firmware restarted

The page (``courtside_host/web/page/``, see docs/web.md) runs the firmware in MicroPython's
WebAssembly port, which is not part of Courtside: ``--fetch-runtime`` downloads the pinned
version from the npm registry and checks it (``courtside_host.web.runtime``); after that
nothing needs the network. The server itself is ``courtside_host.web.server``; it listens
on loopback addresses only, because whoever reaches the relay drives the board.
"""

import sys
from pathlib import Path

from courtside_host import paths, problem
from courtside_host.web import runtime as webruntime


def add_arguments(parser):
    parser.add_argument("--http-port", type=int, default=8765, metavar="N",
                        help="port to serve the page on (default 8765; 0: any free port)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on: a loopback address only (default 127.0.0.1)")
    parser.add_argument("--open", action="store_true", help="open the page in the web browser")
    parser.add_argument("--fetch-runtime", action="store_true",
                        help="download MicroPython's WebAssembly port %s (checked) and exit"
                             % webruntime.VERSION)
    parser.add_argument("--wasm", type=Path, metavar="DIR",
                        help="folder holding micropython.mjs and micropython.wasm (default: $%s, "
                             "else the cache --fetch-runtime fills)" % webruntime.ENV)
    parser.add_argument("--firmware", type=Path, default=paths.FIRMWARE, metavar="DIR",
                        help="firmware folder the page runs (default: the one installed with this tool)")
    parser.add_argument("--pins", type=Path, default=paths.PINMAP, metavar="FILE",
                        help="pin map the page's board has (default: the standard build)")
    parser.add_argument("--port", help="serial port (or pyserial URL) of a board to relay to the page; "
                                       "'auto': the one Pico found")
    parser.add_argument("--start", action="store_true",
                        help="with --port: soft-reset the board first so the firmware starts afresh")


def run(args):
    if args.fetch_runtime:
        try:
            folder = webruntime.fetch(args.wasm)
        except webruntime.FetchError as e:
            return problem.report("web", str(e))
        print("MicroPython WebAssembly %s in %s" % (webruntime.VERSION, folder))
        return 0
    from courtside_host.web import server as webserver
    if not webserver.is_loopback(args.host):
        return problem.report("web", "--host %s is not a loopback address: the page drives the board and "
                              "has no password, so it is served to this computer only (127.0.0.1, ::1, "
                              "localhost)" % args.host, problem.UNUSABLE)
    if not 0 <= args.http_port <= 65535:
        return problem.report("web", "--http-port %d is not a port number" % args.http_port, problem.UNUSABLE)
    if args.start and not args.port:
        return problem.report("web", "--start restarts a board: give its --port", problem.UNUSABLE)
    try:
        runtime = webruntime.find(args.wasm)
    except webruntime.RuntimeMissing as e:
        return problem.report("web", str(e), problem.UNUSABLE)
    if args.port == "auto":
        from courtside_host.link.port import BoardError, find_port
        try:
            find_port()
        except BoardError as e:
            return problem.report("web", str(e))
    server = webserver.WebServer(runtime=runtime, host=args.host, port=args.http_port,
                                 firmware=args.firmware, pins=args.pins, board=args.port, start=args.start)
    try:
        return _serve(server, args.open)
    except KeyboardInterrupt:
        return 0


def _serve(server, open_browser):
    import asyncio

    from courtside_host.web import server as webserver

    async def main():
        try:
            await server.start()
        except webserver.BundleError as e:
            return problem.report("web", str(e), problem.UNUSABLE)
        except OSError as e:
            return problem.report("web", "cannot listen on %s port %d (%s): choose another with --http-port"
                                  % (server.host, server.port, e.strerror or e))
        try:
            print(server.url, flush=True)
            print("courtside web: serving the page%s; Ctrl-C to stop"
                  % (" and relaying %s" % server.board_port if server.board_port else ""),
                  file=sys.stderr, flush=True)
            if open_browser:
                import webbrowser
                webbrowser.open(server.url)
            await asyncio.Event().wait()
        finally:
            await server.aclose(timeout=2.0)
        return 0

    return asyncio.run(main())
