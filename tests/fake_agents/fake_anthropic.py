"""A fake Anthropic Messages API, for driving the real `claude` (Claude Code) in tests.

Claude Code finds it through ANTHROPIC_BASE_URL (this server's origin). It asks `HEAD /`,
then `POST /v1/messages?beta=true` with `stream: true`; the answer is Server-Sent Events the
way Anthropic sends them: `message_start` (with the input usage), per content block
`content_block_start` / `content_block_delta` (`text_delta` or `input_json_delta`) /
`content_block_stop`, then `message_delta` (stop reason, output usage) and `message_stop`.

The model is fake_llm.py's brain, working through Claude Code's own tools: `Read` and
`Write` tool_use blocks with absolute paths, built from the "Primary working directory:"
line Claude Code puts in its first message. Requests are told apart per Claude Code call by
the `X-Claude-Code-Session-Id` header; fault modes are fake_llm.py's. Every response
reports usage, part of the input as cache reads.

Run it by hand with `python fake_anthropic.py [--port N]`.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fake_opencode  # noqa: E402
from fake_llm import (  # noqa: E402
    Handler,
    ScriptedServer,
    Step,
    approximate_tokens,
    next_step,
    serve_main,
)

_WORKDIR = re.compile(r"Primary working directory: (\S.*)$", re.MULTILINE)
_READ_LINE = re.compile(r"^\s*(\d+)[\t→](.*)$")
_TOOLS = {"Read": "read", "Write": "write"}
_ids = itertools.count(1)


class FakeAnthropic(ScriptedServer):
    """The Messages API on 127.0.0.1: `with FakeAnthropic(log) as api: api.origin`."""

    call_header = "X-Claude-Code-Session-Id"

    def answer(self, handler: Handler, body: dict, raw: bytes) -> None:
        messages = body.get("messages") or []
        prompt = _prompt(messages)
        phase = fake_opencode.phase_of(prompt) if prompt else None
        call = handler.headers.get(self.call_header) or "unknown"
        mode = "ok" if phase is None else self.mode_of(call, phase)
        entry = {
            "method": "POST",
            "path": handler.path,
            "call": call,
            "model": body.get("model"),
            "stream": body.get("stream"),
            "tools": [tool.get("name") for tool in body.get("tools") or []],
            "phase": phase,
            "mode": mode,
        }
        if not handler.path.startswith("/v1/messages"):
            self.record({**entry, "status": 404})
            handler.send_json(404, _error(404))
            return
        if self.fault(handler, mode, entry, _error):
            return
        step = _decide(messages, prompt, outside=mode == "outside")
        total = approximate_tokens(len(raw))
        usage = {
            "input_tokens": total - total // 3,
            "cache_read_input_tokens": total // 3,
            "cache_creation_input_tokens": 0,
            "output_tokens": approximate_tokens(len(json.dumps(step.files)) + len(step.text)),
        }
        self.record(
            {
                **entry,
                "step": step.kind,
                "files": list(step.files),
                "failed": _failed_writes(step),
                "status": 200,
                "usage": usage,
            }
        )
        handler.send_sse(_events(body.get("model") or "", step, usage))


def _error(status: int) -> dict:
    kinds = {401: ("authentication_error", "fake anthropic: invalid x-api-key")}
    kind, message = kinds.get(status, ("api_error", "fake anthropic: upstream failure"))
    return {"type": "error", "error": {"type": kind, "message": message}}


def _texts(message: dict) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [
        block.get("text", "")
        for block in content or []
        if isinstance(block, dict) and block.get("type") == "text"
    ]


def _prompt(messages: list[dict]) -> str:
    """The user's prompt: the first user message's last text that is not a system reminder."""
    first = next((m for m in messages if m.get("role") == "user"), {})
    texts = [t for t in _texts(first) if not t.lstrip().startswith("<system-reminder>")]
    return texts[-1] if texts else ""


def _workdir(messages: list[dict]) -> Path | None:
    for message in messages:
        for text in _texts(message):
            if match := _WORKDIR.search(text):
                return Path(match.group(1).strip())
    return None


def _decide(messages: list[dict], prompt: str, *, outside: bool) -> Step:
    if not fake_opencode.phase_of(prompt) or fake_opencode.phase_of(prompt) == "unknown":
        return Step("answer", text="Fake research session")
    done, results = _last_round(messages)
    return next_step(prompt, _workdir(messages), done=done, results=results, outside=outside)


def _last_round(messages: list[dict]) -> tuple[str | None, dict[str, str | None]]:
    """The last assistant turn's tool ("read"/"write") and {path: its result, None if failed}."""
    calls = {}  # tool_use id -> (tool, path), of the last assistant turn with tool uses
    for message in messages:
        uses = [b for b in _blocks(message) if b.get("type") == "tool_use"]
        if message.get("role") == "assistant" and uses:
            calls = {
                b.get("id"): (b.get("name"), (b.get("input") or {}).get("file_path")) for b in uses
            }
    if not calls:
        return None, {}
    tool = _TOOLS.get(next(iter(calls.values()))[0])
    results: dict[str, str | None] = {}
    for message in messages:
        for block in _blocks(message):
            if block.get("type") != "tool_result" or block.get("tool_use_id") not in calls:
                continue
            path = calls[block["tool_use_id"]][1]
            said = None if block.get("is_error") else _result_text(block.get("content"))
            results[path] = _file_text(said) if tool == "read" and said is not None else said
    return tool, results


def _blocks(message: dict) -> list[dict]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _file_text(output: str) -> str | None:
    """A Read result (`cat -n` lines) back to the file's text; None if it held no lines."""
    lines = [m.group(2) for line in output.splitlines() if (m := _READ_LINE.match(line))]
    return "\n".join(lines) + "\n" if lines else None


def _failed_writes(step: Step) -> list[str]:
    failed = step.text.split(" Failed: ", 1)
    return failed[1].split(", ") if step.kind == "final" and len(failed) == 2 else []


def _events(model: str, step: Step, usage: dict) -> list[tuple[str | None, dict]]:
    start_usage = {**usage, "output_tokens": 1}
    message = {
        "id": f"msg_fake_{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    events: list[tuple[str | None, dict]] = [
        ("message_start", {"type": "message_start", "message": message})
    ]
    blocks: list[tuple[dict, dict]] = []
    if step.kind in ("read", "write"):
        tool = "Read" if step.kind == "read" else "Write"
        for path, content in step.files.items():
            arguments = (
                {"file_path": path} if tool == "Read" else {"file_path": path, "content": content}
            )
            start = {
                "type": "tool_use",
                "id": f"toolu_fake_{next(_ids)}",
                "name": tool,
                "input": {},
            }
            blocks.append(
                (start, {"type": "input_json_delta", "partial_json": json.dumps(arguments)})
            )
    else:
        blocks.append(({"type": "text", "text": ""}, {"type": "text_delta", "text": step.text}))
    for index, (start, delta) in enumerate(blocks):
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    stop = "tool_use" if step.kind in ("read", "write") else "end_turn"
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


def main() -> None:
    serve_main(__doc__.splitlines()[0], FakeAnthropic, "origin")


if __name__ == "__main__":
    main()
