"""bench_peers' arithmetic (the breakdown, the verdicts) and the README
block it feeds."""

from __future__ import annotations

import sys

from ..paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "evals"))

from bench_peers import b2b_namespaces, latency_ratios, verdicts  # noqa: E402
from peers_load import breakdown, quantiles_ms, unique  # noqa: E402
from report import f, table  # noqa: E402
from report_peers import (  # noqa: E402
    B2B_TITLE,
    README_BEGIN,
    README_END,
    peers,
    readme_block,
    with_block,
)


def _hist(family: str, labels: dict[str, str], total: float, count: float) -> dict:
    key = frozenset(labels.items())
    return {(family + "_sum", key): total, (family + "_count", key): count}


def test_breakdown_attributes_a_lone_store_by_difference():
    stage = "engram_rpc_stage_seconds"
    after = {
        **_hist("engram_gateway_tool_latency_seconds", {"tool": "memory_store"}, 0.2, 10),
        **_hist("engram_rpc_latency_seconds", {"service": "memory", "method": "Store"}, 0.18, 10),
        **_hist(stage, {"service": "memory", "method": "Store", "stage": "embed"}, 0.1, 10),
        **_hist(stage, {"service": "memory", "method": "Store", "stage": "transaction"},
                0.05, 10),
        **_hist("engram_rpc_latency_seconds", {"service": "embedder", "method": "Embed"},
                0.09, 10),
        **_hist("engram_embedder_queue_wait_seconds", {"priority": "interactive"}, 0.001, 10),
        **_hist("engram_embedder_encode_seconds", {}, 0.08, 10),
    }
    got = breakdown("store", {}, after, n_ops=10, client_mean_ms=25.0)
    assert got["spans"]["memory_embed_call"] == {"ms_per_call": 10.0, "runs_per_call": 1.0}
    d = got["derived_ms"]
    assert d["mcp_http_layer"] == 5.0  # 25 client - 20 gateway tool
    assert d["gateway_to_memory_hop_and_gateway_work"] == 2.0
    assert d["memory_own_work"] == 3.0  # 18 - 10 embed - 5 transaction
    assert d["memory_to_embedder_hops"] == 1.0
    assert d["embedder_own_work"] == 0.9


def test_breakdown_of_a_search_takes_the_gateways_encode_out_of_its_hop():
    stage = "engram_rpc_stage_seconds"
    after = {
        **_hist("engram_gateway_tool_latency_seconds", {"tool": "memory_search"}, 0.2, 10),
        **_hist(stage, {"service": "gateway", "method": "memory_search", "stage": "embed"},
                0.08, 10),
        **_hist("engram_rpc_latency_seconds", {"service": "memory", "method": "Search"},
                0.1, 10),
    }
    got = breakdown("search", {}, after, n_ops=10, client_mean_ms=25.0)
    assert got["spans"]["gateway_embed_call"] == {"ms_per_call": 8.0, "runs_per_call": 1.0}
    assert got["derived_ms"]["gateway_to_memory_hop_and_gateway_work"] == 2.0  # 20 - 8 - 10


def test_each_timed_text_is_its_own_so_no_cache_answers():
    assert unique("Caroline: hi", 3) != unique("Caroline: hi", 4)


def _artefact() -> dict:
    seq = {"store": quantiles_ms([0.02, 0.03]), "search": quantiles_ms([0.02, 0.04])}
    peer_seq = {"store": quantiles_ms([0.01, 0.02]), "search": quantiles_ms([0.01, 0.02])}
    conc = {"engram": {"ops_per_s": 60.0, "p99_ms": 300.0, "rounds": [{"clients": 8}]},
            "peer": {"ops_per_s": 50.0, "p99_ms": 400.0, "rounds": [{"clients": 8}]}}
    rec = {n: {"recall": {"turn": {"r@10": r}, "per_category": {
                   "1": {"name": "multi-hop", "turn": {"r@10": hop}},
                   "4": {"name": "single-hop", "turn": {"r@10": r}}}},
               "store": s["store"], "search": s["search"]}
           for n, r, hop, s in (("engram", 0.7, 0.3, seq), ("peer", 0.5, 0.4, peer_seq))}
    lat = {"sequential": {"engram": seq, "peer": peer_seq}, "concurrent": conc}
    return {"peer": {"package": "pseudolife-mcp[lite]==0.19.0"},
            "dataset": {"conversations": ["conv-26"], "questions": 152},
            "machine": {"cpu_count": 2, "loadavg_1m_at_start": 1.0, "loadavg_1m_at_end": 2.0},
            "recall_phase": rec, **lat, **verdicts(rec, lat)}


def test_verdicts_hold_engram_to_the_issue_targets():
    d = _artefact()
    r, met = d["ratios_engram_over_peer"], d["targets_met"]
    assert r["concurrent_ops_per_s"] == 1.2 and met["concurrent_throughput_ge_peer"]
    assert met["concurrent_p99_le_peer"]
    assert r["sequential_store_p50_ms"] == 1.67 and not met["sequential_store_p50_le_1.5x_peer"]
    # ahead overall but behind on multi-hop: not ahead on every category
    assert r["recall_turn_r10_category_4"] == 1.4 and r["recall_turn_r10_category_1"] == 0.75
    assert not met["recall_higher_every_category"]


def test_readme_block_replaces_only_what_its_markers_hold():
    readme = f"intro\n{README_BEGIN}\nold\n{README_END}\nrest\n"
    text = with_block(readme, readme_block(_artefact(), f, table))
    assert text.startswith("intro\n") and text.endswith("rest\n") and "old" not in text
    assert "| 8 clients, half stores: ops/s | 60.0 | 50.0 | ×1.2 |" in text
    assert "| … multi-hop | 0.300 | 0.400 | ×0.75 |" in text
    assert "LoCoMo conversations: 1 (152 questions)" in text
    assert "sequential_store_p50_le_1.5x_peer **not met**" in text
    assert with_block("no markers\n", ["x"]) == "no markers\n"


def _with_back_to_back() -> dict:
    d = _artefact()
    seq = {"store": quantiles_ms([0.05, 0.06]), "search": quantiles_ms([0.05, 0.06])}
    peer_seq = {"store": quantiles_ms([0.02, 0.02]), "search": quantiles_ms([0.03, 0.03])}
    conc = {"engram": {"ops_per_s": 30.0, "p99_ms": 600.0, "rounds": [{"clients": 8}]},
            "peer": {"ops_per_s": 40.0, "p99_ms": 650.0, "rounds": [{"clients": 8}]}}
    d["peer"]["package"] = "pseudolife-mcp[lite]==0.19.0"
    d["settings"] = {"clients": 8}
    d["dataset"]["turns"] = 400
    d["back_to_back"] = {"sequential": {"engram": seq, "peer": peer_seq}, "concurrent": conc,
                         "ratios_engram_over_peer": latency_ratios(
                             {"engram": seq, "peer": peer_seq}, conc)}
    return d


def test_both_regimes_are_reported_and_old_artefacts_still_render():
    d = _with_back_to_back()
    assert d["back_to_back"]["ratios_engram_over_peer"]["concurrent_ops_per_s"] == 0.75
    for lines in (readme_block(d, f, table), peers("peers-x.json", d, f, table)):
        text = "\n".join(lines)
        assert text.count("| 8 clients, half stores: ops/s |") == 2
        assert "| 8 clients, half stores: ops/s | 30.0 | 40.0 | ×0.75 |" in text
        assert B2B_TITLE in text
    assert B2B_TITLE not in "\n".join(readme_block(_artefact(), f, table))


def test_the_back_to_back_namespaces_are_granted():
    class Sizes:
        rounds, clients = 2, 3
    names = b2b_namespaces(Sizes())  # type: ignore[arg-type]
    assert "peers-b2b" in names and "peers-b2b-warmup" in names
    assert "peers-b2b-load-r1-c2" in names and len(names) == 2 + 2 * 3
