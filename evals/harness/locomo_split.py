"""The one tuning/held-out split of LoCoMo that every LoCoMo artefact reports.

Ranking defaults are tuned on the first five conversations only; a new default
has to win on the other five (the held-out half), which no tuning run looks
at. `bench/locomo.py` and `ablate/locomo.py` both score the three groups below.
"""

from __future__ import annotations

TUNE = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")  # conversations 1-5
HELD_OUT = ("conv-44", "conv-47", "conv-48", "conv-49", "conv-50")  # conversations 6-10
SPLITS = {"tune": TUNE, "held_out": HELD_OUT}
DESCRIPTION = ("tuned on conversations 1-5 (" + ", ".join(TUNE) + "); held out: 6-10 ("
               + ", ".join(HELD_OUT) + ")")


def split_of(sample_id: str) -> str:
    """'tune' or 'held_out' for a LoCoMo conversation id."""
    for name, members in SPLITS.items():
        if sample_id in members:
            return name
    raise ValueError(f"{sample_id} is not a LoCoMo-10 conversation")
