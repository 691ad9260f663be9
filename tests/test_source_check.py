"""The source check through the CLI: the mock's simulated web, a local HTTP server playing
the web for an agent CLI, local documents (--sources), --no-verify-sources, and resume.

conftest turns the check off for every test (RESEARCH_VERIFY_SOURCES=0, so no test reaches
the network); these tests turn it on with --verify-sources.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import install_fake_agent, read_json, read_jsonl

REPORT = Path("reports/demo/report.md")
SESSION = Path(".research/demo")

PAGES = {
    "/heat": (
        200,
        "text/html",
        "<html><head><title>Heat pump field trial</title></head><body>"
        "<article><h1>Heat pump field trial</h1><p>The 2023 field trial measured heat "
        "pumps in 120 homes.</p><p>Across the winter the heat pumps kept a seasonal "
        "coefficient of performance of 2.8 at outdoor temperatures down to minus 15 "
        "degrees Celsius.</p><p>Running costs fell by 31% compared with oil boilers."
        "</p></article></body></html>",
    ),
    "/grid": (
        200,
        "text/plain",
        "Grid operators reported that peak winter demand rose by "
        "4.2 gigawatts in 2024 as electric heating spread across the region.",
    ),
    "/gone": (404, "text/plain", "not found"),
}
FINDINGS = [
    [
        "Heat pumps kept a seasonal coefficient of performance of 2.8 at outdoor temperatures "
        "down to minus 15 degrees Celsius in the 2023 field trial",
        "/heat",
    ],
    ["Running costs fell by 45% compared with oil boilers", "/heat"],  # the page says 31%
    ["Peak winter demand rose by 4.2 gigawatts in 2024", "/grid"],
    ["Installers expect a shortage of trained staff until 2030", "/gone"],
]


class Site(ThreadingHTTPServer):
    hits: dict[str, int]


class Handler(BaseHTTPRequestHandler):
    server: Site

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.server.hits[self.path] = self.server.hits.get(self.path, 0) + 1
        status, ctype, body = PAGES.get(self.path, (404, "text/plain", "not found"))
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", f"{ctype}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[Site]:
    server = Site(("127.0.0.1", 0), Handler)
    server.hits = {}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def citing_agent(site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake agent CLI, writing FINDINGS as its notes and a report citing each."""
    install_fake_agent(tmp_path / "bin", monkeypatch)
    base = f"http://127.0.0.1:{site.server_address[1]}"
    findings = tmp_path / "findings.json"
    findings.write_text(json.dumps([[claim, base + path] for claim, path in FINDINGS]))
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_OPENCODE_MODE", "agent")
    monkeypatch.setenv("FAKE_OPENCODE_FINDINGS", str(findings))
    monkeypatch.setenv("FAKE_OPENCODE_CALLS", str(calls))
    return calls


def run_agent(run_cli, *extra: str):
    return run_cli(
        "--agent-cmd",
        "fake-agent --model {model}",
        "--model",
        "fake-model",
        "--review-model",
        "fake-review-model",
        "--name",
        "demo",
        "--breadth",
        "1",
        "--depth",
        "1",
        "--verify-sources",
        *extra,
        "Heat pumps in winter",
    )


def prompts_of(calls: Path, phase: str) -> list[str]:
    return [c["stdin"] for c in read_jsonl(calls) if c["phase"] == phase]


def test_pages_are_fetched_kept_and_checked_against_the_claims(run_cli, site, citing_agent):
    result = run_agent(run_cli, "--allow-private-sources")
    assert result.exit_code == 0, result.output

    # Fetched once each, kept as snapshots, recorded with their outcome.
    assert site.hits == {"/heat": 1, "/grid": 1, "/gone": 1}
    pages = read_json(SESSION / "verification.json")["pages"]
    outcomes = {url.rsplit("/", 1)[1]: page["status"] for url, page in pages.items()}
    assert outcomes == {"heat": "ok", "grid": "ok", "gone": "not_found"}
    heat = next(p for url, p in pages.items() if url.endswith("/heat"))
    assert heat["title"] == "Heat pump field trial" and heat["sha256"] and heat["fetched_at"]
    snapshot = (SESSION / "sources" / heat["snapshot"]).read_text(encoding="utf-8")
    assert "coefficient of performance of 2.8" in snapshot
    registry = read_json(SESSION / "sources.json")["sources"]
    assert {s["fetch"]["status"] for s in registry} == {"ok", "not_found"}

    # The reviewer is told which source is dead and which finding its page contradicts.
    review = prompts_of(citing_agent, "review")[0]
    check = review.split("## Source check by the orchestrator", 1)[1].split("## How", 1)[0]
    assert "/gone (not_found" in check
    assert "Running costs fell by 45%" in check and "31%" in check  # the evidence passage
    assert "Peak winter demand" not in check  # supported findings are not listed

    # The final reviewer gets the report's dead and unsupported citations.
    final = prompts_of(citing_agent, "final_review")[0]
    assert "45%" in final and "not_found" in final

    # The reader sees the figures, the snapshots and what could not be verified.
    report = REPORT.read_text(encoding="utf-8")
    assert (
        "- Sources checked: 3 cited in the notes; 2 fetched or read with a text snapshot "
        "kept; 1 dead" in report
    )
    assert (
        "- Claims checked against their pages: 4 cited sentences: 2 supported, 0 weak, "
        "1 unsupported, 1 unverifiable (no snapshot)" in report
    )
    assert "(snapshot kept)" in report and "(no snapshot: not found)" in report
    # Each flagged sentence is marked after its citation and has its own appendix line.
    assert re.search(r"Running costs fell by 45% compared with oil boilers \[\d\]\u2020", report)
    appendix = report.split("### Sentences that could not be verified", 1)[1]
    (line,) = [x for x in appendix.splitlines() if "45%" in x]
    assert "unsupported: rules: 45% not on the page" in line and "fell by 31%" in line
    assert "not_found" in appendix
    summary = read_json(SESSION / "verification.json")["summary"]
    assert (summary["supported"], summary["unsupported"], summary["unverifiable"]) == (2, 1, 1)
    events = [e["type"] for e in read_jsonl(SESSION / "events.jsonl")]
    assert "source_check" in events and "report_check" in events


def test_private_addresses_are_refused_by_default(run_cli, site, citing_agent):
    result = run_agent(run_cli)
    assert result.exit_code == 0, result.output
    assert site.hits == {}  # nothing was fetched from loopback
    pages = read_json(SESSION / "verification.json")["pages"]
    assert {p["status"] for p in pages.values()} == {"skipped"}
    assert all("127.0.0.1" in p["reason"] for p in pages.values())
    assert "0 fetched or read with a text snapshot kept" in REPORT.read_text(encoding="utf-8")


def test_no_verify_sources_fetches_nothing_and_says_so(run_cli, site, citing_agent):
    result = run_agent(run_cli, "--allow-private-sources", "--no-verify-sources")
    assert result.exit_code == 0, result.output
    assert site.hits == {}
    assert read_json(SESSION / "verification.json") == {
        "enabled": False,
        "topics": {},
        "report": [],
        "citations": [],
        "pages": {},
        "summary": None,
        "judge": {"judgements": {}, "unanswered": [], "calls": 0, "failed": 0, "skipped": ""},
    }
    assert not (SESSION / "sources").exists()
    assert not [c for c in read_jsonl(citing_agent) if c["phase"] == "verify"]
    report = REPORT.read_text(encoding="utf-8")
    assert "- Source check: off (--no-verify-sources)" in report
    assert "snapshot kept" not in report
    review = prompts_of(citing_agent, "review")[0]
    assert "(source checking is off for this session)" in review


def test_mock_mode_checks_its_simulated_sources_offline(run_cli):
    result = run_cli(
        "--mock-mode",
        "--verify-sources",
        "--name",
        "demo",
        "--breadth",
        "2",
        "--depth",
        "1",
        "How do heat pumps perform in cold climates?",
    )
    assert result.exit_code == 0, result.output
    report = REPORT.read_text(encoding="utf-8")
    summary = read_json(SESSION / "verification.json")["summary"]
    assert summary["sources_cited"] > 0 and summary["snapshotted"] == summary["sources_cited"]
    assert summary["dead"] == 0
    # The simulated agent misreads one figure of the first topic; the check catches it.
    assert summary["unsupported"] >= 1 and summary["supported"] > summary["unsupported"]
    # The misread figure's sentence is marked in the text and listed with its passage.
    appendix = report.split("### Sentences that could not be verified", 1)[1]
    flagged = [line for line in appendix.splitlines() if line.startswith("- ")]
    assert len(flagged) == summary["unsupported"] + summary["weak"] + summary["unverifiable"]
    body = report.split("## Sources", 1)[0]
    for line in flagged:
        sentence = line.split('"', 2)[1]
        assert re.search(re.escape(sentence.rstrip(".")) + r" \[\d+\]\u2020", body), line
        # Decided by the rules (the figure is not on the page) or by the simulated judge,
        # which quotes the page's own figure as the opposite of the sentence's.
        by_rules = "unsupported: rules: " in line and "not on the page" in line
        by_judge = "unsupported: judge (simulated): the page says the opposite: " in line
        assert by_rules or by_judge, line
        page_figure = re.search(r'the page says(?: the opposite)?: ".*\b(\d+) sites', line)
        assert page_figure and page_figure.group(1) not in sentence, line
    assert (
        f"{summary['claims_checked']} cited sentences: {summary['supported']} supported" in report
    )
    # The simulated agent judged the sentences too (VERIFY), so --mock-mode shows that path.
    assert summary["judge"] == "all" and summary["judge_calls"] >= 1
    assert summary["decided_by_judge"] > 0 and "- Decided by: the rules for " in report
    html = (REPORT.parent / "report.html").read_text(encoding="utf-8")
    assert "\u2014 judge (simulated): " in html
    # Also the pages of the first topic's rejected first attempt: kept, not cited.
    assert len(list((SESSION / "sources").glob("*.txt"))) > summary["snapshotted"]


def test_a_run_with_the_check_off_never_loads_the_fetcher(isolated):
    """Start-up and memory: with --no-verify-sources (and no --sources) a whole run imports
    neither httpx nor the extractors."""
    import subprocess
    import sys

    from conftest import REPO

    probe = (
        "import atexit, runpy, sys\n"
        "atexit.register(lambda: print('LOADED', sorted(m for m in ('httpx', 'trafilatura', "
        "'pypdf', 'lxml') if m in sys.modules), file=sys.stderr))\n"
        f"sys.argv = ['research.py', '--mock-mode', '--no-verify-sources', '--name', 'off', "
        "'--breadth', '2', '--depth', '1', 'heat pumps']\n"
        f"runpy.run_path({str(REPO / 'research.py')!r}, run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=isolated, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stderr, done.stderr
    assert (isolated / "reports" / "off" / "report.md").is_file()


def test_local_documents_are_listed_cited_and_checked(run_cli, tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "heat-pump-trial.md").write_text(
        "# Heat pump trial\n\nThe trial found a seasonal coefficient of performance of 2.8 "
        "in cold climates.\n",
        encoding="utf-8",
    )
    (docs / "sub" / "tariffs.txt").write_text(
        "Electricity tariffs for heat pumps fell by 12% in 2024.\n", encoding="utf-8"
    )
    (docs / "photo.png").write_bytes(b"\x89PNG")
    install_fake_agent(tmp_path / "bin", monkeypatch)
    findings = tmp_path / "findings.json"
    where = docs.resolve().as_posix()  # outside the working directory: cited by full path
    findings.write_text(
        json.dumps(
            [
                [
                    "A seasonal coefficient of performance of 2.8 in cold climates",
                    f"file:{where}/heat-pump-trial.md",
                ],
                [
                    "Electricity tariffs for heat pumps fell by 20% in 2024",
                    f"file:{where}/sub/tariffs.txt",
                ],
                ["Secret figures", "file:/etc/hostname"],
            ]
        )
    )
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_OPENCODE_MODE", "agent")
    monkeypatch.setenv("FAKE_OPENCODE_FINDINGS", str(findings))
    monkeypatch.setenv("FAKE_OPENCODE_CALLS", str(calls))
    result = run_agent(run_cli, "--sources", str(docs))
    assert result.exit_code == 0, result.output
    research = prompts_of(calls, "research")[0]
    assert "`file:" in research and "heat-pump-trial.md" in research and "photo.png" not in research
    pages = read_json(SESSION / "verification.json")["pages"]
    trial = next(p for url, p in pages.items() if url.endswith("heat-pump-trial.md"))
    assert trial["status"] == "ok" and trial["snapshot"]
    assert not any("hostname" in url for url in pages)  # never read: not a given document
    report = REPORT.read_text(encoding="utf-8")
    assert "1 supported, 0 weak, 1 unsupported, 1 unverifiable" in report
    assert "local document" in report


@pytest.mark.parametrize("ledger", ["kept", "forged too"])
def test_a_resumed_run_fetches_again_only_what_was_forged(
    run_cli, site, citing_agent, tmp_path, isolated, ledger
):
    """A URL fetched in the session is not fetched again after --resume. But an agent could
    rewrite sources/index.json, with a snapshot to match, so that a dead page passes the
    claim check in a later run. The state keeps what was stored: on resume the forged
    record is dropped, and only that page is fetched again. The state's digests are signed
    with the user's key, kept outside the working directory: an agent that also rewrites
    both state files with the record's sha256 (what anyone can compute) gets nowhere.

    The first run is killed (-9, by the agent at the first review, after the notes' pages
    were fetched); the resumed run finishes the session and checks every claim."""
    import hashlib
    import os
    import subprocess
    import sys

    from conftest import REPO

    from research.sources.store import snapshot_key

    record = tmp_path / "record"
    record.mkdir()
    hostile = Path(__file__).parent / "fake_agents" / "hostile_agent.py"
    env = dict(
        os.environ,
        RESEARCH_AGENT_CMD=f"{sys.executable} {hostile}",
        HOSTILE_ACT="kill",
        HOSTILE_PHASE="review",
        HOSTILE_NAME="demo",
        HOSTILE_RECORD=str(record),
    )
    argv = ["--name", "demo", "--breadth", "1", "--depth", "1", "--yes"]
    argv += ["--verify-sources", "--allow-private-sources", "Heat pumps in winter"]
    killed = subprocess.run(
        [sys.executable, str(REPO / "research.py"), *argv],
        cwd=isolated,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert killed.returncode == -9, killed.stderr
    assert site.hits == {"/heat": 1, "/grid": 1, "/gone": 1}

    store = SESSION / "sources"
    index = read_json(store / "index.json")
    gone = next(url for url in index["records"] if url.endswith("/gone"))
    forged_text = "Installers expect a shortage of trained staff until 2030."
    key = snapshot_key(gone)
    (store / f"{key}.txt").write_text(forged_text, encoding="utf-8")
    index["records"][gone].update(
        status="ok",
        reason="",
        http_status=200,
        snapshot=f"{key}.txt",
        sha256=hashlib.sha256(forged_text.encode()).hexdigest(),
        chars=len(forged_text),
    )
    (store / "index.json").write_text(json.dumps(index), encoding="utf-8")
    if ledger == "forged too":
        from research.sources.records import SourceRecord

        forged = SourceRecord.model_validate(index["records"][gone]).model_dump_json()
        for name in ("state.json", "state.prev.json"):
            state = read_json(SESSION / name)
            state["sources"]["digests"][gone] = hashlib.sha256(forged.encode()).hexdigest()
            (SESSION / name).write_text(json.dumps(state), encoding="utf-8")

    again = run_cli(
        "--resume",
        "--name",
        "demo",
        "--verify-sources",
        env={"RESEARCH_AGENT_CMD": env["RESEARCH_AGENT_CMD"]},
    )
    assert again.exit_code == 0, again.output
    assert site.hits == {"/heat": 1, "/grid": 1, "/gone": 2}  # only the forged one again
    pages = read_json(SESSION / "verification.json")["pages"]
    assert pages[gone]["status"] == "not_found"
    summary = read_json(SESSION / "verification.json")["summary"]
    assert (summary["supported"], summary["unsupported"], summary["unverifiable"]) == (2, 1, 1)
    warnings = [
        e["message"] for e in read_jsonl(SESSION / "events.jsonl") if e["type"] == "warning"
    ]
    assert any(
        "1 record(s) of index.json are not the ones this session saved" in w for w in warnings
    )


def test_a_machine_that_cannot_resolve_names_says_so_and_calls_nothing_dead(run_cli, mock_script):
    """An offline run (no name resolves): the sources are "not checked", never "dead"; the
    run says so once on the terminal, in the events and in the Methodology; no review
    prompt tells the reviewer to reject or drop on them."""
    script = mock_script(web="unresolvable", reject_first_review=False)
    result = run_cli(
        "--mock-mode", "--mock-script", str(script), "--verify-sources", "--name", "demo",
        "--breadth", "2", "--depth", "1", "How do heat pumps perform in cold climates?",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    terminal = result.output
    assert terminal.count("could not reach the web") == 1, terminal
    assert "--no-verify-sources" in terminal
    assert "checking 3 sources\u2026" in terminal
    assert "3 could not be checked" in terminal  # the per-topic line counts them
    events = read_jsonl(SESSION / "events.jsonl")
    assert [e["type"] for e in events].count("web_unreachable") == 1
    pages = read_json(SESSION / "verification.json")["pages"]
    assert pages and {p["status"] for p in pages.values()} == {"not_checked"}

    report = REPORT.read_text(encoding="utf-8")
    methodology = report.split("## Methodology", 1)[1]
    assert "this machine could not reach the web" in methodology
    assert "`--no-verify-sources`" in methodology
    assert "; 0 dead (" in methodology and "6 not checked (no web access)" in methodology
    assert "(no snapshot: not checked)" in report

    logs = sorted((SESSION / "logs").glob("*review*.log"))
    assert len(logs) >= 3
    for log in logs:
        prompt = log.read_text(encoding="utf-8")
        check = prompt.split("## Source check by the orchestrator", 1)[1].split("\n## ", 1)[0]
        assert "not checked" in check.lower(), check
        for wrong in ("dead", "Reject the topic", "drop them", "drop the citation"):
            assert wrong not in check, (log.name, wrong, check)
