"""The rules extractor's grammar and the pass triggers (pure functions; the
e2e tests cover passes through the stack)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic import SecretStr

from engram_dreamer.extract_rules import extract_sentence
from engram_dreamer.extractor import anchored
from engram_dreamer.scheduler import due
from engram_dreamer.settings import DreamerSettings


def kind_of(sentence: str) -> str | None:
    found = extract_sentence("e1", sentence)
    return found.kind if found else None


def test_each_kind_and_its_quote():
    cases = {
        "billing-api uses PostgreSQL 16.": "STATE",
        "Never force-push to main.": "RULE",
        "All migrations must be backward compatible.": "RULE",
        "We decided to use Redis for session storage.": "DECISION",
        "I prefer small PRs under 400 lines.": "PREFERENCE",
        "The runbook is at https://wiki.example.com/runbooks/billing.": "REFERENCE",
        "Known risk: the Redis cache has no backups.": "RESIDUAL",
        "On 2025-03-04 the payments DB failed over.": "EVENT",
        "On March 4, 2025 the payments DB failed over.": "EVENT",
    }
    for sentence, kind in cases.items():
        found = extract_sentence("e1", sentence)
        assert found is not None and found.kind == kind, sentence
        assert anchored(found.quote, f"Earlier text. {sentence} Later text."), sentence
    event = extract_sentence("e1", "On March 4, 2025 the payments DB failed over.")
    assert event is not None and event.valid_from == "2025-03-04"


def test_chatter_yields_nothing():
    for sentence in ("Running the tests now.", "Maybe we should look at Kafka?",
                     "Hi there!", "Should we switch to Bun", "ok", "Thanks, that worked."):
        assert kind_of(sentence) is None, sentence


def test_anchor_hygiene_is_whitespace_tolerant_and_strict_on_words():
    assert anchored("uses  PostgreSQL\n16", "billing-api uses PostgreSQL 16.")
    assert not anchored("uses PostgreSQL 17", "billing-api uses PostgreSQL 16.")
    assert not anchored("", "anything")


def test_pass_triggers():
    s = DreamerSettings(internal_token=SecretStr("x"), database_url=SecretStr("postgresql://x"),
                        trigger_backlog=10, trigger_idle_s=60, trigger_schedule_s=600)
    now = datetime.now(UTC)
    recent, old = now - timedelta(seconds=5), now - timedelta(hours=2)
    assert due(s, 0, old, old, None, now) is None
    assert due(s, 10, recent, recent, None, now) == "backlog"
    assert due(s, 1, old, old, now, now) == "idle"
    assert due(s, 1, old, recent, None, now) == "schedule"
    assert due(s, 1, recent, recent, recent, now) is None
    # Nothing pending: the schedule still runs passes for decay, unless it is off.
    assert due(s, 0, None, None, old, now) == "schedule"
    assert due(s, 0, None, None, recent, now) is None
    off = s.model_copy(update={"decay_unused_days": 0})
    assert due(off, 0, None, None, old, now) is None
