#!/usr/bin/env python3
"""A scripted stand-in for `opencode run --format json` (and for any stdin-reading agent CLI).

The tests install it as `opencode` first on PATH with a shebang naming their interpreter.
FAKE_OPENCODE_MODE picks the behaviour; FAKE_OPENCODE_RECORD names a JSON file that gets
argv, $PWD, the working directory and stdin; FAKE_OPENCODE_FILE is the file "write" creates
(in $PWD, as OpenCode does); FAKE_OPENCODE_PIDFILE receives a spawned grandchild's pid.

For whole sessions through the CLI, mode "agent" does a phase's work the way a real agent
would: it reads the phase from the prompt's first line ("# Phase: RESEARCH — …") and the
files to write from the prompt's `backticked` relative paths, writes them under $PWD, and
prints JSON events with TOKENS and COST per call. FAKE_OPENCODE_SCRIPT names a JSON file
{"research": ["exit1", "agent"], …}: the n-th call of a phase uses the n-th mode listed
(then FAKE_OPENCODE_MODE). FAKE_OPENCODE_CALLS names a JSON Lines file that gets one record
per call (argv, pwd, cwd, pid, phase, mode, stdin); it is also how calls are counted.
FAKE_OPENCODE_USAGE is raw JSON text `{"tokens": …, "cost": …}` (it may say 1e400 or NaN)
that mode "agent" reports instead of TOKENS and COST. FAKE_OPENCODE_COMPLEXITY (simple,
standard, deep) is the class the INITIAL PLAN gives the question.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

SESSION = "ses_fake"
TOKENS = {"input": 100, "output": 20, "reasoning": 0, "cache": {"read": 0, "write": 0}}
COST = 0.01
SOURCE = ("Fake source page", "https://example.org/fake-source")
TOPIC_NAMES = [
    "Costs and prices",
    "Regulation and policy",
    "Technology performance",
    "Market adoption",
    "Environmental impact",
]
STRAY_FILE = "stray-notes.txt"
PHASES = {
    "INITIAL PLAN": "initial_plan",
    "RESEARCH": "research",
    "REVIEW": "review",
    "SYNTHESIZE": "synthesize",
    "FINAL REVIEW": "final_review",
    "REVISE": "revise",
    "VERIFY": "verify",
    "RECOVERY": "recovery",
}


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


def phase_of(prompt):
    match = re.match(r"# Phase: ([A-Z ]+?)(?: —|\s*$)", prompt.lstrip(), re.MULTILINE)
    return PHASES.get(match.group(1).strip(), "unknown") if match else "unknown"


def scripted_mode(phase, default):
    """The mode of this call: FAKE_OPENCODE_SCRIPT's n-th entry for the phase, else default."""
    calls_file = os.environ.get("FAKE_OPENCODE_CALLS")
    script_file = os.environ.get("FAKE_OPENCODE_SCRIPT")
    if not (calls_file and script_file):
        return default
    with open(script_file, encoding="utf-8") as handle:
        modes = json.load(handle).get(phase, [])
    earlier = 0
    if os.path.exists(calls_file):
        with open(calls_file, encoding="utf-8") as handle:
            earlier = sum(json.loads(line)["phase"] == phase for line in handle if line.strip())
    return modes[earlier] if earlier < len(modes) else default


def log_call(phase, mode, prompt):
    calls_file = os.environ.get("FAKE_OPENCODE_CALLS")
    if calls_file:
        with open(calls_file, "a", encoding="utf-8") as handle:
            handle.write(
                json.dumps(
                    {
                        "argv": sys.argv,
                        "pwd": os.environ.get("PWD"),
                        "cwd": os.getcwd(),
                        "pid": os.getpid(),
                        "phase": phase,
                        "mode": mode,
                        "stdin": prompt,
                    }
                )
                + "\n"
            )


def named_paths(prompt):
    """The relative paths the prompt names in backticks, by what they are."""
    found = {}
    for path in re.findall(r"`([^`\s]+\.md)`", prompt):
        for key, pattern in (
            ("plan", r"/research_plan\.md$"),
            ("progress", r"/progress/[^/]+$"),
            ("index", r"/progress\.md$"),
            ("accepted", r"review\.accepted\.md$"),
            ("report", r"(^|/)report\.md$"),  # reports/{name}/, or a scratch area's report/
            ("notes", r"recovery\.notes\.md$"),
        ):
            if re.search(pattern, path):
                found.setdefault(key, path)
    return found


def write(relative, content):
    path = os.path.join(os.environ["PWD"], relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(content)


def read_existing(relative):
    """The current text of a file under $PWD, or None if it does not exist."""
    try:
        with open(os.path.join(os.environ["PWD"], relative), encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def first(pattern, prompt, default):
    match = re.search(pattern, prompt, re.MULTILINE)
    return match.group(1).strip() if match else default


VERDICT = (
    'The notes meet the criteria.\n\n```json\n{"verdict": "accepted", "summary": '
    '"Fine.", "gaps": [], "nextSearchTopic": null, "urlToSearch": null}\n```\n'
)


def files_to_read(phase, prompt):
    """The files a careful agent reads before writing this phase's files (it may edit them;
    a judge reads its batch)."""
    if phase == "verify":
        return [judge_paths(prompt)[0]]
    return list(phase_files(phase, prompt, lambda relative: None))


def judge_paths(prompt):
    """(batch file, answers file) a VERIFY prompt names."""
    batch = re.search(r"`([^`\s]+\.batch\.json)`", prompt)
    answers = re.search(r"`([^`\s]+\.answers\.json)`", prompt)
    return batch.group(1), answers.group(1)


def judge_answers(batch_text):
    """A judge's answers to a batch, as FAKE_OPENCODE_JUDGE says: "agree" (default: the
    rules' verdict, quoting the first passage), "says" (everything is said), "opposite",
    "lie" (says, with a quote that is on no page), "garbage" (not JSON)."""
    how = os.environ.get("FAKE_OPENCODE_JUDGE", "agree")
    if how == "garbage":
        return "this is not JSON {"
    items = json.loads(batch_text)["items"] if batch_text else []
    answers = []
    for item in items:
        passage = (item["passages"] or [""])[0]
        quote = " ".join(passage.split()[:12])
        if how == "lie":
            answer, quote = "says", "the page says exactly what the sentence says, trust me"
        elif how in ("says", "opposite"):
            answer = how
        else:
            answer = "says" if item["rules"] == "supported" else "not_said"
        answers.append({"id": item["id"], "answer": answer, "quote": quote})
    return json.dumps({"judgements": answers})


def phase_files(phase, prompt, existing):
    """What the phase's prompt asks for, like a well-behaved agent: {relative path: content}.

    `existing(relative)` gives a file's current text (or None); entries that add to a file
    (the progress index) keep what is there. Shared with fake_provider.py, whose fake model
    writes the same files through OpenCode's tools.
    """
    files = named_paths(prompt)
    question = first(r"^Research question: (.+)$", prompt, "the question")
    out = {}
    if phase == "initial_plan":
        breadth = int(first(r"breadth (\d+)", prompt, "1"))
        blocks = "".join(
            f"### {name} (Depth: 0)\n- Status: Pending\n- Description: About {name.lower()}.\n"
            f"- Acceptance Criteria:\n  - Facts about {name.lower()}\n\n"
            for name in TOPIC_NAMES[:breadth]
        )
        complexity = os.environ.get("FAKE_OPENCODE_COMPLEXITY")  # simple, standard or deep
        classed = f"- Complexity: {complexity} — the fake's class\n" if complexity else ""
        out[files["plan"]] = (
            f"# Research Plan\n\n## Metadata\n- Topic: {question}\n"
            f"- Breadth: {breadth}\n{classed}\n## Topics\n\n{blocks}## Completion Status\n"
        )
    elif phase == "research" and os.environ.get("FAKE_OPENCODE_FINDINGS"):
        name = first(r"^# Phase: RESEARCH — (.+)$", prompt, "topic")
        findings = scripted_findings()
        lines = "".join(f"- {claim} (Source: {url})\n" for claim, url in findings)
        listed = "".join(f"- Page {i} — {url}\n" for i, (_, url) in enumerate(findings, 1))
        out[files["progress"]] = (
            f"# Progress: {name}\n\n## Findings\n{lines}\n## Sources\n{listed}\n"
            "## Knowledge Gaps\n- Gap: none\n"
        )
        out[files["index"]] = (existing(files["index"]) or "") + f"- {name}: findings\n"
    elif phase in ("synthesize", "revise") and os.environ.get("FAKE_OPENCODE_FINDINGS"):
        registry = {
            url: ident for ident, url in re.findall(r"^\[(\d+)\] .*? — (\S+)", prompt, re.MULTILINE)
        }
        body = " ".join(
            f"{claim} [{registry[url]}]." for claim, url in scripted_findings() if url in registry
        )
        listed = "\n\n".join(f"[{ident}] Page — {url}" for url, ident in registry.items())
        out[files["report"]] = f"# Report\n\n{body}\n\n## Sources\n\n{listed}\n"
        if phase == "revise":
            out[files["accepted"]] = VERDICT
    elif phase == "research":
        name = first(r"^# Phase: RESEARCH — (.+)$", prompt, "topic")
        out[files["progress"]] = (
            f"# Progress: {name}\n\n## Findings\n- A fact about {name} "
            f"(Source: {SOURCE[1]})\n\n## Sources\n- {SOURCE[0]} — {SOURCE[1]}\n\n"
            "## Knowledge Gaps\n- Gap: none\n\n## Notes for Subtopics\n- none\n"
        )
        out[files["index"]] = (existing(files["index"]) or "") + f"- {name}: one finding\n"
    elif phase in ("review", "final_review"):
        out[files["accepted"]] = VERDICT
    elif phase in ("synthesize", "revise"):
        out[files["report"]] = (
            f"# Report\n\nThe answer, with a source [1].\n\n## Findings\n\n"
            f"One finding [1].\n\n## Sources\n\n[1] {SOURCE[0]} — {SOURCE[1]}\n"
        )
        if phase == "revise":
            out[files["accepted"]] = VERDICT
    elif phase == "verify":
        batch, answers = judge_paths(prompt)
        out[answers] = judge_answers(existing(batch))
    elif phase == "recovery":
        out[files["notes"]] = "# Recovery Notes\n\n## What went wrong\n- a fake failure\n"
    return out


def scripted_findings():
    """FAKE_OPENCODE_FINDINGS: a JSON file [[claim, url], ...] every research call writes."""
    with open(os.environ["FAKE_OPENCODE_FINDINGS"], encoding="utf-8") as handle:
        return json.load(handle)


def do_phase_work(phase, prompt):
    """Write what the phase's prompt asks for, directly under $PWD."""
    for relative, content in phase_files(phase, prompt, read_existing).items():
        write(relative, content)


def main():
    prompt = sys.stdin.read()
    phase = phase_of(prompt)
    mode = scripted_mode(phase, os.environ.get("FAKE_OPENCODE_MODE", "events"))
    log_call(phase, mode, prompt)
    record = os.environ.get("FAKE_OPENCODE_RECORD")
    if record:
        with open(record, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "argv": sys.argv,
                    "pwd": os.environ.get("PWD"),
                    "cwd": os.getcwd(),
                    "stdin": prompt,
                },
                handle,
            )

    if mode in ("agent", "agent_no_usage", "agent_then_error", "stray"):
        do_phase_work(phase, prompt)
        if mode == "stray":
            write(STRAY_FILE, "an agent that wrote outside the session\n")
        emit("step_start", part={"type": "step-start"})
        text(f"Did the {phase} work.")
        if os.environ.get("FAKE_OPENCODE_USAGE"):
            usage = os.environ["FAKE_OPENCODE_USAGE"]
            print(f'{{"type": "step_finish", "part": {usage}}}', flush=True)
        elif mode != "agent_no_usage":
            step_finish(TOKENS, COST)
        if mode == "agent_then_error":
            emit("error", error={"name": "APIError", "data": {"message": "Connection reset"}})
    elif mode == "text_only":
        text("I am done (but wrote nothing).")
        step_finish(TOKENS, COST)
    elif mode == "write":
        path = os.path.join(os.environ["PWD"], os.environ["FAKE_OPENCODE_FILE"])
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("# written by the fake agent\n")
        emit("step_start", part={"type": "step-start"})
        emit(
            "tool_use",
            part={
                "type": "tool",
                "tool": "write",
                "state": {"status": "completed", "input": {"filePath": path}},
            },
        )
        text("Wrote the file.")
        step_finish(
            {"input": 10, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}}, 0.001
        )
    elif mode == "silent":
        pass
    elif mode == "events":
        print("not json: a stray progress line", flush=True)
        emit("step_start", part={"type": "step-start"})
        step_finish(
            {"input": 100, "output": 20, "reasoning": 5, "cache": {"read": 1000, "write": 50}}, 0.25
        )
        text("First finding.")
        step_finish(
            {"input": 200, "output": 30, "reasoning": 0, "cache": {"read": 0, "write": 0}}, 0.5
        )
        text("Second finding.")
        step_finish(
            {"input": 1, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}}, 0.125
        )
    elif mode == "no_usage":
        emit("step_start", part={"type": "step-start"})
        text("Answer without usage figures.")
    elif mode == "plain":
        print(f"plain answer to: {prompt.splitlines()[0] if prompt else ''}")
    elif mode == "error_event":
        text("Trying.")
        emit("error", error={"name": "APIError", "data": {"message": "Rate limit exceeded"}})
    elif mode == "permission":
        print(
            "\x1b[93m\x1b[1m! \x1b[0mpermission requested: external_directory (/etc/*); "
            "auto-rejecting",
            file=sys.stderr,
            flush=True,
        )
        emit(
            "tool_use",
            part={
                "type": "tool",
                "tool": "write",
                "state": {
                    "status": "error",
                    "input": {},
                    "error": "The user rejected permission to use this specific tool call.",
                },
            },
        )
        text("I could not write outside the project.")
    elif mode == "exit1":
        print("\x1b[91m\x1b[1mError: \x1b[0mModel not found: nope/nothing", file=sys.stderr)
        sys.exit(1)
    elif mode == "exit1_event":
        print("some log line", file=sys.stderr)
        emit(
            "error",
            error={
                "name": "ProviderAuthError",
                "data": {"message": "No API key for provider nope"},
            },
        )
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
        step_finish(
            {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}, 0.0
        )
    else:
        print(f"unknown FAKE_OPENCODE_MODE {mode!r}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
