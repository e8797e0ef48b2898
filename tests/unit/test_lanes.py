"""The conflict pipeline's pure decisions (the e2e tests cover the wiring)."""

from __future__ import annotations

from pathlib import Path

from engram_cortex.lanes import Existing, Incoming, decide, same_value
from engram_cortex.normalise import attribute_name, entity_name, numbers, value_form

OLD = [Existing("f1", "MySQL 8", "active", "agent")]


def incoming(value: str, kind: str = "STATE", origin: str = "agent", quote: str = "",
             replaces: bool = False) -> Incoming:
    return Incoming(value, kind, origin, quote, replaces, "")


def test_names_and_values_normalise():
    assert entity_name("  Billing API ") == "billing-api"
    assert attribute_name("Deploy-Tool") == "deploy_tool"
    assert value_form("The PostgreSQL 16.") == value_form("postgresql  16") == "postgresql 16"
    assert value_form("docs/adr/") == "docs/adr"


def test_numbers_compare_dates_and_number_words():
    assert numbers("2025-05-02") == numbers("went down on May 2, 2025")
    assert numbers("one hundred characters") == numbers("100 chars")
    assert numbers("9:30 standups") != numbers("10:00 standups")
    assert numbers("coverage may not drop below 80%") == {"80"}, "'may' is not a month here"


def test_same_value_rules():
    assert same_value("PostgreSQL 16", "postgresql 16.", None, 0.86) == "restatement"
    assert same_value("two spaces", "2 spaces", None, 0.86) == "paraphrase"
    assert same_value("tabs for indentation", "indent with tabs", None, 0.86) == "paraphrase"
    assert same_value("deployed on 2025-04-01", "deployed on 2025-04-15", 0.99, 0.86) is None
    assert same_value("staging-db-01.internal", "staging-db-02.internal", 0.99, 0.86) is None
    assert same_value("auth enabled", "auth not enabled", 0.95, 0.86) is None
    assert same_value("GitHub Actions", "GitHub Actions workflows", 0.9, 0.86) == "paraphrase"
    assert same_value("Tuesdays", "Fridays", 0.5, 0.86) is None


def test_lanes_in_order():
    assert decide(incoming("x"), [], {}, 0.86).action == "insert"
    assert decide(incoming("mysql 8"), OLD, {}, 0.86).action == "confirm"
    rule = decide(incoming("y", kind="RULE", replaces=True), OLD, {}, 0.86)
    assert (rule.action, rule.lane) == ("contest", "rule")
    weaker = decide(incoming("Postgres", origin="assistant", replaces=True),
                    [Existing("f1", "MySQL 8", "active", "user")], {}, 0.86)
    assert (weaker.action, weaker.lane) == ("park", "origin_tier")
    moved = decide(incoming("Postgres", quote="we migrated to Postgres"), OLD, {}, 0.86)
    assert (moved.action, moved.lane) == ("supersede", "explicit")
    plain = decide(incoming("Postgres", quote="it runs on Postgres"), OLD, {"f1": 0.2}, 0.86)
    assert (plain.action, plain.lane) == ("contest", "contested")
    reworded_change = decide(incoming("MySQL 8 cluster", quote="we switched to MySQL 8 cluster"),
                             OLD, {"f1": 0.95}, 0.86)
    assert reworded_change.action == "supersede", "a stated change is never a paraphrase"


def test_paths_are_values_not_host_lookups(tmp_path: Path):
    """Whether a path exists on the cortex host decides nothing."""
    real = tmp_path / "config.yaml"
    real.write_text("x")
    missing = str(tmp_path / "old.yaml")
    for new, old in ((str(real), missing), (missing, str(real))):
        got = decide(incoming(new), [Existing("f1", old, "active", "agent")], {}, 0.86)
        assert (got.action, got.lane) == ("contest", "contested")


def test_weekdays_are_values():
    assert numbers("deploys happen on Tuesdays") != numbers("deploys happen on Thursdays")
    assert numbers("retros on Fridays") == numbers("every Friday")
