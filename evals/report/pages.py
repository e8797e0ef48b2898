"""Write docs/benchmarks.md (and its plots under docs/img/) from evals/results/,
the recall, reliability, peers and agent-day tables in README.md and the
capacity model in docs/scaling.md (each between its markers).

Only the newest artefact of each kind feeds the page, so a number on it never
outlives its artefact; artefacts with a variant suffix (`-bm25-b03`) are
shown only where they are compared with the newest run of their kind.

    .venv/bin/python -m evals.report.pages            # rewrite the page and the plots
    .venv/bin/python -m evals.report.pages --check    # exit 1 if the page is stale
    .venv/bin/python -m evals.report.pages --no-plots # the page only
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evals.report.agent_day import agent_day
from evals.report.agent_day import readme_block as agent_day_block
from evals.report.agent_day import with_block as with_agent_day_block
from evals.report.capacity import block as capacity_block
from evals.report.capacity import with_block as with_capacity_block
from evals.report.common import (
    ROOT,
    Artefact,
    committed_artefacts,
    f,
    latest,
    latest_variant,
    source,
    table,
)
from evals.report.e2e_ab import e2e_ab
from evals.report.hooks import hooks
from evals.report.locomo import ablation, locomo
from evals.report.locomo import readme_block as locomo_block
from evals.report.locomo import with_block as with_locomo_block
from evals.report.peers import peers
from evals.report.peers import readme_block as peers_block
from evals.report.peers import with_block as with_peers_block
from evals.report.reliability import readme_block, reliability, with_readme_block
from evals.report.review import review_queue

PAGE = ROOT / "docs" / "benchmarks.md"
README = ROOT / "README.md"
SCALING = ROOT / "docs" / "scaling.md"
IMG = ROOT / "docs" / "img"


def mcp_latency(a: Artefact) -> list[str]:
    d = a.load()
    rows = [[f"`memory_{op}` via MCP", f(d["mcp"][op]["p50_ms"]), f(d["mcp"][op]["p95_ms"])]
            for op in ("store", "search")]
    rows += [[f"`MemoryService.{op.title()}` direct gRPC", f(d["grpc_direct"][op]["p50_ms"]),
              f(d["grpc_direct"][op]["p95_ms"])] for op in ("store", "search")]
    r = d["ratios"]
    return ["## MCP latency", "",
            f"{d['n']} sequential calls per tool and path after "
            f"{d['warmup_calls_per_path']} warm-up calls, one client, embedded stack on "
            f"{d['machine']['cpu_count']} CPUs, the memory service called directly over gRPC in the"
            " same run as the baseline. " + source(a, d), "",
            *table(["", "p50 ms", "p95 ms"], rows),
            f"Gateway + MCP overhead at p50: ×{r['store_p50_mcp_over_grpc']} on store, "
            f"×{r['search_p50_mcp_over_grpc']} on search. Cold start {d['cold_start_s']} s.", "",
            "![MCP and gRPC latency](img/latency.png)", ""]


def store_cpu(a: Artefact) -> list[str]:
    d = a.load()
    rows = []
    for key, label in (("full_stack", "whole stack"), ("dreamer_stopped", "dreamer stopped")):
        part = d[key]
        rows.append([label, f"{f(part['store']['p50_ms'])} / {f(part['store']['p95_ms'])}",
                     f(part["cpu_ms_per_store_total"]), f(part["cpu_ms_per_store"]["embedder"])])
    floor = d["call_floor"]
    return ["## Where a store's time goes", "",
            f"{d['n']} MCP stores one at a time; CPU per store read from `/proc` for every "
            "process of the embedded stack. " + source(a, d), "",
            *table(["", "store p50 / p95 ms", "CPU ms per store", "of which the embedder"], rows),
            f"A bare encode of the same texts takes {f(d['bare_encode_idle']['p50_ms_used'])} ms "
            f"p50; a store is ×{d['store_over_encode_p50']['full_stack']} that. The floor of any "
            f"tool call, `memory_recent` n=1: {f(floor['mcp_memory_recent']['p50_ms'])} ms p50 "
            f"through MCP, {f(floor['grpc_memory_recent']['p50_ms'])} ms straight over gRPC "
            f"({floor['mcp_recent_p50_over_encode_p50']} of the encode).", ""]


def scale(a: Artefact) -> list[str]:
    d = a.load()
    rows = [[f(p["entries"], 0), f(p["copy_s"], 0) + " s", f(p["index_build_s"], 0) + " s",
             f"{f(p['store_p50_ms'], 0)} / {f(p['store_p95_ms'], 0)}",
             f"{f(p['search_p50_ms'], 0)} / {f(p['search_p95_ms'], 0)}",
             f"{f(p['bytes_per_entry'], 0)} / {f(p['entries_bytes_per_entry'], 0)}",
             f(p["hnsw_bytes"] / 2**20, 0) + " MiB"] for p in d["points"]]
    g = d["search_p95_growth"]
    return ["## One namespace at scale", "",
            f"{d['vectors']}. {d['storage']}. " + source(a, d), "",
            *table(["entries", "COPY", "HNSW build", "store p50 / p95 ms", "search p50 / p95 ms",
                    "bytes per entry: all / entries", "HNSW"], rows),
            f"Search p95 grows ×{f(g['ratio'], 2)} from {f(g['from'], 0)} to {f(g['to'], 0)} "
            "entries.", "", "![latency against namespace size](img/scale.png)", ""]


def documents(a: Artefact) -> list[str]:
    d = a.load()
    rows = [[f(p["chunks"], 0),
             f"{f(p['document_search_p50_ms'])} / {f(p['document_search_p95_ms'])}",
             f"{f(p['lexical_p50_ms'])} / {f(p['lexical_p95_ms'])}",
             f"{f(p['baseline_full_text_scan_p50_ms'])} / {f(p['baseline_full_text_scan_p95_ms'])}"]
            for p in d["points"]]
    return ["### Document chunks at scale", "", f"{d['chunks']}; {d['queries']}. " + source(a, d),
            "", *table(["chunks", "`document_search` p50 / p95 ms (MCP)",
                        "lexical channel p50 / p95 ms", "old full-text scan p50 / p95 ms"], rows)]


def embedder(a: Artefact) -> list[str]:
    d = a.load()
    conc = [p["concurrency"] for p in d["service_batched"]["short"]]

    def line(label: str, key: str, kind: str) -> list[str]:
        return [label, *[f(p["sentences_per_s"], 0) for p in d[key][kind]]]
    rows = [line("service, batched", "service_batched", "short"),
            line("batching off, one model thread", "service_unbatched", "short"),
            line("batching off, side lane on", "service_unbatched_two_lanes", "short"),
            line("service, batched (mixed 6–200 words)", "service_batched", "mixed")]
    idle, bulk = d["idle_single_request"], d["interactive_under_bulk"]
    raw = d["raw"]["short"]
    return ["## Embedder", "",
            f"{d['backend']['model']} on {d['machine']['cpus']} CPU cores ({d['backend']['name']}),"
            " one text per request, client and service on the same cores. " + source(a, d), "",
            *table(["texts per second at concurrency", *map(str, conc)], rows),
            f"Raw model in-process: {f(raw['best_sentences_per_s'], 0)}/s at batch "
            f"{raw['best_batch']}{raw_runtimes(raw)}. At concurrency 32 the service reaches "
            f"{f(d['ratio_vs_raw_c32'], 2)} of raw (target 0.85) and "
            f"×{f(d['ratio_vs_unbatched_c32'], 2)} its unbatched self (target ×4). Idle single "
            f"request {f(idle['service_p50_ms'])} ms p50 against "
            f"{f(idle['direct_encode_p50_ms'])} ms for a direct encode "
            f"(+{f(idle['overhead_p50_ms'])} ms). Interactive p95 while a bulk stream runs: "
            f"{f(bulk['busy_p95_ms'])} ms against {f(bulk['idle_p95_ms'])} ms idle "
            f"(×{f(bulk['ratio_p95'], 2)}; target ×2).", "",
            "![embedder throughput](img/embedder.png)", ""]


def raw_runtimes(raw: dict) -> str:
    """Which runtime set the limit, where the run measured more than one."""
    runs = raw.get("by_runtime", {})
    if len(runs) < 2:
        return ""
    each = ", ".join(f"{name} {f(r['best_sentences_per_s'], 0)}/s" for name, r in runs.items())
    return f" (the fastest runtime, {raw['runtime']}: {each})"


def embedder_gpu(a: Artefact) -> list[str]:
    """The newest embedder run on a GPU (a variant artefact: evals/gpu/)."""
    d = a.load()
    raw, runs = d["raw"]["short"], d["service_batched"]["short"]
    idle = d["idle_single_request"]
    rows = [[str(r["concurrency"]), f(r["sentences_per_s"], 0),
             f(d["ratio_vs_raw_by_concurrency"][str(r["concurrency"])], 2)] for r in runs]
    return ["### Embedder on a GPU", "",
            f"{d['backend']['model'].rsplit('/', 1)[-1]} in {d['machine']['dtype']} on one "
            f"{d['machine']['accelerator']} ({d['backend']['name']}), one text per request, "
            f"batched service settings {d['backend']['service_env']}; command "
            f"`{d['wrapper']}`. " + source(a, d), "",
            *table(["concurrency", "served texts/s", "of raw"], rows),
            f"Raw model in-process: {f(raw['best_sentences_per_s'], 0)}/s at batch "
            f"{raw['best_batch']}; a lone encode {f(idle['direct_encode_p50_ms'])} ms, served "
            f"{f(idle['service_p50_ms'])} ms p50.", ""]


def embedder_probe(a: Artefact) -> list[str]:
    d = a.load()
    race = d["tokenizer_race"]
    st = race["st_encode_x2_plus_unpadded_count"]
    be = race["backend_encode_x3"]
    failed = sum(st["failures"].values())
    rows = []
    for n, rnd in enumerate(d["lanes_at_concurrency_32"]["rounds"], 1):
        for label, r in rnd.items():
            rows.append([str(n), label, f(r["sentences_per_s"], 0), f(r["lanes_busy_share"], 2)])
    return ["### Embedder probes", "",
            f"Tokenizer race ({f(race['seconds_each'], 0)} s each): sentence-transformers' `encode`"
            f" on two threads beside an unpadded token count failed {failed} of "
            f"{st['calls']['encode']} encodes; the backend on three threads failed "
            f"{sum(be['failures'].values())} of {be['calls']['encode']} "
            "([decision 0004](decisions/0004-embedder-lanes-and-tokenizer-lock.md)). "
            + source(a, d), "",
            *table(["round", "lane setting at concurrency 32", "texts/s", "lanes busy"], rows)]


def conflicts(a: Artefact) -> list[str]:
    d = a.load()
    e, b = d["engram"], d["baseline_exact_only"]
    rows = [[k, f(v["precision"], 3), f(v["recall"], 3), f(v["f1"], 3),
             f(b["per_outcome"][k]["f1"], 3), str(v["support"])]
            for k, v in e["per_outcome"].items()]
    actions = ["insert", "confirm", "supersede", "contest", "park"]
    confusion = [[label, *[str(e["confusion"].get(label, {}).get(x, 0)) for x in actions]]
                 for label in e["per_outcome"]]
    cats = ", ".join(f"{k} {v}" for k, v in sorted(d["accuracy_by_category"].items()))
    return ["## Conflict typing in `fact_set`", "",
            f"{d['pairs']} labelled fact pairs (`{d['data']}`), each written through MCP "
            "`fact_set` on a fresh stack; the second write's action is compared with the label. "
            "The baseline knows only exact normalised restatements. " + source(a, d), "",
            f"Accuracy {d['engram']['accuracy']} (baseline {b['accuracy']}), macro-F1 "
            f"{e['macro_f1']} (baseline {b['macro_f1']}).", "",
            *table(["outcome", "precision", "recall", "F1", "baseline F1", "pairs"], rows),
            "Confusion (rows: label, columns: `fact_set` action):", "",
            *table(["label", *actions], confusion), f"Accuracy by category: {cats}.", ""]


def _extraction_rows(d: dict[str, Any]) -> list[list[str]]:
    ex, ho = d["extractor"]["per_kind"], d["heldout"]["per_kind"]
    return [[k, f(v["precision"], 3), f(v["recall"], 3), f(ho[k]["precision"], 3),
             f(ho[k]["recall"], 3)] for k, v in ex.items()]


def extraction(rules: Artefact | None, openai: Artefact | None) -> list[str]:
    out = ["## Fact extraction by the dreamer", ""]
    if rules:
        d = rules.load()
        ex, ho, base = d["extractor"], d["heldout"], d["baseline_every_sentence_state"]
        out += [f"The `rules` backend on {d['entries']} labelled entries (`{d['data']}`) and "
                f"{ho['entries']} held-out ones (`{d['heldout_data']}`), written without seeing "
                "the grammar. " + source(rules, d), "",
                *table(["kind", "precision", "recall", "held-out precision", "held-out recall"],
                       _extraction_rows(d)),
                f"Micro precision {ex['micro_precision']}, recall {ex['micro_recall']} "
                f"({ho['micro_precision']} and {ho['micro_recall']} held out); facts from chatter "
                f"entries: {ex['facts_from_chatter']}. The baseline (every sentence a STATE fact): "
                f"precision {base['micro_precision']}, recall {base['micro_recall']}.", ""]
        if "tune_b" in d:  # the grammar's second tuning set, cut from the old held-out file
            tb = d["tune_b"]
            out[-1:] = [f"Second tuning set ({tb['entries']} entries, `{d['tune_b_data']}`): "
                        f"precision {tb['micro_precision']}, recall {tb['micro_recall']}.", ""]
    if openai:
        d = openai.load()
        out += [f"The `openai` backend with `{d['model']}` (batches of {d['batch']}): micro "
                f"precision {d['extractor']['micro_precision']}, recall "
                f"{d['extractor']['micro_recall']}; {d['dropped_unanchored']} candidates dropped "
                f"as unanchored, {d['failed_batches']} batches failed, {f(d['seconds'], 0)} s. "
                + source(openai, d), ""]
    return out


def board(a: Artefact) -> list[str]:
    d = a.load()
    g, m = d["grpc_direct"], d["mcp"]
    rows = [[op, f"{f(g['ops'][op]['per_s'])}/s",
             f"{f(g['ops'][op]['p50_ms'])} / {f(g['ops'][op]['p95_ms'])}",
             f"{f(m['ops'][op]['per_s'])}/s",
             f"{f(m['ops'][op]['p50_ms'])} / {f(m['ops'][op]['p95_ms'])}"] for op in g["ops"]]
    loop = d["loop"]
    return ["## Agent board", "",
            f"{g['agents']} simulated agents in closed loops over {loop['leases']} shared leases "
            f"(ttl {loop['lease_ttl_s']} s), mail every {loop['send_interval_s']} s; first "
            "straight to the coordination service over gRPC, then through the gateway with one "
            "MCP client per agent. " + source(a, d), "",
            *table(["op", "gRPC throughput", "gRPC p50 / p95 ms", "MCP throughput",
                    "MCP p50 / p95 ms"], rows),
            f"Totals: {f(g['total_per_s'])} ops/s direct, {f(m['total_per_s'])} through MCP. "
            f"Errors: {sum(g['errors'].values()) + sum(m['errors'].values())}.", ""]


def render(found: list[Artefact]) -> str:
    used = {k: latest(found, k) for k in (
        "mcp-latency", "latency-ab", "store-cpu", "locomo", "locomo-ablation", "scale", "documents",
        "embedder", "embedder-probe", "conflicts", "extraction-rules", "extraction-openai", "board",
        "reliability", "hooks", "peers", "review-queue", "agent-day")}
    parts = ["# Benchmarks", "",
             "Generated by `python -m evals.report.pages` from the newest artefact of each kind "
             "under `evals/results/`; do not edit by hand (a test fails when this page is stale). "
             "How each benchmark runs: [evals/README.md](../evals/README.md). Why the defaults are "
             "what they are: [decisions/](decisions/README.md).", ""]
    sections = [("mcp-latency", mcp_latency), ("latency-ab", e2e_ab), ("store-cpu", store_cpu),
                ("locomo", lambda a: locomo(a, found)), ("locomo-ablation", ablation),
                ("scale", scale), ("documents", documents), ("embedder", embedder),
                ("embedder-probe", embedder_probe), ("conflicts", conflicts), ("board", board)]
    for kind, section in sections:
        art = used[kind]
        if art:
            parts += section(art)
        if kind == "embedder" and (gpu := latest_variant(found, "embedder", "cuda")):
            parts += embedder_gpu(gpu)
    if used["extraction-rules"] or used["extraction-openai"]:
        parts += extraction(used["extraction-rules"], used["extraction-openai"])
    if rel := used["reliability"]:
        parts += reliability(rel.name, rel.load(), f, table)
    if hk := used["hooks"]:
        parts += hooks(hk.name, hk.load(), f, table)
    if pe := used["peers"]:
        parts += peers(pe.name, pe.load(), f, table)
    if ad := used["agent-day"]:
        parts += agent_day(ad.name, ad.load(), table)
    if rq := used["review-queue"]:
        parts += review_queue(rq.name, rq.load(), f, table)
    return "\n".join(parts).rstrip("\n") + "\n"


def readme(found: list[Artefact], text: str) -> str:
    """README.md with its recall, reliability, peers and agent-day tables from the newest
    artefacts."""
    rel, pe, lo = latest(found, "reliability"), latest(found, "peers"), latest(found, "locomo")
    text = with_locomo_block(text, locomo_block(lo.load())) if lo else text
    text = with_readme_block(text, readme_block(rel.load(), table)) if rel else text
    text = with_peers_block(text, peers_block(pe.load(), f, table)) if pe else text
    ad = latest(found, "agent-day")
    return with_agent_day_block(text, agent_day_block(ad.load(), table)) if ad else text


def scaling(found: list[Artefact], text: str) -> str:
    """docs/scaling.md with its measured inputs and sizing table from the artefacts."""
    return with_capacity_block(text, capacity_block(found, latest, f, table))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    parser.add_argument("--no-plots", action="store_true", help="write the page only")
    args = parser.parse_args()
    found = committed_artefacts()
    page = render(found)
    front = readme(found, README.read_text())
    sizing = scaling(found, SCALING.read_text())
    if args.check:
        if (PAGE.read_text() != page or README.read_text() != front
                or SCALING.read_text() != sizing):
            sys.stderr.write("docs/benchmarks.md, README.md or docs/scaling.md is stale: run "
                             "python -m evals.report.pages\n")
            return 1
        return 0
    PAGE.write_text(page)
    README.write_text(front)
    SCALING.write_text(sizing)
    if not args.no_plots:
        from evals.report.plots import draw_all  # matplotlib is a dev extra: only needed for plots
        draw_all(found, latest, IMG)
    return 0


if __name__ == "__main__":
    sys.exit(main())
