from __future__ import annotations

from pydantic import Field, SecretStr

from engram_kit.settings import DatabaseSettings, NatsSettings, ServiceSettings

from .extract_rules import RulesGrammar


class DreamerSettings(ServiceSettings, DatabaseSettings, NatsSettings):
    service_name: str = "dreamer"
    grpc_port: int = 8754
    http_port: int = 8764
    consumer_durable: str = "dreamer"
    consumer_filter: str = "engram.events.>"  # memory and cortex events
    consumer_max_deliver: int = 5        # then the message goes to the dead-letter subject
    dead_letter_subject: str = "engram.deadletter.dreamer"
    memory_addr: str = "127.0.0.1:8751"
    cortex_addr: str = "127.0.0.1:8752"
    # rules: the deterministic extractor (default, no model); openai: an
    # OpenAI-compatible chat endpoint; none: no consolidation, said plainly.
    extractor: str = "rules"
    # rules: base (the default) or wide (more facts found, more of them wrong:
    # docs/dreaming.md has the held-out figures of each).
    rules_grammar: RulesGrammar = RulesGrammar.BASE
    llm_base_url: str = ""
    llm_model: str = ""
    llm_api_key: SecretStr = SecretStr("")
    llm_timeout_s: float = 60.0
    llm_retries: int = 2
    llm_batch: int = 8                   # entries per extraction call
    # Pass triggers (0 disables one): backlog of pending entries, idle time
    # since the newest pending entry, a fixed schedule.
    trigger_backlog: int = 50
    trigger_idle_s: float = 900.0
    trigger_schedule_s: float = 3600.0
    scheduler_interval_s: float = 5.0
    pass_max_entries: int = 200
    # Decay: a pass archives live entries nobody has used (read, served by a
    # search, reinforced, rescued) for this many days; 0 turns decay off.
    decay_unused_days: float = 90.0
    decay_max_per_pass: int = 200
    call_timeout_s: float = 15.0
    # Entry consolidation: each pass asks memory for clusters of live entries
    # at least this similar (cosine) and proposes each as a merge_entries
    # review item (a reviewer approves; the dreamer never merges by itself).
    propose_entry_merges: bool = True
    entry_merge_min_similarity: float = Field(default=0.92, ge=0.5, le=1)
