#!/usr/bin/env python3
"""A scripted stand-in for `opencode run --format json` (and for any stdin-reading agent CLI).

The tests install it as `opencode` first on PATH with a shebang naming their interpreter.
FAKE_OPENCODE_MODE picks the behaviour; FAKE_OPENCODE_RECORD names a JSON file that gets
argv, $PWD, the working directory and stdin; FAKE_OPENCODE_FILE is the file "write" creates
(in $PWD, as OpenCode does); FAKE_OPENCODE_PIDFILE receives a spawned grandchild's pid.
"""

import json
import os
import signal
import subprocess
import sys
import time

SESSION = "ses_fake"


def emit(kind, **data):
    print(json.dumps({"type": kind, "timestamp": 0, "sessionID": SESSION, **data}), flush=True)


def step_finish(tokens, cost):
    part = {"type": "step-finish", "reason": "stop", "cost": cost, "tokens": tokens}
    emit("step_finish", part=part)


def text(value):
    emit("text", part={"type": "text", "text": value, "time": {"start": 0, "end": 1}})


def spawn_grandchild():
    # It inherits stdout/stderr, so it holds our caller's pipes open for as long as it lives.
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.environ["FAKE_OPENCODE_PIDFILE"], "w") as handle:
        handle.write(str(child.pid))


def main():
    mode = os.environ.get("FAKE_OPENCODE_MODE", "events")
    prompt = sys.stdin.read()
    record = os.environ.get("FAKE_OPENCODE_RECORD")
    if record:
        with open(record, "w", encoding="utf-8") as handle:
            json.dump({"argv": sys.argv, "pwd": os.environ.get("PWD"), "cwd": os.getcwd(),
                       "stdin": prompt}, handle)

    if mode == "write":
        path = os.path.join(os.environ["PWD"], os.environ["FAKE_OPENCODE_FILE"])
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("# written by the fake agent\n")
        emit("step_start", part={"type": "step-start"})
        emit("tool_use", part={"type": "tool", "tool": "write",
                               "state": {"status": "completed", "input": {"filePath": path}}})
        text("Wrote the file.")
        step_finish({"input": 10, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                    0.001)
    elif mode == "silent":
        pass
    elif mode == "events":
        print("not json: a stray progress line", flush=True)
        emit("step_start", part={"type": "step-start"})
        step_finish({"input": 100, "output": 20, "reasoning": 5, "cache": {"read": 1000,
                     "write": 50}}, 0.25)
        text("First finding.")
        step_finish({"input": 200, "output": 30, "reasoning": 0, "cache": {"read": 0,
                     "write": 0}}, 0.5)
        text("Second finding.")
        step_finish({"input": 1, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                    0.125)
    elif mode == "no_usage":
        emit("step_start", part={"type": "step-start"})
        text("Answer without usage figures.")
    elif mode == "plain":
        print(f"plain answer to: {prompt.splitlines()[0] if prompt else ''}")
    elif mode == "error_event":
        text("Trying.")
        emit("error", error={"name": "APIError", "data": {"message": "Rate limit exceeded"}})
    elif mode == "permission":
        print("\x1b[93m\x1b[1m! \x1b[0mpermission requested: external_directory (/etc/*); "
              "auto-rejecting", file=sys.stderr, flush=True)
        emit("tool_use", part={"type": "tool", "tool": "write", "state": {
            "status": "error", "input": {},
            "error": "The user rejected permission to use this specific tool call."}})
        text("I could not write outside the project.")
    elif mode == "exit1":
        print("\x1b[91m\x1b[1mError: \x1b[0mModel not found: nope/nothing", file=sys.stderr)
        sys.exit(1)
    elif mode == "exit1_event":
        print("some log line", file=sys.stderr)
        emit("error", error={"name": "ProviderAuthError",
                             "data": {"message": "No API key for provider nope"}})
        sys.exit(1)
    elif mode == "grandchild":
        spawn_grandchild()
        text("Working…")
        time.sleep(120)
    elif mode == "ignore_term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        spawn_grandchild()  # inherits SIG_IGN across exec: only SIGKILL ends it
        while True:
            time.sleep(1)
    elif mode == "leave_grandchild":
        spawn_grandchild()
        text("Done, but a helper still holds stdout.")
        step_finish({"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                    0.0)
    else:
        print(f"unknown FAKE_OPENCODE_MODE {mode!r}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
