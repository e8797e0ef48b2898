"""bench_agent_day's arithmetic (an item found in a line, briefing recall,
prompt-note precision and recall, an episode's exactness) and the README
block and benchmarks section it feeds."""

from __future__ import annotations

import json
import sys

from ..paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "evals"))

from agent_day_score import (  # noqa: E402
    briefing_recall,
    episode_exact,
    items_of,
    precision_recall,
    score_prompt,
)
from report import table  # noqa: E402
from report_agent_day import README_BEGIN, README_END, agent_day, readme_block, with_block  # noqa: E402

NEEDLES = {"rule.deploy": ["billing-api.deploy_rule", "canary"],
           "decision.queue": ["orders-service.queue", "NATS JetStream"],
           "note.oncall": ["Monday at 09:00"]}


def test_an_item_is_found_only_when_all_its_needles_share_a_line():
    context = ("engram memory briefing\n```engram-data\n"
               "- rule by ada: billing-api.deploy_rule = wait for the canary\n"
               "- decision by ada: orders-service.queue = RabbitMQ\n```\n"
               "- episode by ada: NATS JetStream is mentioned elsewhere\n")
    got = briefing_recall(context, NEEDLES, ["RabbitMQ"])
    assert (got["found"], got["expected"], got["recall"]) == (1, 3, 0.333)
    assert got["missed"] == ["decision.queue", "note.oncall"]
    assert got["stale_values_shown"] == ["RabbitMQ"]
    assert got["context_tokens"] == len(context) // 4 + 1
    assert briefing_recall("", NEEDLES, [])["context_tokens"] == 0


def test_prompt_notes_score_lines_surfaced_against_items_expected():
    silent = score_prompt([], ["rule.deploy"], NEEDLES)
    note = score_prompt(items_of("engram: changed\n- decision by bo: orders-service.queue = "
                                 "NATS JetStream\n- board mail by bo: hi\n"),
                        ["decision.queue"], NEEDLES)
    assert (note["surfaced"], note["relevant_surfaced"], note["found"]) == (
        2, 1, ["decision.queue"])
    total = precision_recall([silent, note])
    assert (total["precision"], total["recall"], total["silent_prompts"]) == (0.5, 0.5, 1)
    assert precision_recall([silent])["precision"] is None, "nothing surfaced: no precision"


def test_an_episode_is_exact_only_when_closed_own_and_holding_only_its_writes():
    homes = {"a": "e1", "b": "e1"}
    exact = episode_exact(["a", "b"], homes, ["a", "b"], "ada/s1", "ada/s1", True)
    assert exact["exact"] and (exact["writes"], exact["held"]) == (2, 2)
    extra = episode_exact(["a", "b"], homes, ["a", "b", "x"], "ada/s1", "ada/s1", True)
    assert not extra["exact"] and extra["foreign"] == 1
    split = episode_exact(["a", "b"], {"a": "e1", "b": "e2"}, ["a"], "ada/s1", "ada/s1", True)
    assert not split["exact"] and split["episodes_written"] == 2 and split["missing"] == 1
    assert not episode_exact(["a"], {"a": "e1"}, ["a"], "ada/s1", "ada/s1", False)["exact"]
    assert not episode_exact(["a"], {"a": "e1"}, ["a"], "principal:ada", "ada/s1",
                             True)["exact"]


def _artefact() -> dict:
    episode = episode_exact(["a"], {"a": "e1"}, ["a"], "ada/s", "ada/s", True)
    return {
        "machine": {"cpu_count": 2, "load_average_1m": {"before": 5.0, "after": 6.0}},
        "briefing": {"token_budget": 800, "recall": 0.75, "found": 9, "expected": 12,
                     "missed": ["fact.ci", "fact.pg", "fact.region"],
                     "stale_values_shown": [], "context_chars": 2000, "context_tokens": 501,
                     "reply_at_800": {"rules_and_decisions_served": 4, "of": 6,
                                      "reply_tokens": 470},
                     "wide_budget": {"token_budget": 4000, "recall": 0.833, "found": 10,
                                     "expected": 12}},
        "prompt_notes": {"prompts": 12, "precision": 1.0, "relevant_surfaced": 1,
                         "surfaced": 1, "recall": 0.091, "found": 1, "expected": 11},
        "search_reference": {"top_k": 5, "precision": None, "relevant_surfaced": 0,
                             "surfaced": 0, "recall": 0.0, "found": 0, "expected": 11},
        "changed_fact_note": {"fired": True},
        "episodes": {"main_session_1": episode, "other_session": episode,
                     "main_session_2": {**episode, "exact": False, "foreign": 2,
                                        "held": 3}},
        "mail": {"delivered_to_the_right_agent_only": True, "stop_woke_recipient": True,
                 "in_recipient_prompt_note": False},
        "hooks": {"timeout_s": 10.0, "runs": 20, "failed_open": ["prompt: timed out"]},
        "command": ".venv/bin/python evals/bench_agent_day.py",
    }


def test_readme_block_replaces_only_what_its_markers_hold():
    readme = f"intro\n{README_BEGIN}\nstale-table\n{README_END}\nrest\n"
    text = with_block(readme, readme_block(_artefact(), table))
    assert text.startswith("intro\n") and text.endswith("rest\n") and "stale-table" not in text
    assert "| Session 2's briefing: recall of what session 1 said | 0.75 (9/12) |" in text
    assert "| … size (budget 800 tokens) | 501 tokens (2000 characters / 4) |" in text
    assert "| … live rules and decisions in the JSON reply at that budget | 4 of 6 |" in text
    assert "| … recall at a 4000-token budget | 0.83 (10/12) |" in text
    assert "| Prompt notes over 12 prompts: precision | 1.00 (1/1) |" in text
    assert "| … recall | 0.09 (1/11) |" in text
    assert "| `memory_search` top 5 for the same prompts: precision | – (0/0) |" in text
    assert ("| Episode of session 2 closes holding exactly its writes | **no**: 1 writes, "
            "3 held, 2 foreign, 0 missing |") in text
    assert "| … wakes the recipient's Stop; in its next prompt note | yes; **no** |" in text
    assert "| Hook runs that failed open (timeout 10 s) | 1 of 20 |" in text
    assert "prompt hook time" not in text, "an artefact without the timings has no row"
    assert "Not in the briefing: `fact.ci`, `fact.pg`, `fact.region`." in text
    assert with_block("no markers\n", ["x"]) == "no markers\n"


def test_the_prompt_hook_time_and_bar_rows_come_with_the_artefact():
    d = _artefact()
    d["prompt_notes"] |= {"hook_s_on_a_loaded_machine": {"median": 0.39, "max": 0.61},
                          "recall_off": {"hook_s_on_a_loaded_machine": {"median": 0.28,
                                                                        "max": 0.78}}}
    d["search_reference"]["bar_sweep"] = {"hook_bar": 0.35, "hook_margin": 0.05, "rows": []}
    text = "\n".join(readme_block(d, table))
    assert ("| … prompt hook time, median (max), with / without its search (loaded machine) "
            "| 0.39 s (0.61) / 0.28 s (0.78) |") in text
    assert "| … relevance bar: cosine floor, margin from the closest | 0.35, 0.05 |" in text


def test_the_benchmarks_section_names_its_artefact_and_command():
    lines = agent_day("agent-day-20261204T000000Z.json", _artefact(), table)
    assert lines[0] == "## A scripted agent day"
    assert "`evals/results/agent-day-20261204T000000Z.json`" in lines[2]
    assert "command `.venv/bin/python evals/bench_agent_day.py`" in lines[2]
    assert "fits the markdown it hands the agent to the budget" in lines[-2]
    assert json.dumps(lines)  # plain strings only
