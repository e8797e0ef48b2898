"""The README's recall block: both halves and all ten, held to the targets."""

from __future__ import annotations

import sys

from ..paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "evals"))

from report_locomo import README_BEGIN, README_END, readme_block, with_block  # noqa: E402


def _split(r10: float, r5: float, hop: float, tokens: float, convs: list[str]) -> dict:
    return {"n": 10, "conversations": convs, "context_tokens_at_10": tokens,
            "engram": {"turn": {"r@10": r10, "r@5": r5},
                       "per_category": {"1": {"name": "multi-hop", "turn": {"r@10": hop}}}}}


def _artefact() -> dict:
    held = _split(0.79, 0.69, 0.56, 300.0, ["conv-44"])
    tune = _split(0.70, 0.60, 0.40, 310.0, ["conv-26"])
    every = _split(0.75, 0.66, 0.50, 2100.0, [])
    return {"n_questions": 20, "context_tokens_at_10": every["context_tokens_at_10"],
            "engram": every["engram"], "split": "tuned on 1-5",
            "by_split": {"held_out": held, "tune": tune},
            "machine": {"loadavg_1m_at_start": 0.5, "cpu_count": 2}}


def test_each_target_is_marked_met_or_not_for_the_held_out_half_and_all_ten():
    text = "\n".join(readme_block(_artefact()))
    held, every = text.split("Held out: ")[1].split("All ten: ")
    assert "turn R@10 0.790 (target ≥ 0.780: met)" in held
    assert "turn R@5 0.690 (target ≥ 0.700: **not met**)" in held
    assert "multi-hop turn R@10 0.560 (target ≥ 0.550: met)" in held
    assert "context tokens at k=10 2 100 (target ≤ 2 000: **not met**)" in every
    assert "| held out (conv-44) | 10 | 0.790 | 0.690 | 0.560 | 300 |" in text


def test_the_block_replaces_only_what_its_markers_hold():
    readme = f"intro\n{README_BEGIN}\nold\n{README_END}\nrest\n"
    text = with_block(readme, readme_block(_artefact()))
    assert text.startswith("intro\n") and text.endswith("rest\n") and "old" not in text
    assert with_block("no markers\n", ["x"]) == "no markers\n"
