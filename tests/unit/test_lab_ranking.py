"""The LoCoMo lab ranks thousands of questions per variant, so it keeps a
vectorised form of the service's fusion (evals/ablate/locomo.py: `rrf`,
`lifts`); this test holds it equal to engram_kit.ranking, the code memory
runs, on random rankings, so a lab row measures what the service does."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest

from engram_kit.ranking import Channel, FusionWeights, fuse
from evals.ablate.locomo import lifts, rrf


def _case(rng: random.Random) -> tuple[Any, list[int], list[int]]:
    n = rng.randint(3, 60)
    sessions = sorted(rng.randint(0, max(1, n // 6)) for _ in range(n))
    ses = np.array(sessions)
    same_prev = np.r_[False, ses[1:] == ses[:-1]]
    conv = SimpleNamespace(same_prev=same_prev, same_next=np.r_[same_prev[1:], False],
                           session_ix=np.unique(ses, return_inverse=True)[1])
    lexical = rng.sample(range(n), rng.randint(0, min(n, 20)))
    dense = rng.sample(range(n), rng.randint(1, min(n, 20)))
    return conv, lexical, dense


@pytest.mark.parametrize("seed", range(40))
def test_the_lab_fuses_and_lifts_as_the_service_does(seed: int):
    rng = random.Random(seed)
    conv, lexical, dense = _case(rng)
    k, w_lex = rng.choice([5, 10, 60]), rng.choice([1.0, 1.5, 2.0])
    nb, ep = rng.choice([0.0, 0.3]), rng.choice([0.0, 0.3])
    n = len(conv.same_prev)
    lab = lifts(cast(Any, conv), rrf(n, [(np.array(lexical, dtype=int), w_lex),
                                         (np.array(dense, dtype=int), 1.0)], k), nb, ep)
    previous = {i: i - 1 for i in range(1, n) if conv.same_prev[i]}
    episode_of = {i: str(conv.session_ix[i]) for i in range(n)}
    weights = FusionWeights(rrf_k=k, channels={Channel.LEXICAL: w_lex}, context=nb, episode=ep)
    kit = {f.key: f.score for f in fuse({Channel.LEXICAL: lexical, Channel.DENSE: dense},
                                        weights, previous, episode_of)}
    assert set(np.flatnonzero(lab > 0)) == set(kit)
    assert np.allclose([lab[i] for i in sorted(kit)], [kit[i] for i in sorted(kit)])
