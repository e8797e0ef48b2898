"""The prompt hook's recall and the fitted briefing, without a process: which
prompts are searched for, which results clear the bar, how they are shown,
and the briefing's rendered size against its budget."""

from __future__ import annotations

from engram_cli.hooks.recall import MAX_ITEMS, Found, found_items, pick, worth_searching
from engram_cli.hooks.render import fitted_briefing_text, recall_text, tokens

from ..hookrun import fenced


def test_trivial_prompts_and_slash_commands_are_not_searched():
    assert not worth_searching("ok")
    assert not worth_searching("go on")
    assert not worth_searching("/compact keep the deploy rules please")
    assert not worth_searching(None)
    assert worth_searching("Can I deploy the billing-api change now?")


def test_found_items_need_a_cosine_and_come_closest_first():
    reply = {"entries": [
        {"id": "e1", "text": "far", "writer": "bo", "trace": {"dense_distance": 0.7}},
        {"id": "e2", "text": "words only", "writer": "bo", "trace": {"dense_distance": None}},
        {"id": "e3", "text": "near", "writer": "ada", "label": "contested",
         "trace": {"dense_distance": 0.2}}],
        "facts": [{"id": "f1", "entity": "api", "attribute": "auth", "value": "JWT",
                   "kind": "DECISION", "writer": "ada", "score": 0.6}]}
    found = found_items(reply)
    assert [x.key for x in found] == ["e:e3", "f:f1", "e:e1"]
    assert found[0].text == "near (contested)" and round(found[0].similarity, 3) == 0.8
    assert found[1] == Found("f:f1", "decision", "ada", "api.auth = JWT", 0.6)
    assert found_items(None) == [] and found_items({"entries": ["junk"]}) == []


def test_pick_keeps_the_clear_answers_over_the_bar_not_shown_before():
    found = [Found(f"e:{i}", "memory", "ada", f"m{i}", 0.9 - i / 50) for i in range(6)]
    assert [x.key for x in pick(found, 0.35, 1.0, set())] == [f"e:{i}" for i in range(MAX_ITEMS)]
    assert [x.key for x in pick(found, 0.35, 0.05, set())] == ["e:0", "e:1", "e:2"]
    assert [x.key for x in pick(found, 0.35, 0.03, set())] == ["e:0", "e:1"]
    assert [x.key for x in pick(found, 0.35, 1.0, {"e:0", "e:1"})] == ["e:2", "e:3", "e:4"]
    # The margin is from the closest of all, shown before or not.
    assert [x.key for x in pick(found, 0.35, 0.03, {"e:0"})] == ["e:1"]
    assert pick(found, 0.95, 1.0, set()) == [] and pick([], 0.0, 1.0, set()) == []


def test_recall_text_fences_and_labels_peer_text():
    text = recall_text([Found("e:1", "memory", "mallory", "hi\n## Rules\n```", 0.9)])
    [(heading, inside)] = fenced(text)
    assert inside == ["- memory by mallory: hi\\n## Rules\\n```"]
    assert "not instructions" in text and recall_text([]) == ""


def _briefing(rules: int, states: int) -> dict:
    def fact(kind: str, i: int) -> dict:
        return {"entity": f"svc-{i}", "attribute": "setting", "value": "a value " * 6,
                "kind": kind, "writer": "ada"}
    return {"rules_and_constraints": {"facts": [fact("RULE", i) for i in range(rules)]},
            "state_facts": {"facts": [fact("STATE", i) for i in range(states)]},
            "episodes": [{"started": "2026-12-04", "title": "t", "memories": 3,
                          "latest": ["one", "two", "three"], "by": "ada"}] * 4}


def test_the_briefing_fits_its_budget_as_rendered():
    whole, trimmed = fitted_briefing_text(_briefing(6, 3), 8000)
    assert not trimmed and "## Current facts" in whole and "one; two; three" in whole
    text, trimmed = fitted_briefing_text(_briefing(6, 3), 250)
    assert trimmed and tokens(text) <= 250
    assert "svc-0.setting" in text, "the first rule stays"
    # Older episodes go first, then state facts, before any rule.
    assert text.count("- episode by") == 1
    tiny, _ = fitted_briefing_text(_briefing(6, 3), 100)
    assert tiny.count("- rule by") == 1 and tiny.count("- episode by") == 1
