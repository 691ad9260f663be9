"""A fake OpenAI-compatible model provider, for driving the real `opencode` binary in tests.

OpenCode talks to it through an `@ai-sdk/openai-compatible` provider block whose
`options.baseURL` is this server's `/v1`. It serves `POST /v1/chat/completions` with
`stream: true`, answering in Server-Sent Events chunks the way OpenAI does (text deltas,
tool-call deltas, a last chunk with `finish_reason` and `usage`), and `GET /v1/models`
(which OpenCode 1.18 does not ask for).

The fake *model* works like a real one, only through OpenCode's tools: it reads the phase from
the prompt's first line and the files to write from its backticked relative paths (the same
parsing as fake_opencode.py's "agent" mode), and turns them into absolute paths with the
"Working directory:" line of OpenCode's system prompt. One OpenCode call goes:

1. first request: `read` every file it is about to write (OpenCode's `write` refuses to
   overwrite a file that was not read first; a missing file just comes back as an error);
2. after the read results: one `write` per file, with content built from the prompt (and,
   for the progress index, from what `read` returned);
3. after the write results: a short final text, `finish_reason: "stop"`.

Every response reports token usage. OpenCode's title requests get a short title.

Faults: `script` maps a phase to a list of modes, one per OpenCode call (told apart by the
`x-session-id` header OpenCode sends): "ok" or "http500" (every request of that call gets
HTTP 500 with a short `retry-after-ms`, so OpenCode's own retries end quickly and it exits 1)
or "outside" (the same work, but at paths in a sibling of the working directory, which OpenCode
may not write without a permission that `run` rejects), or "hang" (never answer; the request
is dropped when the provider stops, at the latest after HANG_SECONDS). Calls beyond the list
are "ok".

Every request is recorded, one JSON object per line, in `log_path` (and in `.requests`).
Run it by hand with `python fake_provider.py [--port N] [--log FILE]`.
"""

from __future__ import annotations

import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fake_opencode  # noqa: E402  (shared prompt parsing and phase content)
from fake_llm import ScriptedServer, serve_main  # noqa: E402  (the shared server scaffolding)

MODEL_ID = "fake-model"
TITLE = "Fake research session"
RETRY_AFTER_MS = "20"
OUTSIDE = "outside-the-project"
HANG_SECONDS = 120.0
_WORKDIR = re.compile(r"^\s*Working directory: (.+)$", re.MULTILINE)
_READ_LINE = re.compile(r"^(\d+): ?(.*)$")


class FakeProvider(ScriptedServer):
    """The server, in a daemon thread: `with FakeProvider(log) as provider: provider.base_url`.

    One OpenCode call's requests are told apart by the `x-session-id` header.
    """

    @property
    def base_url(self) -> str:
        return self.origin + "/v1"

    def __enter__(self) -> FakeProvider:
        super().__enter__()
        return self

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _handler_for(self)


def _handler_for(provider: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass  # the request log is ours

        def do_GET(self) -> None:  # noqa: N802
            provider.record({"method": "GET", "path": self.path})
            if self.path.rstrip("/").endswith("/models"):
                self._json(
                    200,
                    {
                        "object": "list",
                        "data": [
                            {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "fake"}
                        ],
                    },
                )
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            if not self.path.rstrip("/").endswith("/chat/completions") or not isinstance(
                body, dict
            ):
                provider.record({"method": "POST", "path": self.path, "status": 400})
                self._json(400, {"error": {"message": "expected a chat completion request"}})
                return
            session = self.headers.get("x-session-id") or "unknown"
            phase = request_phase(body)
            mode = "ok" if phase is None else provider.mode_of(session, phase)
            entry = {
                "method": "POST",
                "path": self.path,
                "session": session,
                "stream": body.get("stream"),
                "tools": len(body.get("tools") or []),
                "roles": [m.get("role") for m in body.get("messages", [])],
                "kind": "title" if phase is None else "main",
                "phase": phase,
                "mode": mode,
            }
            if mode == "hang":
                provider.record({**entry, "status": None})
                provider.stopped.wait(HANG_SECONDS)
                self.close_connection = True
                return
            if mode == "http500":
                provider.record({**entry, "status": 500})
                self._json(
                    500,
                    {
                        "error": {
                            "message": "fake provider: upstream failure",
                            "type": "server_error",
                        }
                    },
                    headers={"retry-after-ms": RETRY_AFTER_MS},
                )
                return
            turn = decide(body, outside=mode == "outside")
            usage = _usage(len(raw), turn["reply"])
            provider.record(
                {
                    **entry,
                    **{k: v for k, v in turn.items() if k != "reply"},
                    "status": 200,
                    "usage": usage,
                }
            )
            self._reply(turn["reply"], usage, stream=body.get("stream", False))

        def _json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _reply(self, reply: dict, usage: dict, *, stream: bool) -> None:
            if not stream:
                message = {
                    "role": "assistant",
                    "content": reply.get("text"),
                    **({"tool_calls": reply["tool_calls"]} if reply.get("tool_calls") else {}),
                }
                finish = "tool_calls" if reply.get("tool_calls") else "stop"
                self._json(
                    200,
                    {
                        **_envelope("chat.completion"),
                        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                        "usage": usage,
                    },
                )
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in _chunks(reply, usage):
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler


def _usage(request_bytes: int, reply: dict) -> dict:
    """Token figures as a provider reports them: about four characters a token."""
    prompt, completion = request_bytes // 4, len(json.dumps(reply)) // 4 + 1
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _envelope(kind: str) -> dict:
    return {"id": "chatcmpl-fake", "object": kind, "created": int(time.time()), "model": MODEL_ID}


def _chunks(reply: dict, usage: dict) -> list[dict]:
    """OpenAI streaming chunks: a role delta, text, one delta per tool call, finish + usage."""

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {
            **_envelope("chat.completion.chunk"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    chunks = [chunk({"role": "assistant", "content": ""})]
    if reply.get("text"):
        chunks.append(chunk({"content": reply["text"]}))
    for index, call in enumerate(reply.get("tool_calls", [])):
        chunks.append(chunk({"tool_calls": [{"index": index, **call}]}))
    last = chunk({}, "tool_calls" if reply.get("tool_calls") else "stop")
    last["usage"] = usage
    chunks.append(last)
    return chunks


def _text(content: object) -> str:
    """A message's text: a plain string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _system(messages: list[dict]) -> str:
    return "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "system")


def _prompt(messages: list[dict]) -> str:
    return next((_text(m.get("content")) for m in messages if m.get("role") == "user"), "")


def request_phase(body: dict) -> str | None:
    """The phase a request works on ("unknown" if none), or None for OpenCode's title request."""
    messages = body.get("messages") or []
    if "title generator" in _system(messages):
        return None
    return fake_opencode.phase_of(_prompt(messages))


def decide(body: dict, *, outside: bool = False) -> dict:
    """The fake model: what to answer to this conversation, and a summary for the log.

    `outside`: write the files next to the working directory instead of in it (which OpenCode
    must ask permission for).
    """
    messages = body.get("messages") or []
    phase = request_phase(body)
    if phase is None:
        return {"reply": {"text": TITLE}}
    prompt = _prompt(messages)
    workdir_match = _WORKDIR.search(_system(messages))
    try:
        targets = fake_opencode.files_to_read(phase, prompt)
    except KeyError:  # the prompt does not name the files its phase writes
        targets = []
    if not targets or workdir_match is None:
        return {"step": "answer", "reply": {"text": "I cannot tell which files to write."}}
    workdir = Path(workdir_match.group(1).strip())
    if outside:
        workdir = workdir.parent / OUTSIDE
    last_calls = _last_tool_calls(messages)
    if not last_calls:
        return _tool_turn("read", [{"filePath": str(workdir / relative)} for relative in targets])
    if last_calls[0]["name"] == "read":
        seen = _read_results(messages, last_calls)
        files = fake_opencode.phase_files(
            phase, prompt, lambda relative: seen.get(str(workdir / relative))
        )
        return _tool_turn(
            "write",
            [
                {"filePath": str(workdir / relative), "content": content}
                for relative, content in files.items()
            ],
        )
    results = _tool_results(messages)
    failed = [
        call["path"] for call in last_calls if "error" in results.get(call["id"], "").lower()[:200]
    ]
    text = f"Done: wrote {len(last_calls) - len(failed)} file(s) for the {phase} phase."
    if failed:
        text += " Failed: " + ", ".join(failed)
    return {"step": "final", "failed_writes": failed, "reply": {"text": text}}


def _tool_turn(tool: str, inputs: list[dict]) -> dict:
    calls = [
        {
            "id": f"call_{tool}_{i}_{int(time.time() * 1000) % 100000}",
            "type": "function",
            "function": {"name": tool, "arguments": json.dumps(args)},
        }
        for i, args in enumerate(inputs)
    ]
    return {
        "step": tool,
        "files": [args["filePath"] for args in inputs],
        "reply": {"text": "", "tool_calls": calls},
    }


def _last_tool_calls(messages: list[dict]) -> list[dict]:
    """The tool calls of the last assistant message (name, id, filePath), if it made any."""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            found = []
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                try:
                    args = json.loads(function.get("arguments") or "{}")
                except ValueError:
                    args = {}
                found.append(
                    {
                        "id": call.get("id"),
                        "name": function.get("name"),
                        "path": args.get("filePath"),
                    }
                )
            return found
    return []


def _tool_results(messages: list[dict]) -> dict[str, str]:
    return {
        m.get("tool_call_id"): _text(m.get("content")) for m in messages if m.get("role") == "tool"
    }


def _read_results(messages: list[dict], calls: list[dict]) -> dict[str, str]:
    """{absolute path: file text} for each `read` that returned the file's lines."""
    results = _tool_results(messages)
    texts = {}
    for call in calls:
        output = results.get(call["id"])
        if output is None:
            continue
        lines = [
            match.group(2) for line in output.splitlines() if (match := _READ_LINE.match(line))
        ]
        if lines:
            texts[call["path"]] = "\n".join(lines) + "\n"
    return texts


def main() -> None:
    serve_main(__doc__.splitlines()[0], FakeProvider, "base_url")


if __name__ == "__main__":
    main()
