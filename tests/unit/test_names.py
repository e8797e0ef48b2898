"""Names that travel as identities (namespaces, principals, relations, tags)
are matched whole: `$` would let a trailing newline through."""

from __future__ import annotations

import pytest

from engram_cortex.tags import TAG_RE as FACT_TAG_RE
from engram_cortex.vocabulary import NAME_RE as RELATION_RE
from engram_kit.context import NAMESPACE_RE
from engram_kit.principals import NAME_RE as PRINCIPAL_RE
from engram_memory.validation import TAG_RE as ENTRY_TAG_RE


@pytest.mark.parametrize(("pattern", "good"), [
    (NAMESPACE_RE, "team-a"), (PRINCIPAL_RE, "alice"), (RELATION_RE, "depends_on"),
    (FACT_TAG_RE, "infra.db"), (ENTRY_TAG_RE, "infra/db"),
])
def test_a_trailing_newline_is_not_part_of_a_name(pattern, good: str):
    assert pattern.match(good)
    assert not pattern.match(good + "\n")
