"""A fake OpenAI Responses API, for driving the real `codex` (Codex CLI) in tests.

Codex finds it through a model provider whose `base_url` is this server's `/v1` and whose
`wire_api` is "responses". It asks `POST /v1/responses` with `stream: true`; the answer is
Server-Sent Events the way OpenAI sends them: `response.created`, per output item
`response.output_item.added` / `response.output_item.done` (Codex acts on the latter), and
`response.completed` with the usage (which Codex requires).

The model is fake_llm.py's brain, working through Codex's own tools: it reads files with
`exec_command` (`cat`) and writes them with the free-form `apply_patch` tool (`*** Begin
Patch` ... `*** End Patch`), which Codex offers for the models it knows (e.g. gpt-5.5).
The working directory comes from the `<cwd>` of Codex's environment context. Requests are
told apart per Codex call by the `session-id` header; fault modes are fake_llm.py's.

Run it by hand with `python fake_responses.py [--port N]`.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
import sys
import time
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

_CWD = re.compile(r"<cwd>([^<]+)</cwd>")
_ids = itertools.count(1)


class FakeResponses(ScriptedServer):
    """The Responses API on 127.0.0.1: `with FakeResponses(log) as api: api.base_url`."""

    call_header = "session-id"

    @property
    def base_url(self) -> str:
        return self.origin + "/v1"

    def answer(self, handler: Handler, body: dict, raw: bytes) -> None:
        items = body.get("input") or []
        prompt = _prompt(items)
        phase = fake_opencode.phase_of(prompt) if prompt else None
        call = handler.headers.get(self.call_header) or "unknown"
        mode = "ok" if phase in (None, "unknown") else self.mode_of(call, phase)
        entry = {
            "method": "POST",
            "path": handler.path,
            "call": call,
            "model": body.get("model"),
            "stream": body.get("stream"),
            "tools": [tool.get("name") or tool.get("type") for tool in body.get("tools") or []],
            "phase": phase,
            "mode": mode,
        }
        if not handler.path.rstrip("/").endswith("/responses"):
            self.record({**entry, "status": 404})
            handler.send_json(404, _error(404))
            return
        if self.fault(handler, mode, entry, _error):
            return
        step = _decide(items, prompt, outside=mode == "outside")
        total = approximate_tokens(len(raw))
        usage = {
            "input_tokens": total,
            "input_tokens_details": {"cached_tokens": total // 3},
            "output_tokens": approximate_tokens(len(json.dumps(step.files)) + len(step.text)),
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        self.record(
            {
                **entry,
                "step": step.kind,
                "files": list(step.files),
                "failed": _failed(step),
                "status": 200,
                "usage": usage,
            }
        )
        handler.send_sse(_events(body.get("model") or "", step, usage))


def _error(status: int) -> dict:
    if status == 401:
        message, kind, code = (
            "fake openai: incorrect API key",
            "invalid_request_error",
            "invalid_api_key",
        )
    else:
        message, kind, code = "fake openai: upstream failure", "server_error", None
    return {"error": {"message": message, "type": kind, "code": code, "param": None}}


def _texts(item: dict) -> list[str]:
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    return [
        part.get("text", "")
        for part in content or []
        if isinstance(part, dict) and part.get("type") in ("input_text", "output_text")
    ]


def _prompt(items: list[dict]) -> str:
    """The user's prompt: the last user text that is not Codex's own context."""
    texts = [
        text
        for item in items
        if item.get("type") == "message" and item.get("role") == "user"
        for text in _texts(item)
        if not text.lstrip().startswith("<")
    ]
    return texts[-1] if texts else ""


def _workdir(items: list[dict]) -> Path | None:
    for item in items:
        for text in _texts(item):
            if match := _CWD.search(text):
                return Path(match.group(1).strip())
    return None


def _decide(items: list[dict], prompt: str, *, outside: bool) -> Step:
    if fake_opencode.phase_of(prompt) == "unknown":
        return Step("answer", text="Fake research session")
    done, results = _last_round(items)
    return next_step(prompt, _workdir(items), done=done, results=results, outside=outside)


def _last_round(items: list[dict]) -> tuple[str | None, dict[str, str | None]]:
    """The last tool round ("read": exec_command, "write": apply_patch) and its results."""
    calls: dict[str, tuple[str, list[str]]] = {}  # call_id -> (kind, paths)
    outputs: dict[str, str] = {}
    for item in items:
        kind = item.get("type")
        if kind == "function_call" and item.get("name") == "exec_command":
            try:
                command = json.loads(item.get("arguments") or "{}").get("cmd", "")
            except ValueError:
                command = ""
            words = shlex.split(command) if isinstance(command, str) else []
            calls = {k: v for k, v in calls.items() if v[0] == "read"}
            calls[item.get("call_id", "")] = ("read", words[1:2])
        elif kind == "custom_tool_call" and item.get("name") == "apply_patch":
            calls = {item.get("call_id", ""): ("write", _patched(item.get("input", "")))}
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if isinstance(output, list):
                output = "\n".join(
                    part.get("text", "") for part in output if isinstance(part, dict)
                )
            outputs[item.get("call_id", "")] = (
                output if isinstance(output, str) else json.dumps(output)
            )
    answered = [
        (kind, paths, outputs[ident]) for ident, (kind, paths) in calls.items() if ident in outputs
    ]
    if not answered:
        return None, {}
    done = answered[-1][0]
    results: dict[str, str | None] = {}
    for kind, paths, output in answered:
        for path in paths:
            results[path] = _read_output(output) if kind == "read" else _write_output(output)
    return done, results


def _patched(patch: str) -> list[str]:
    return re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", patch, re.MULTILINE)


def _read_output(output: str) -> str | None:
    """A `cat` through exec_command: the file's text, or None when it failed."""
    if re.search(r"exit(?:ed with)? code:? ?[1-9]", output) or "No such file" in output:
        return None
    match = re.search(r"^Output:\n(.*)\Z", output, re.MULTILINE | re.DOTALL)
    text = match.group(1) if match else output
    return text if text.strip() else None


def _write_output(output: str) -> str | None:
    return None if re.search(r"(?i)error|rejected|denied|not allowed|failed", output) else output


def _failed(step: Step) -> list[str]:
    failed = step.text.split(" Failed: ", 1)
    return failed[1].split(", ") if step.kind == "final" and len(failed) == 2 else []


def _patch(files: dict[str, str]) -> str:
    """One apply_patch input that (re)creates each file: delete it if it is there, add it."""
    hunks = []
    for path, content in files.items():
        lines = content.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        hunks.append(f"*** Add File: {path}\n" + "".join(f"+{line}\n" for line in lines))
    return "*** Begin Patch\n" + "".join(hunks) + "*** End Patch\n"


def _items(step: Step) -> list[dict]:
    if step.kind == "read":
        return [
            {
                "type": "function_call",
                "id": f"fc_fake_{next(_ids)}",
                "call_id": f"call_fake_{next(_ids)}",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": f"cat {shlex.quote(path)}"}),
                "status": "completed",
            }
            for path in step.files
        ]
    if step.kind == "write":
        return [
            {
                "type": "custom_tool_call",
                "id": f"ctc_fake_{next(_ids)}",
                "call_id": f"call_fake_{next(_ids)}",
                "name": "apply_patch",
                "input": _patch(step.files),
                "status": "completed",
            }
        ]
    return [
        {
            "type": "message",
            "id": f"msg_fake_{next(_ids)}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": step.text, "annotations": []}],
        }
    ]


def _events(model: str, step: Step, usage: dict) -> list[tuple[str | None, dict]]:
    items = _items(step)
    response = {
        "id": f"resp_fake_{next(_ids)}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    events: list[tuple[str | None, dict]] = [
        ("response.created", {"type": "response.created", "response": response})
    ]
    for index, item in enumerate(items):
        added = {**item, "status": "in_progress"}
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": added},
            )
        )
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    done = {**response, "status": "completed", "output": items, "usage": usage}
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    return events


def main() -> None:
    serve_main(__doc__.splitlines()[0], FakeResponses, "base_url")


if __name__ == "__main__":
    main()
