"""The rules extractor's wider grammar (extract_rules_wide), its sentence
split, clauses and dates: pure functions, no stack."""

from __future__ import annotations

import asyncio
import time

from engram_dreamer.extract_rules import SENTENCE, RulesExtractor, RulesGrammar, extract_sentence
from engram_dreamer.extract_rules_wide import FIRST, WIDE
from engram_dreamer.extractor import EntryText, anchored

WIDE_GRAMMAR = RulesGrammar.WIDE


def kind_of(sentence: str, grammar: RulesGrammar = WIDE_GRAMMAR) -> str | None:
    found = extract_sentence("e1", sentence, grammar)
    return found.kind if found else None


def test_wider_grammar_reads_other_phrasings():
    # Phrasings written for this test, not taken from the labelled entries.
    cases = {
        "Sam prefers tabs over spaces.": "PREFERENCE",
        "I'd rather you squash before merging.": "PREFERENCE",
        "For release notes the user likes short bullet lists.": "PREFERENCE",
        "The architecture review agreed on event sourcing for the ledger.": "DECISION",
        "We'll use Caddy as the reverse proxy.": "DECISION",
        "Make sure to run the migrations before deploying.": "RULE",
        "Deploys to prod require a change ticket.": "RULE",
        "Policy from the lead: no merges to main during the freeze.": "RULE",
        "The runbook for the payments-service is in Confluence under Ops.": "REFERENCE",
        "Terraform state is kept in the S3 bucket acme-state.": "REFERENCE",
        "The worker pool size is 16.": "STATE",
        "Our staging cluster is currently on Kubernetes 1.29.": "STATE",
        "The importer is not idempotent.": "RESIDUAL",
        "The backup job has never been restored in a test.": "RESIDUAL",
        "The mobile-app has no crash reporting.": "RESIDUAL",
        "Yesterday the payments-service went down for 20 minutes.": "EVENT",
        "We rolled back the 4.2 release last Friday.": "EVENT",
        "On 15 January 2025 we moved the auth-service to Node 20.": "EVENT",
    }
    for sentence, kind in cases.items():
        assert kind_of(sentence) == kind, sentence
    for chatter in ("No worries, I can take it from here.", "The user wants to know when.",
                    "The user asked about the weekend schedule.", "I want to try again.",
                    "Don't edit the vendored files by hand.", "Caroline adopted a rescue dog."):
        assert kind_of(chatter) in (None, "RULE"), chatter
    named = extract_sentence("e1", "Sam prefers tabs over spaces.", WIDE_GRAMMAR)
    assert named is not None and named.entity == "sam"


def test_the_base_grammar_is_the_default_and_leaves_the_wide_phrasings_out():
    assert kind_of("We'll use Caddy as the reverse proxy.", RulesGrammar.BASE) is None
    assert RulesExtractor().grammar is RulesGrammar.BASE


def test_dates_that_are_not_dates_and_as_of_states():
    assert extract_sentence("e1", "On 2025-13-45 the payments DB failed over.") is None
    state = extract_sentence("e1", "As of 2024-07-01 the staging cluster is running k8s 1.28.",
                             WIDE_GRAMMAR)
    assert state is not None and state.kind == "STATE" and state.valid_from == "2024-07-01"
    slashed = extract_sentence("e1", "The v1 API was turned off 30/11/2024.")
    assert slashed is not None and slashed.valid_from == "2024-11-30"
    ambiguous = extract_sentence("e1", "The v1 API was turned off 04/05/2024.")
    assert ambiguous is not None and ambiguous.kind == "EVENT" and ambiguous.valid_from is None


def test_sentences_split_past_version_numbers_and_clauses_yield_each_kind():
    text = ("The worker is written in Python 3.11. Its notes are at notes/worker.txt. "
            "We went with Argo CD for deploys; the config repo is github.com/acme/deploy.")
    found = asyncio.run(RulesExtractor(WIDE_GRAMMAR).extract([EntryText("e1", text)]))
    assert [c.kind for c in found] == ["STATE", "REFERENCE", "DECISION", "REFERENCE"]
    assert all(anchored(c.quote, text) for c in found)
    assert found[-1].value == "github.com/acme/deploy"


def test_wider_grammar_costs_linear_time():
    crafted = ["word " * 8000, "the docs is kept in " * 2000, "risk: " * 7000,
               "has no " * 6000, "doesn't " * 5000, "x prefers " * 4000, "we decided " * 4000,
               "walked " * 6000, "1 " * 20000, "x's " * 10000, ("x" + " " * 10000) * 4,
               "will rather " * 4000, "the user " * 4000, "no a to " * 5000, "a.b/ " * 8000,
               "x is X-1 " * 4000, "per x, " * 6000, "a." * 20000, "ab:" * 13000]
    started = time.perf_counter()
    for text in crafted:
        for _, pattern in (*FIRST, *WIDE):
            pattern.match(text)
        list(SENTENCE.finditer(text))
    # A quadratic run over any of these 40,000-character texts alone takes seconds.
    assert time.perf_counter() - started < 2.0
