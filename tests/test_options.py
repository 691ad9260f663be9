"""The option table (research/core/options.py): each option declared once, and the command
line, Settings, the saved SessionConfig and the service's request all agree with it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import typer

from research.cli import app
from research.core import defaults
from research.core.option_fields import request_values
from research.core.options import (
    ENV,
    OPTIONS,
    command_line,
    given_names,
    iteration_floor_note,
)
from research.core.settings import Settings
from research.model.state import SessionConfig


def test_every_setting_has_its_field_default_and_bounds_from_the_table() -> None:
    fields = Settings.model_fields
    for option in OPTIONS:
        if not option.setting:
            continue
        assert option.name in fields, option.name
        if not option.repeatable and option.name != "name":  # the name is always given
            assert fields[option.name].default == option.default, option.name
        bounds = {type(m).__name__: m for m in fields[option.name].metadata}
        if option.minimum is not None:
            assert bounds["Ge"].ge == option.minimum, option.name
        if option.maximum is not None:
            assert bounds["Le"].le == option.maximum, option.name


def test_every_saved_option_is_in_the_saved_config_and_nothing_else_is() -> None:
    saved = {option.name for option in OPTIONS if option.saved}
    own = {"original_topic", "agent", "agent_cmd", "mock_mode"}
    # How the tier was settled: not options, the session's record of who chose what.
    own |= {"tier_source", "tier_reason", "explicit", "requested_max_iterations"}
    # How the user agreed to the iteration limit, and what changed it since.
    own |= {"limit_agreement", "limit_changes"}
    assert set(SessionConfig.model_fields) == saved | own


def test_every_request_field_is_an_option_with_the_cli_bounds() -> None:
    pytest.importorskip("fastapi")
    from research.service.models import RunRequest

    requested = {option.request_field: option for option in OPTIONS if option.request_field}
    seconds = {option.request_seconds for option in OPTIONS if option.request_seconds}
    assert set(RunRequest.model_fields) == {"task", *requested, *seconds}
    for field, option in requested.items():
        bounds = {type(m).__name__: m for m in RunRequest.model_fields[field].metadata}
        if option.minimum is not None:
            assert bounds["Ge"].ge == option.minimum, field
        if option.maximum is not None:
            assert bounds["Le"].le == option.maximum, field


def test_variables_and_flags_are_unique() -> None:
    assert len(set(ENV.values())) == len(ENV)
    assert all(name.startswith("RESEARCH_") for name in ENV.values())
    flags = [flag for option in OPTIONS for flag in option.flags]
    assert len(set(flags)) == len(flags)


def _parse(args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """What the CLI reads from `args` (and the environment), before it runs anything."""
    command = typer.main.get_command(app)
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        with command.make_context("research", [*args, "topic"]) as ctx:
            return dict(ctx.params)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_the_command_line_of_a_child_reads_back_as_the_same_values(tmp_path: Path) -> None:
    values: dict[str, object] = {
        "breadth": 4,
        "depth": 2,
        "max_iterations": 40,
        "time_budget_minutes": 90.5,
        "model": "m/one",
        "review_model": "m/two",
        "timeout": 30.0,
        "parallel": 3,
        "duplicate_threshold": 0.5,
        "min_novelty": 0.25,
        "early_termination": False,
        "verify_sources": False,
        "allow_private_sources": True,
        "source_dirs": (tmp_path.resolve(),),
        "tier": "deep",
        "searches": 7,
        "max_sources": 9,
        "token_budget": 50000,
        "max_cost": 2.5,
    }
    parsed = _parse(command_line(values))
    assert {name: parsed[name] for name in values} == values
    assert _parse(command_line({"time_budget_minutes": None}))["time_budget_minutes"] is None


def test_what_the_user_set_is_explicit() -> None:
    sources = {"breadth": "ENVIRONMENT", "model": "ENVIRONMENT", "depth": "COMMANDLINE"}
    values = {"breadth": 4, "model": "m", "depth": 2, "timeout": 5.0}
    assert given_names(sources, False, values) == {"breadth", "model", "depth"}
    # A resumed session's shape is its own: the environment gives it to new sessions only.
    assert given_names(sources, True, values) == {"model", "depth"}
    # 'unlimited' is a value of --time, not its absence.
    assert given_names(
        {"time_budget_minutes": "COMMANDLINE"}, True, {"time_budget_minutes": None}
    ) == {"time_budget_minutes"}
    assert given_names({"timeout": "DEFAULT"}, False, {"timeout": 5.0}) == frozenset()


def test_a_resume_applies_only_what_the_user_set(tmp_path: Path) -> None:
    start = Settings(root=tmp_path, name="s", topic="q", breadth=2, depth=1)
    config = SessionConfig.from_settings(start, agent="mock", max_iterations=50)
    assert (config.breadth, config.depth, config.max_iterations) == (2, 1, 50)
    assert config.timeout == defaults.DEFAULT_TIMEOUT_SECONDS
    resumed = Settings(
        root=tmp_path,
        name="s",
        timeout=30.0,
        max_iterations=10,
        breadth=5,
        time_budget_minutes=None,
        mock_mode=True,
        given=frozenset({"timeout", "max_iterations", "time_budget_minutes"}),
    )
    assert config.fixed_changes(resumed) == []  # breadth was not set by the user
    assert config.apply(resumed) == ["--timeout 30.0 (was 1200.0)"]
    assert config.max_iterations == 50  # never lowered
    changed = resumed.model_copy(update={"given": frozenset({"breadth"})})
    assert config.fixed_changes(changed) == ["--breadth (it has 2)"]


def test_the_service_options_and_the_iteration_floor() -> None:
    assert request_values({"time": "90", "breadth": 2, "max_queries": 4}) == {
        "time_budget_minutes": "90",
        "breadth": 2,
        "searches": 4,
    }
    assert request_values({"max_execution_time_s": 90}) == {"time_budget_minutes": "1.5"}
    assert request_values({"max_execution_time_s": 90, "time": 1.5}) == {
        "time_budget_minutes": "1.5"
    }
    with pytest.raises(ValueError, match="^time and max_execution_time_s give different"):
        request_values({"max_execution_time_s": 90, "time": "unlimited"})
    assert iteration_floor_note({"max_iterations": 6, "breadth": 1, "depth": 1}) is None
    note = iteration_floor_note({"max_iterations": 5, "breadth": 1, "depth": 1})
    assert note is not None and "floor" in note and "raises it to 6" in note
