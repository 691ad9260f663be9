"""What the fake model servers share: a scripted HTTP server and the research "brain".

The servers (fake_anthropic.py for Claude Code, fake_responses.py for Codex) run in a daemon
thread on 127.0.0.1 and speak one model API each. The brain is the same for both and works
like fake_provider.py's (OpenCode) model, through the agent's own tools: it reads the phase
from the prompt's first line and the files to write from its backticked relative paths
(fake_opencode.py's parsing), then

1. "read": reads every file it is about to write (an agent may only overwrite what it read);
2. "write": writes each file, with content built from the prompt and what the reads returned;
3. "final": says what it did, naming any write that failed.

Faults: `script` maps a phase to a list of modes, one per agent call (told apart by a
header the CLI sends with every request of one call): "ok", "http401", "http500" (every
request of that call gets that status), "outside" (the same work, at paths in a sibling
of the working directory, which the agent may not write), or "hang" (never answer; the
request is dropped when the server stops, at the latest after HANG_SECONDS). Calls beyond
the list are "ok". Every request is recorded, one JSON object per line, in `log_path` (and
in `.requests`).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fake_opencode  # noqa: E402  (shared prompt parsing and phase content)

OUTSIDE = "outside-the-project"
HANG_SECONDS = 120.0


@dataclass
class Step:
    """The brain's next move: read or write these absolute paths, or answer in text."""

    kind: str  # "read" | "write" | "final" | "answer"
    files: dict[str, str] = field(default_factory=dict)  # path -> content ("" for a read)
    text: str = ""


def next_step(
    prompt: str,
    workdir: Path | None,
    *,
    done: str | None,
    results: dict[str, str],
    outside: bool = False,
) -> Step:
    """What the model does next in one agent call.

    `done` is the kind of the last tool round ("read", "write" or None before any);
    `results` maps each of that round's absolute paths to the text its tool returned (a
    read's file text, or None when it failed; a write's result message).
    """
    phase = fake_opencode.phase_of(prompt)
    try:
        targets = fake_opencode.files_to_read(phase, prompt)
    except KeyError:  # the prompt does not name the files its phase writes
        targets = []
    if not targets or workdir is None:
        return Step("answer", text="I cannot tell which files to write.")
    if outside:
        workdir = workdir.parent / OUTSIDE
    if done is None:
        return Step("read", {str(workdir / relative): "" for relative in targets})
    if done == "read":
        files = fake_opencode.phase_files(
            phase, prompt, lambda relative: results.get(str(workdir / relative))
        )
        return Step("write", {str(workdir / relative): text for relative, text in files.items()})
    failed = [path for path, said in results.items() if said is None]
    text = f"Done: wrote {len(results) - len(failed)} file(s) for the {phase} phase."
    if failed:
        text += " Failed: " + ", ".join(failed)
    return Step("final", text=text)


class ScriptedServer:
    """An HTTP server in a daemon thread: `with Server(log) as server: server.base_url`.

    Subclasses set `call_header` (the header that tells one agent call from another) and
    implement `answer(handler, body, raw)`.
    """

    call_header = ""

    def __init__(
        self,
        log_path: Path | None = None,
        *,
        script: dict[str, list[str]] | None = None,
        port: int = 0,
    ) -> None:
        self.log_path = log_path
        self.script = script or {}
        self.requests: list[dict] = []
        self._calls: dict[str, str] = {}  # call id -> mode
        self._phase_calls: dict[str, int] = {}
        self._lock = threading.Lock()
        self.stopped = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self.handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def mode_of(self, call: str, phase: str) -> str:
        """The fault mode of the agent call this request belongs to (fixed at its first)."""
        with self._lock:
            if call not in self._calls:
                number = self._phase_calls.get(phase, 0)
                self._phase_calls[phase] = number + 1
                modes = self.script.get(phase, [])
                self._calls[call] = modes[number] if number < len(modes) else "ok"
            return self._calls[call]

    def record(self, entry: dict) -> None:
        with self._lock:
            self.requests.append(entry)
            if self.log_path is not None:
                with open(self.log_path, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(entry) + "\n")

    def served(self, phase: str) -> list[dict]:
        """The recorded requests of `phase` that were answered with a 200."""
        return [e for e in self.requests if e.get("phase") == phase and e.get("status") == 200]

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The request handler bound to this server (a subclass may bring its own)."""
        return _handler_for(self)

    def answer(self, handler: Handler, body: dict, raw: bytes) -> None:
        raise NotImplementedError

    def fault(self, handler: Handler, mode: str, entry: dict, error: Callable[[int], dict]) -> bool:
        """Carry out a fault mode ("hang", "http401", "http500"); False for the others."""
        if mode == "hang":
            self.record({**entry, "status": None})
            self.stopped.wait(HANG_SECONDS)
            handler.close_connection = True
            return True
        if mode in ("http401", "http500"):
            status = int(mode[4:])
            self.record({**entry, "status": status})
            handler.send_json(status, error(status))
            return True
        return False


class ProxyRecorder(ScriptedServer):
    """Set as HTTP(S)_PROXY with NO_PROXY=127.0.0.1,localhost: whatever an agent tries to
    reach beyond loopback arrives here, is recorded and refused."""

    def answer(self, handler: Handler, body: dict, raw: bytes) -> None:
        self.record({"method": "POST", "path": handler.path})
        handler.send_json(403, {"error": {"message": "no connection beyond loopback"}})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_side: ScriptedServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # the request log is ours

    def do_HEAD(self) -> None:  # noqa: N802
        self.server_side.record({"method": "HEAD", "path": self.path})
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802
        self.server_side.record({"method": "GET", "path": self.path})
        self.send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_CONNECT(self) -> None:  # noqa: N802
        self.server_side.record({"method": "CONNECT", "path": self.path})
        self.send_json(403, {"error": {"message": "no connection beyond loopback"}})
        self.close_connection = True

    def do_POST(self) -> None:  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self.server_side.record({"method": "POST", "path": self.path, "status": 400})
            self.send_json(400, {"error": {"message": "expected a JSON object"}})
            return
        self.server_side.answer(self, body, raw)

    def send_json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_sse(self, events: list[tuple[str | None, dict]]) -> None:
        """Server-Sent Events, then the connection closes."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True


def _handler_for(server: ScriptedServer) -> type[Handler]:
    return type("BoundHandler", (Handler,), {"server_side": server})


def approximate_tokens(size: int) -> int:
    """Token figures as a provider reports them: about four characters a token."""
    return size // 4 + 1


def serve_main(description: str, start: Callable[..., ScriptedServer], url: str) -> None:
    """Run a fake server by hand: `--port N --log FILE --script JSON`; prints its `url`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path)
    parser.add_argument("--script", type=Path, help="JSON file {phase: [modes]}")
    args = parser.parse_args()
    script = json.loads(args.script.read_text()) if args.script else None
    with start(args.log, script=script, port=args.port) as server:
        print(getattr(server, url), flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
