"""Argument types shared by the tool stubs: the constraints the services
enforce, declared once so that the MCP input schema, the REST validation
and the OpenAPI document all carry them (JSON-schema patterns: anchored,
no Python-only syntax)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


def uuid_arg(description: str) -> object:
    """An id argument: a UUID, as every service parses ids."""
    return Field(description=description, pattern=UUID_PATTERN, max_length=36)


Uuid = Annotated[str, Field(pattern=UUID_PATTERN, max_length=36)]
