"""The built-in agents as research.py sees them, without their CLIs: each agent's default
models, what a resumed session and a queued job keep, the HTTP statuses' failure kinds,
and Claude Code's and Codex's output read from canned lines (the real CLIs are driven in
test_claude_real.py and test_codex_real.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import new_state

from research.agents.base import FailureKind
from research.agents.claude import interpret_claude
from research.agents.codex import CodexAgent, interpret_codex
from research.agents.process import ProcessResult
from research.cluster.messages import child_args
from research.cluster.submit import job_of
from research.core.agentkind import AgentKind, default_models
from research.core.prices import Price, load_prices
from research.core.settings import Settings
from research.model.plan import Plan
from research.model.state import SessionConfig
from research.service.resuming import resumed_agent
from research.session.preflight import remembered_agent

QUESTION = "How do heat pumps perform in cold climates?"


def settings(**fields: object) -> Settings:
    given = frozenset(name for name in fields if name not in ("topic",))
    return Settings.model_validate(
        {"root": Path.cwd(), "name": "s", "topic": QUESTION, **fields, "given": given}
    )


def process(stdout: str, exit_code: int = 0) -> ProcessResult:
    return ProcessResult(exit_code, stdout, "", 1.0, False)


@pytest.mark.parametrize(
    ("agent", "fields", "models"),
    [
        ("opencode", {}, ("opencode/minimax-m2.1-free", "opencode/big-pickle")),
        ("claude", {"agent": AgentKind.CLAUDE}, ("sonnet", "opus")),
        ("codex", {"agent": AgentKind.CODEX}, ("gpt-5.5", "gpt-5.5")),
        ("mock", {"mock_mode": True}, ("simulated", "simulated")),
        # A command gets no agent's defaults; its reviews use --model unless told.
        ("command", {"agent_cmd": "x {model}", "model": "m1"}, ("m1", "m1")),
        ("claude", {"agent": AgentKind.CLAUDE, "review_model": "haiku"}, ("sonnet", "haiku")),
    ],
)
def test_a_new_session_records_its_agent_s_own_default_models(
    agent: str, fields: dict[str, object], models: tuple[str, str]
) -> None:
    config = SessionConfig.from_settings(settings(**fields), agent=agent, max_iterations=9)
    assert (config.model, config.review_model) == models
    assert "minimax" not in config.model_dump_json() or agent == "opencode"


def test_a_resumed_session_keeps_its_agent_and_another_agent_gets_its_own_models() -> None:
    state = new_state(
        Plan(topic=QUESTION, breadth=1, depth=1), name="s", max_iterations=9, timeout=9
    )
    state.config.agent = "claude"
    state.config.model, state.config.review_model = default_models("claude")
    kept = remembered_agent(state, settings(resume=True))
    assert kept.agent is AgentKind.CLAUDE
    # Switching to Codex: the models not given become Codex's, and the change is said.
    changes = state.config.apply(settings(resume=True, agent=AgentKind.CODEX, review_model="r"))
    assert (state.config.agent, state.config.model, state.config.review_model) == (
        "codex",
        "gpt-5.5",
        "r",
    )
    assert "--agent codex (was claude)" in changes and "--model gpt-5.5 (was sonnet)" in changes


@pytest.mark.parametrize(
    ("agent", "mock_mode", "kind"),
    [
        ("claude", False, AgentKind.CLAUDE),
        ("codex", True, AgentKind.CODEX),
        ("mock", True, AgentKind.MOCK),
        ("command", False, AgentKind.OPENCODE),  # the server's --agent-cmd stands in
    ],
)
def test_the_service_resumes_a_session_on_its_own_agent(
    agent: str, mock_mode: bool, kind: AgentKind
) -> None:
    assert resumed_agent(agent, mock_mode) is kind


def test_a_queued_job_carries_its_agent_to_the_worker_s_child() -> None:
    job = job_of(settings(agent=AgentKind.CODEX, model="gpt-5"))
    args = child_args(job, Path.cwd(), agent_cmd="opencode-wrapper {model}")
    assert args[args.index("--agent") + 1] == "codex" and "--agent-cmd" not in args
    assert args[args.index("--model") + 1] == "gpt-5"


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, "api_refused"), (404, "api_refused"), (429, "api_error"), (500, "api_error")],
)
def test_an_http_status_maps_to_a_failure_kind(status: int, kind: str) -> None:
    assert FailureKind.of_http_status(status).value == kind
    assert FailureKind.of_http_status(status).transient is (kind == "api_error")


def test_claude_code_killed_before_its_result_reports_its_messages_usage_once() -> None:
    message = {"id": "m1", "usage": {"input_tokens": 10, "cache_read_input_tokens": 5}}
    lines = [
        {"type": "system", "subtype": "init", "model": "claude-x"},
        {"type": "assistant", "message": {**message, "content": [{"type": "text", "text": "a"}]}},
        {"type": "assistant", "message": {**message, "content": [{"type": "tool_use"}]}},
    ]
    outcome = interpret_claude(process("\n".join(map(json.dumps, lines))))
    assert (outcome.input_tokens, outcome.output_tokens, outcome.cost) == (15, 0, None)
    assert outcome.model == "claude-x" and outcome.output == "a"
    assert any("no result event" in note for note in outcome.notes)


def test_a_claude_code_error_without_a_status_is_the_agent_s_error() -> None:
    result = {"type": "result", "is_error": True, "subtype": "error_max_turns", "result": ""}
    outcome = interpret_claude(process(json.dumps(result), exit_code=1))
    assert outcome.failure is FailureKind.AGENT_ERROR
    assert outcome.error == "an error (error_max_turns)"


def test_codex_s_usage_is_summed_and_its_cost_computed_only_with_a_price() -> None:
    turn = {"input_tokens": 1000, "cached_input_tokens": 400, "output_tokens": 100}
    stdout = "\n".join(json.dumps({"type": "turn.completed", "usage": turn}) for _ in range(2))
    price = Price(input=2.0, cached_input=0.5, output=8.0)
    priced = interpret_codex(process(stdout), price=price, model="m")
    assert (priced.input_tokens, priced.output_tokens) == (2000, 200)
    assert priced.cost == pytest.approx((1200 * 2.0 + 800 * 0.5 + 200 * 8.0) / 1e6)
    unpriced = interpret_codex(process(stdout), price=None, model="m")
    assert unpriced.cost is None and any("cost: unknown" in note for note in unpriced.notes)
    assert CodexAgent(prices={"m": price}).unpriced_models(["m", "n", "n"]) == ["n"]


def test_only_an_agent_that_reports_tokens_without_their_cost_has_unpriced_models() -> None:
    from research.agents.generic import CommandAgent
    from research.agents.kinds import built_in
    from research.simulation.agent import MockAgent

    agents = [built_in(kind) for kind in AgentKind if kind is not AgentKind.MOCK]
    models = ["some-model", "gpt-5-codex"]
    for agent in [*agents, MockAgent(), CommandAgent("cat")]:
        unpriced = agent.unpriced_models(models)
        assert unpriced == (["some-model"] if agent.name == "codex" else []), agent.name


def test_codex_s_failed_turn_without_a_status_is_an_api_error() -> None:
    failed = {"type": "turn.failed", "error": {"message": "stream disconnected"}}
    outcome = interpret_codex(process(json.dumps(failed), exit_code=1), price=None, model="m")
    assert outcome.failure is FailureKind.API_ERROR and outcome.error == "stream disconnected"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("[]", "must hold a JSON object"),
        ('{"m": {"input": -1}}', "not a non-negative number"),
        ('{"m": {"input": 1, "colour": 2}}', "must be an object with input"),
        ("{", "is not JSON"),
    ],
)
def test_a_bad_price_file_is_refused_with_what_is_wrong(
    tmp_path: Path, content: str, words: str
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=words):
        load_prices(path)


def test_a_bad_price_file_on_the_command_line_is_a_usage_error(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"gpt-5.5": {"input": "cheap"}}', encoding="utf-8")
    result = run_cli("--agent", "codex", "--codex-prices", str(path), "--name", "p", QUESTION)
    assert result.exit_code == 2
    assert "--codex-prices" in result.stderr and "not a non-negative number" in result.stderr
    assert not Path(".research").exists()


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_the_service_offers_each_agent_and_says_how_to_install_a_missing_one(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    pytest.importorskip("fastapi")
    import anyio
    import httpx

    from research.service.app import ServiceConfig, create_app

    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no agent CLI can be found
    app = create_app(ServiceConfig(root=isolated, poll_seconds=0.02))

    async def ask() -> tuple[httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            page = await client.get("/")
            started = await client.post("/run", json={"task": QUESTION, "agent": agent})
            return page, started

    page, started = anyio.run(ask)
    assert f'<option value="{agent}">{agent}</option>' in page.text
    assert started.status_code == 503, started.text
    error = started.json()["error"]
    assert error["type"] == "agent_unavailable"
    package = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex"}[agent]
    assert f"npm install -g {package}" in error["message"]
    assert not (isolated / ".research").exists()


def test_codex_runs_in_its_sandbox_or_says_on_its_command_line_that_it_does_not() -> None:
    sandboxed = CodexAgent(sandbox=True).argv("m", provider="mine")
    assert sandboxed[sandboxed.index("--sandbox") + 1] == "workspace-write"
    assert "sandbox_workspace_write.exclude_slash_tmp=true" in sandboxed
    assert "model_providers.mine.request_max_retries=2" in sandboxed
    assert sandboxed[-1] == "-"  # the prompt comes on stdin
    bare = CodexAgent(sandbox=False).argv("m", provider="openai")
    assert "--dangerously-bypass-approvals-and-sandbox" in bare and "--sandbox" not in bare
    # Codex refuses settings for its built-in providers: none are given for them.
    assert not [word for word in bare if word.startswith("model_providers.")]


def test_a_session_resumed_with_a_command_keeps_the_models_it_had() -> None:
    state = new_state(
        Plan(topic=QUESTION, breadth=1, depth=1), name="s", max_iterations=9, timeout=9
    )
    state.config.agent, state.config.model = "claude", "sonnet"
    state.config.apply(settings(resume=True, agent_cmd="claude -p --model {model}"))
    assert (state.config.agent, state.config.model) == ("command", "sonnet")
