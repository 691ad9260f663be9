"""ARCHITECTURE.md's "One place for each decision" table is true: every module, package,
template, flag and name a row gives exists, and each name is where its row says.

The table is read from ARCHITECTURE.md, never copied here. In a row's `where` cell, each
backticked reference is one of: a module (`core/options.py`, from `research/`), a package
(`prompts/`), a template (`templates/*.md`, from the repository), a flag of `research`
(`--judge`), a route of the service (`POST /run`), or a name (`Settings.given`,
`ready_topics`) that one of the row's own modules defines. Anything else in backticks
fails the test: the table says where, in checkable terms.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import typer

from research.cli import app

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "research"
ARCHITECTURE = REPO / "ARCHITECTURE.md"
NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
ROUTE = re.compile(r"^(GET|POST|PUT|DELETE) /\S*$")


def service_code() -> list[str]:
    """The service's modules, where its routes are declared (`@router.post("/run", ...)`)."""
    return [path.read_text(encoding="utf-8") for path in (PACKAGE / "service").glob("*.py")]


def decision_rows(text: str) -> list[tuple[str, str]]:
    """The (decision, where) rows of the `| decision | where |` table."""
    lines = [line.strip() for line in text.splitlines()]
    header = next(
        i for i, line in enumerate(lines) if re.match(r"\|\s*decision\s*\|\s*where", line)
    )
    rows = []
    for line in lines[header + 2 :]:
        if not line.startswith("|"):
            break
        decision, where = (cell.strip() for cell in line.strip("|").split("|", 1))
        rows.append((decision, where.rstrip("|").strip()))
    return rows


def module_name(reference: str) -> str | None:
    """`core/options.py` → research.core.options; None for what is not a module of ours."""
    if not reference.endswith(".py") or not (PACKAGE / reference).is_file():
        return None
    return "research." + reference.removesuffix(".py").replace("/", ".")


def defines(module: str, name: str) -> bool:
    """Whether `module` defines `name` (dotted: an attribute, or a pydantic model's field)."""
    target: object = importlib.import_module(module)
    for part in name.split("."):
        fields = getattr(target, "model_fields", None)
        if hasattr(target, part):
            target = getattr(target, part)
        elif isinstance(fields, dict) and part in fields:
            return True
        else:
            return False
    return True


def problems(where: str) -> list[str]:
    """What in one row's `where` cell does not exist, or is not where the row says."""
    references = re.findall(r"`([^`]+)`", where)
    modules = [m for m in map(module_name, references) if m is not None]
    command = typer.main.get_command(app)
    flags = {flag for param in command.params for flag in (*param.opts, *param.secondary_opts)}
    found: list[str] = []
    for reference in references:
        if reference.endswith(".py"):
            if module_name(reference) is None:
                found.append(f"no module research/{reference}")
        elif reference.endswith("/"):
            if not (PACKAGE / reference).is_dir():
                found.append(f"no package research/{reference}")
        elif reference.endswith(".md"):
            if not list(REPO.glob(reference)):
                found.append(f"no template {reference}")
        elif ROUTE.match(reference):
            method, path = reference.split(" ", 1)
            if not any(f'.{method.lower()}("{path}"' in code for code in service_code()):
                found.append(f"no route {reference}")
        elif reference.startswith("--"):
            if reference not in flags:
                found.append(f"no option {reference}")
        elif NAME.match(reference):
            if not any(defines(module, reference) for module in modules):
                found.append(f"{reference} is in none of {modules}")
        else:
            found.append(f"{reference!r} is not a module, package, template, flag or name")
    if not modules and not any(r.endswith("/") for r in references):
        found.append("names no module")
    return found


def test_every_row_of_the_decisions_table_names_what_exists() -> None:
    rows = decision_rows(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(rows) >= 10
    wrong = {decision: found for decision, where in rows if (found := problems(where))}
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ("`core/nothing.py`", "no module"),
        ("`engine/scheduler.py` (`next_topic`)", "next_topic is in none"),
        ("`model/plan.py` (`Plan.next_topic`)", "Plan.next_topic is in none"),
        ("`core/settings.py` (`Settings.nothing`)", "Settings.nothing is in none"),
        ("`--no-such-flag` in `cli.py`", "no option"),
        ("`templates/nothing.md`", "no template"),
        ("`POST /runs/{name}/nothing` in `service/routes.py`", "no route"),
        ("`Ok[T] | Failed` in `engine/outcome.py`", "is not a module"),
        ("the engine", "names no module"),
    ],
)
def test_the_check_finds_what_is_not_there(where: str, says: str) -> None:
    assert any(says in problem for problem in problems(where)), problems(where)


def test_a_true_row_passes() -> None:
    where = "`core/settings.py` (`Settings.given`), `engine/scheduler.py` (`ready_topics`)"
    assert problems(where) == []
