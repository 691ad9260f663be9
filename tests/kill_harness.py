"""Crash-and-resume harness: SIGKILL research.py sessions at many moments, then resume them.

Run as `python tests/kill_harness.py SPEC.json` with the repository on PYTHONPATH. The
harness imports the CLI once and runs every session in a forked child: a real process
running `research.cli.main()` exactly as the `research.py` shim does, killed by a real
SIGKILL. A kill point then costs the session's work, not an interpreter start.

For each configuration it first runs an uninterrupted baseline. Then it runs *chains*: one
session killed again and again, each run resumed (`--resume`; the dead holder's lock is
stale) and killed once more, until a run finishes by itself.

- boundary chains kill every run at an agent call through the mock script's
  `kill_at_call` — the first run at call 1, each resumed run at its call 2 (its call 1
  redoes the phase in flight), so a chain kills once at every call of the session, before
  or after the call's file edits;
- random chains kill every run at a seeded random instant (up to a fifth of the baseline's
  duration after its start), wherever the orchestrator is;
- fresh points kill a new session's first run at a seeded fraction of the baseline's
  duration, then resume it (a kill before the first state save leaves nothing to resume:
  the session is then started again, as its user would).

Right after each kill the files a resume depends on are copied to `snap-<i>/`. The harness
writes `<root>/results-<shard>.json`; the pytest side asserts on the files left behind.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import random
import shutil
import signal
import sys
import time
from pathlib import Path

import typer.main
from scripted_mock import installed

import research
import research.cli
from research.cli import main as research_main
from research.sources import quantities

QUESTION = "How do heat pumps perform in cold climates?"
KILLED = -signal.SIGKILL
MAX_LINKS = 40
SNAPSHOT_FILES = ("state.json", "research_plan.md", "research.lock.json")


def run_child(work: Path, args: list[str], out: Path, *, kill_after: float | None = None) -> int:
    """Run the CLI with `args` in a forked child in `work`; its exit code, or -signal.

    With `kill_after`, the parent SIGKILLs the child after that many seconds.
    """
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        become_research_py(work, args, out)
    if kill_after is not None:
        while time.monotonic() - started < kill_after:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.001)
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def become_research_py(work: Path, args: list[str], out: Path) -> None:
    """The forked child: run `research.py ARGS` in `work`, output to `out`; never returns."""
    code = 1
    try:
        os.chdir(work)
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        with installed(args) as rest:  # --mock-script: the tests' scripted double
            sys.argv = ["research.py", *rest]
            research_main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - shown in the output file; the parent sees 99
        import traceback

        traceback.print_exc()
        code = 99
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def write_script(path: Path, **script: object) -> Path:
    path.write_text(json.dumps(script), encoding="utf-8")
    return path


def mock_args(config: dict, script: Path) -> list[str]:
    """The options every run of a session has: the scripted mock and the session's name."""
    return ["--mock-mode", "--mock-script", str(script), "--name", config["name"]]


def start_args(config: dict, script: Path) -> list[str]:
    shape = ["--breadth", str(config["breadth"]), "--depth", str(config["depth"])]
    return [*mock_args(config, script), *shape, "--yes", "--quiet", QUESTION]


def resume_args(config: dict, script: Path) -> list[str]:
    return [*mock_args(config, script), "--resume", "--quiet"]


def snapshot(session: Path, dest: Path) -> None:
    """Copy what a resume depends on: state, plan, lock, progress notes (also archived ones)."""
    dest.mkdir(parents=True)
    for name in SNAPSHOT_FILES:
        if (session / name).is_file():
            shutil.copy2(session / name, dest / name)
    if (session / "progress").is_dir():
        shutil.copytree(session / "progress", dest / "progress")
    archived = (
        sorted((session / "archive").glob("*.progress.md"))
        if (session / "archive").is_dir()
        else []
    )
    if archived:
        (dest / "archive").mkdir()
        for file in archived:
            shutil.copy2(file, dest / "archive" / file.name)


def baseline(root: Path, config: dict) -> dict:
    """An uninterrupted run: its agent calls and how long it takes."""
    chain = root / f"baseline-{config['name']}"
    (chain / "work").mkdir(parents=True)
    record = chain / "link-0.calls.jsonl"
    script = write_script(
        chain / "link-0.script.json", simulated_clock=True, record_file=str(record)
    )
    started = time.monotonic()
    code = run_child(chain / "work", start_args(config, script), chain / "link-0.out")
    duration = time.monotonic() - started
    calls = len(record.read_text(encoding="utf-8").splitlines())
    return {"dir": str(chain), "exit": code, "calls": calls, "duration": duration}


def run_chain(chain: Path, config: dict, kills: list[dict]) -> dict:
    """Run one session, killing its i-th run as `kills[i]` says, until a run ends by itself.

    A kill is {"call": N, "before_edits": bool} or {"after": seconds}; past the list's end
    the runs are not killed.
    """
    work = chain / "work"
    work.mkdir(parents=True)
    session = work / ".research" / config["name"]
    links = []
    for index in range(MAX_LINKS):
        kill = kills[index] if index < len(kills) else {}
        script = {"simulated_clock": True, "record_file": str(chain / f"link-{index}.calls.jsonl")}
        if "call" in kill:
            script.update(kill_at_call=kill["call"], kill_before_edits=kill["before_edits"])
        path = write_script(chain / f"link-{index}.script.json", **script)
        fresh = not (session / "state.json").exists()
        args = start_args(config, path) if fresh else resume_args(config, path)
        code = run_child(work, args, chain / f"link-{index}.out", kill_after=kill.get("after"))
        link = {"index": index, "kill": kill, "fresh": fresh, "exit": code}
        if code == KILLED and session.is_dir():
            snapshot(session, chain / f"snap-{index}")
            link["snapshot"] = str(chain / f"snap-{index}")
        links.append(link)
        if code != KILLED:
            break
    return {"dir": str(chain), "config": config["name"], "links": links}


def chain_plans(spec: dict, base: dict, rng: random.Random) -> list[tuple[str, list[dict]]]:
    """The chains of one configuration: two boundary chains, random chains, fresh points."""
    calls = base["calls"]
    plans = []
    for before in (True, False):
        kills = [{"call": 1 if i == 0 else 2, "before_edits": before} for i in range(calls)]
        plans.append((f"boundary-{'before' if before else 'after'}", kills))
    for number in range(spec["random_chains"]):
        kills = [
            {"after": rng.uniform(0.0, base["duration"] / 5)} for _ in range(spec["random_links"])
        ]
        plans.append((f"random-{number}", kills))
    for number in range(spec["fresh_points"]):
        plans.append((f"fresh-{number}", [{"after": rng.uniform(0.0, base["duration"])}]))
    return plans


def preload() -> None:
    """Import every module of the package now, so no forked child pays for its imports.

    Also make `os.fsync` a no-op in the children: it guards against power loss, not against
    SIGKILL (the page cache outlives a killed process; atomicity comes from the rename),
    and on a busy disk it is most of a mock session's time. And build the CLI's click
    command once: Typer would rebuild the same one from the signature in every child.
    """
    for module in pkgutil.walk_packages(research.__path__, "research."):
        if not module.name.startswith("research.service"):  # the optional [server] extra
            importlib.import_module(module.name)
    os.fsync = lambda fd: None
    # The source check's unit registry (pint's, built on first use) costs more than the rest
    # of a mock session: build it here, once, not in every child.
    quantities.unit_of("kWh")
    # Typer builds the click command from the signature on every call; build it once.
    command = typer.main.get_command(research.cli.app)
    build = typer.main.get_command
    typer.main.get_command = lambda app: command if app is research.cli.app else build(app)


def main() -> None:
    preload()
    spec = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    root = Path(spec["root"])
    shard, shards = spec["shard"], spec["shards"]
    results: dict = {"baselines": {}, "chains": []}
    jobs = []
    for config in spec["configs"]:
        base = baseline(root / f"shard-{shard}", config)
        results["baselines"][config["name"]] = base
        rng = random.Random(f"{spec['seed']}-{config['name']}")
        jobs += [(config, label, kills) for label, kills in chain_plans(spec, base, rng)]
    for index, (config, label, kills) in enumerate(jobs):
        if index % shards == shard:
            chain = run_chain(root / f"chain-{index:02d}-{config['name']}-{label}", config, kills)
            results["chains"].append({**chain, "label": label})
    out = root / f"results-{shard}.json"
    out.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
