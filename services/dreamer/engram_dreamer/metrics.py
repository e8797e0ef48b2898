"""Dream pass metrics (the deploy/ dashboard's Dreamer row shows them)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

RUNS = Counter("engram_dream_runs_total", "Dream passes by final status and trigger",
               ["status", "trigger"])
RUN_SECONDS = Histogram("engram_dream_run_seconds", "Duration of a committed dream pass",
                        buckets=(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900))
FACTS = Counter("engram_dream_facts_total", "Facts a pass wrote, by conflict lane action",
                ["action"])
DROPPED = Counter("engram_dream_dropped_total",
                  "Candidates a pass did not write: unanchored quote, quarantined entry",
                  ["reason"])
PROPOSALS = Counter("engram_dream_proposals_total", "Proposals a pass made, by kind", ["kind"])
ARCHIVED = Counter("engram_dream_archived_total", "Entries archived by decay")
LESSONS_MERGED = Counter("engram_dream_lessons_merged_total",
                         "Near-identical lessons merged into another")
