"""The tools' parameters, generated from the service's request models, which are generated
from the option table: `start_research` takes the question and every option a POST /run
takes, under the same names, with the same help and bounds."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ValidationError, WithJsonSchema


def option_parameters(model: type[BaseModel], skip: tuple[str, ...]) -> list[inspect.Parameter]:
    """One optional keyword parameter per field of `model` (but `skip`), with the field's
    JSON schema (type, bounds, choices, help) as it is. The tool checks the values with
    `model` itself, so a bad one gets the service's one-line message."""
    properties = property_schemas(model)
    parameters = []
    for name in model.model_fields:
        if name in skip:
            continue
        annotation: Any = Annotated[Any, WithJsonSchema(properties[name])]
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
            )
        )
    return parameters


def property_schemas(model: type[BaseModel]) -> dict[str, dict[str, Any]]:
    """Each field's JSON schema, with its references to shared definitions inlined."""
    schema = model.model_json_schema()
    definitions = schema.get("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return inline(definitions[ref.removeprefix("#/$defs/")])
            return {key: inline(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(item) for item in node]
        return node

    return {name: inline(value) for name, value in schema["properties"].items()}


def with_signature(
    function: Callable[..., Any], parameters: list[inspect.Parameter]
) -> Callable[..., Any]:
    """`function` (which takes **options) presenting `parameters` as its signature: the SDK
    builds the tool's input schema from it."""
    signature = inspect.signature(function, eval_str=True)
    own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    function.__signature__ = signature.replace(parameters=[*own, *parameters])  # type: ignore[attr-defined]
    return function


def unknown_arguments(params: Mapping[str, Any] | None, known: set[str]) -> list[str]:
    """The arguments of a tools/call that the tool does not take (the SDK drops them)."""
    arguments = (params or {}).get("arguments") or {}
    return sorted(key for key in arguments if key not in known)


def first_problem(exc: ValidationError, rename: Mapping[str, str] | None = None) -> str:
    """A request model's validation error as one line naming the field, as the service's
    422 does."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    where = (rename or {}).get(where, where)
    return f"{where}: {first['msg']}" if where else str(first["msg"])
