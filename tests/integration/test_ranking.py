"""Ranking through the real stack: BM25 term statistics, the lifts from
conversation context and episodes, and the explain trace (why a match was
not served)."""

from __future__ import annotations

import math
import uuid

import asyncpg
import pytest

from engram_memory import repo, repo_candidates
from engram_memory.timewords import TEXT_PATTERN, names_a_time
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, eventually, mcp_client, postings_out_of_step

TERMS = repo.TermLimits(max_df=0.5, match_budget=1000, k1=1.2, b=0.75)

HIKES = [
    "Caroline: I went hiking up the ridge trail on Sunday.",
    "Caroline: My sister called about the family reunion.",
    "Caroline: Work has been busy with the quarterly report.",
    "Caroline: I finally signed up for a pottery class downtown.",
    "Caroline: The new cafe on Elm street makes great espresso.",
    "Caroline: I am reading a novel about lighthouse keepers.",
    "Caroline: We adopted a rescue dog named Biscuit.",
    "Caroline: The garden tomatoes are finally ripe.",
    "Caroline: I fixed the leaking kitchen faucet myself.",
    "Caroline: My cousin is visiting from Lisbon next month.",
    "Caroline: I started learning to play the ukulele.",
    "Caroline: The school fundraiser raised two thousand dollars.",
]


def namespace_agent(stack: Stack) -> tuple[str, str]:
    ns = f"rank-{uuid.uuid4().hex[:6]}"
    return ns, stack.principals.create(f"p-{ns}", "agent", [ns])


def terms(reply: dict) -> dict[str, dict]:
    return {t["term"]: t for t in reply["trace"]["query_terms"]}


async def test_common_terms_are_not_used_and_the_rare_term_decides(stack: Stack):
    ns, token = namespace_agent(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        ids = [(await call(client, "memory_store", {"text": t, "namespace": ns}))["id"]
               for t in HIKES]
        found = await call(client, "memory_search", {
            "query": "What class did Caroline sign up for, pottery?", "explain": True,
            "namespace": ns, "top_k": 3})
        only_common = await call(client, "memory_search", {
            "query": "Caroline", "explain": True, "namespace": ns})
    assert found["entries"][0]["id"] == ids[3]
    used = terms(found)
    # "carolin" is on every row: counted, shown, not used to match.
    assert used["carolin"] == {"term": "carolin", "rows": 12, "used": False}
    assert used["potteri"] == {"term": "potteri", "rows": 1, "used": True}
    assert found["entries"][0]["trace"]["lexical_rank"] == 1
    assert found["trace"]["candidates"]["lexical"] == 1
    # A query of common terms only still matches on its rarest term.
    assert terms(only_common)["carolin"]["used"] is True
    assert only_common["trace"]["candidates"]["lexical"] == 12


async def test_term_statistics_follow_forget(stack: Stack):
    ns, token = namespace_agent(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        stored = [await call(client, "memory_store", {"text": t, "namespace": ns})
                  for t in HIKES[:4]]
        before = await call(client, "memory_search", {"query": "pottery Caroline",
                                                      "explain": True, "namespace": ns})
        await call(client, "memory_forget", {"entry_id": stored[3]["id"], "reason": "test",
                                             "namespace": ns})
        after = await call(client, "memory_search", {"query": "pottery Caroline",
                                                     "explain": True, "namespace": ns})
    assert terms(before)["carolin"]["rows"] == 4 and terms(before)["potteri"]["rows"] == 1
    assert terms(after)["carolin"]["rows"] == 3 and "potteri" not in terms(after)
    assert stored[3]["id"] not in {e["id"] for e in after["entries"]}


async def test_explain_says_why_a_superseded_match_is_not_served(stack: Stack):
    ns, token = namespace_agent(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        old = await call(client, "memory_store", {
            "text": "The deploy key is kept in vault path secret/deploy-v1.", "namespace": ns})
        new = await call(client, "memory_supersede", {
            "entry_id": old["id"], "new_text": "The deploy key is kept in vault path "
            "secret/deploy-v2.", "reason": "rotated", "namespace": ns})
        found = await call(client, "memory_search", {"query": "where is the deploy key kept",
                                                     "explain": True, "namespace": ns})
    assert [e["id"] for e in found["entries"]] == [new["id"]]
    why = {d["id"]: d["reason"] for d in found["trace"]["not_served"]}
    assert why[old["id"]].startswith(f"superseded by {new['id']}: not current")


async def test_adjacent_lines_of_an_episode_lift_each_other(stack: Stack):
    ns, token = namespace_agent(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "episode_start", {"title": "weekend chat", "namespace": ns})
        question = await call(client, "memory_store", {
            "text": "Melanie: Did you get to the natural history museum last weekend?",
            "namespace": ns})
        answer = await call(client, "memory_store", {
            "text": "Caroline: Yes! The dinosaur hall was incredible.", "namespace": ns})
        await call(client, "episode_end", {"namespace": ns})
        await call(client, "memory_store", {
            "text": "Caroline: The museum shop sells dinosaur mugs.", "namespace": ns})
        found = await call(client, "memory_search", {"query": "museum dinosaur",
                                                     "explain": True, "namespace": ns})
    by_id = {e["id"]: e for e in found["entries"]}
    pair = (by_id[question["id"]]["trace"], by_id[answer["id"]]["trace"])
    assert all(t["context_lift"] > 0 and t["episode_lift"] > 0 for t in pair)
    for e in found["entries"]:
        t = e["trace"]
        assert abs(e["score"] - (t["rrf_score"] + t["context_lift"] + t["episode_lift"]
                                 + t["term_lift"] + t["identifier_lift"] + t["time_lift"])) < 1e-4
    assert "rrf k=" in found["trace"]["fusion"]


async def test_a_speaker_named_in_every_other_line_still_picks_the_line(stack: Stack):
    """A name on half the rows is too common for the lexical channel, but a
    question that names the speaker is about that speaker's lines: the
    candidate that holds it is lifted above the one that does not."""
    ns, token = namespace_agent(stack)
    lines = [*HIKES, *(t.replace("Caroline:", "Melanie:") for t in HIKES[:11]),
             "Melanie: I painted a sunset over the lake last week."]
    lines[0] = "Caroline: I painted a sunrise over the lake last week."
    async with mcp_client(stack.mcp_url, token) as client:
        ids = [(await call(client, "memory_store", {"text": t, "namespace": ns}))["id"]
               for t in lines]
        found = await call(client, "memory_search", {
            "query": "What did Melanie paint over the lake?", "explain": True,
            "namespace": ns, "top_k": 24})
    assert terms(found)["melani"]["used"] is False  # on 12 of 24 rows
    by_id = {e["id"]: e for e in found["entries"]}
    assert found["entries"][0]["id"] == ids[-1]
    assert by_id[ids[-1]]["trace"]["term_lift"] > 0
    assert by_id[ids[0]]["trace"]["term_lift"] == 0  # Caroline's painting
    for e in found["entries"]:
        assert (e["trace"]["term_lift"] > 0) == e["text"].startswith("Melanie:")
    assert "common-term lift" in found["trace"]["fusion"]


async def test_terms_are_taken_rarest_first_within_the_match_budget(stack: Stack):
    """Migration 0011: at scale the lexical channel's work is bounded by the
    summed df of the terms it uses; the commonest terms go first, the rarest
    is always used. Asked of the memory schema as the memory service's role."""
    ns, token = namespace_agent(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        for text in HIKES:
            await call(client, "memory_store", {"text": text, "namespace": ns})
    conn = await asyncpg.connect(stack.service_dsn("memory"))
    try:
        async with conn.transaction():
            await conn.execute("SELECT set_config('engram.namespace', $1, true)", ns)

            async def kept(budget: int) -> list[str]:
                rows = await conn.fetch(
                    "SELECT lexeme, kept FROM memory.lexical_terms($1, 1.0, $2)",
                    "Caroline, pottery, garden or sister?", budget)
                assert [r["lexeme"] for r in rows] == ["garden", "potteri", "sister", "carolin"]
                return [r["lexeme"] for r in rows if r["kept"]]

            assert await kept(100) == ["garden", "potteri", "sister", "carolin"]
            assert await kept(14) == ["garden", "potteri", "sister"]  # 3 + 12 > 14
            assert await kept(2) == ["garden", "potteri"]
            assert await kept(0) == ["garden"]  # the rarest term is always used
    finally:
        await conn.close()


async def test_postings_mirror_the_stored_rows_and_are_an_index_lookup_under_rls(
        stack: Stack, admin_dsn: str):
    """Migration 0012: the lexical channel reads `entry_lexemes`, one row per
    (entry, lexeme). Stores, supersedes and forgets keep it equal to the
    entries' own lexemes, and as the memory role (under RLS) a term lookup is
    an index condition, which the full-text match `@@` never was."""
    ns, token = namespace_agent(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        ids = [(await call(client, "memory_store", {"text": t, "namespace": ns,
                                                    "tags": ["hike"]}))["id"] for t in HIKES]
        await call(client, "memory_supersede", {"entry_id": ids[0], "namespace": ns,
                                                "new_text": "Caroline: I hiked the coast path."})
        await call(client, "memory_forget", {"entry_id": ids[1], "namespace": ns,
                                             "reason": "test"})
        found = await call(client, "memory_search", {"query": "sister reunion", "namespace": ns})
    assert ids[1] not in [e["id"] for e in found["entries"]]
    assert await postings_out_of_step(admin_dsn, "entry_lexemes", "entry_id", "entries",
                                      length_column="doc_len") == 0
    assert await admin_fetchval(
        admin_dsn, "SELECT count(*) FROM memory.entry_lexemes WHERE entry_id = $1::uuid",
        ids[1]) == 0
    conn = await asyncpg.connect(stack.service_dsn("memory"))
    try:
        async with conn.transaction():
            await conn.execute("SELECT set_config('engram.namespace', $1, true)", ns)
            await conn.execute("SET LOCAL enable_seqscan = off")
            plan = [r[0] for r in await conn.fetch(
                "EXPLAIN SELECT entry_id FROM memory.entry_lexemes WHERE lexeme = 'garden'")]
            assert any("Index Cond" in line and "lexeme = 'garden'" in line
                       for line in plan), plan
            assert len(await conn.fetch(
                "SELECT entry_id FROM memory.entry_lexemes WHERE lexeme = 'garden'")) == 1
    finally:
        await conn.close()


async def test_bm25_weights_reach_postgres_as_floats(stack: Stack):
    """k1 and b are bound as float8: when Postgres inferred them from the
    SQL they were typed int4, and 1.2 / 0.75 arrived as 1 / 0 (no length
    norm at all). Two entries hold the one rare term; with b=0.75 the
    shorter ranks first by a margin BM25 fixes, with b=0 they tie."""
    ns, token = namespace_agent(stack)
    short = "Zanzibar."
    long = "Zanzibar came up again while we talked about trains, rivers and old maps."
    async with mcp_client(stack.mcp_url, token) as client:
        ids = {(await call(client, "memory_store", {"text": t, "namespace": ns}))["id"]: t
               for t in (long, short)}
    conn = await asyncpg.connect(stack.service_dsn("memory"))
    try:
        async with conn.transaction():
            await conn.execute("SET LOCAL search_path = memory")
            await conn.execute("SELECT set_config('engram.namespace', $1, true)", ns)
            no_filters = repo.Filters([], "", None, None)

            async def scores(k1: float, b: float) -> list[tuple[str, float]]:
                rows = await repo.lexical_ranked(conn, "zanzibar", no_filters, 10,
                                                 repo.TermLimits(1.0, 20_000, k1, b))
                return [(ids[str(entry_id)], score) for entry_id, score in rows]

            (first, s1), (second, s2) = await scores(1.2, 0.75)
            docs, avgdl = await conn.fetchrow("SELECT docs, lexemes::float8 / docs"
                                              " FROM lexicon_totals")
            idf = math.log((docs - 2 + 0.5) / (2 + 0.5) + 1)
            assert first == short and second == long
            assert abs(s1 - idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1 / max(avgdl, 1)))) < 1e-9
            flat = await scores(1.2, 0.0)
            assert flat[0][1] == flat[1][1] == pytest.approx(idf)
    finally:
        await conn.close()


async def test_a_search_that_nothing_answers_says_low_confidence(stack: Stack):
    """As memory_recall does: when no served entry is close to the query,
    the reply says so instead of passing the nearest rows off as answers."""
    ns, token = namespace_agent(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        for text in HIKES:
            await call(client, "memory_store", {"text": text, "namespace": ns})
        near = await call(client, "memory_search", {
            "query": "Caroline adopted a rescue dog", "namespace": ns})
        far = await call(client, "memory_search", {
            "query": "quarterly tax filing deadlines for corporations in Ontario",
            "namespace": ns})
    assert near["low_confidence"] is False
    assert far["low_confidence"] is True
    assert far["entries"]  # still served: the flag says how far, not what to hide


async def test_the_line_before_a_candidate_is_one_index_step_not_a_sort_of_its_episode(
        stack: Stack, admin_dsn: str):
    """Migration 0022: search's episode context (and the write's context
    lines) read the entry just before each candidate in its episode. On a
    one-tenant stack under RLS the planner took the (namespace, episode)
    index and sorted the whole episode per candidate, a cost that grew with
    the episode (5.2 ms of a 10 ms search transaction on a 150-line
    episode); whichever index it takes now, the read must be bounded by
    created_at in the index, never a sort of the episode."""
    ns, token = namespace_agent(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "episode_start", {"title": "a long talk", "namespace": ns})
        ids = [(await call(client, "memory_store", {
            "text": f"Line {i} of a long talk about trains and rivers, number {i}.",
            "namespace": ns}))["id"] for i in range(30)]
    await admin_fetchval(admin_dsn, "ANALYZE memory.entries")  # the planner sees the rows
    conn = await asyncpg.connect(stack.service_dsn("memory"))
    try:
        async with conn.transaction():
            await conn.execute("SELECT set_config('engram.namespace', $1, true)", ns)
            await conn.execute("SET LOCAL search_path = memory, public")
            keys = [uuid.UUID(i) for i in ids]
            reads = repo_candidates.LiftReads(common_terms=False, identifiers=[], time=False)
            facts = await repo_candidates.candidate_facts(conn, keys, "", TERMS, reads)
            assert facts.previous[keys[5]] == keys[4]
            assert keys[0] not in facts.previous  # the episode's first line
            # A line that names none (written before migration 0020, or its
            # line forgotten) is looked up.
            await conn.execute("UPDATE entries SET context_of = NULL WHERE id = $1", keys[5])
            facts = await repo_candidates.candidate_facts(conn, keys, "", TERMS, reads)
            assert facts.previous[keys[5]] == keys[4]
            sql, _ = repo_candidates.candidate_sql("", TERMS, reads)
            plan = [r[0] for r in await conn.fetch("EXPLAIN " + sql, keys)]
    finally:
        await conn.close()
    assert any("Index Cond" in line and "created_at < c.created_at" in line
               for line in plan), plan
    assert not any("Sort" in line for line in plan), plan


# Alike but for the time the first names; the rest are about other things.
POTTERY = ["Caroline: I went to the pottery class in 2022.",
           "Caroline: I went to the pottery class in the old mill.",
           *HIKES[1:3], *HIKES[4:9]]


async def stored_with_context(stack: Stack, admin_dsn: str,
                              lines: list[str]) -> tuple[str, str, list[str]]:
    """A namespace holding `lines`, their context vectors filled (the dense
    ranks then no longer depend on how fast the sweep ran)."""
    ns, token = namespace_agent(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        ids = [(await call(client, "memory_store", {"text": t, "namespace": ns}))["id"]
               for t in lines]

    async def drained() -> bool:
        return await admin_fetchval(
            admin_dsn, "SELECT count(*) FROM memory.context_vector_queue q"
            " JOIN memory.entries e ON e.id = q.entry_id WHERE e.namespace = $1", ns) == 0
    await eventually(drained, 30, "the context vectors filled")
    return ns, token, ids


def lifts_sum_to_the_score(entry: dict) -> bool:
    t = entry["trace"]
    return abs(entry["score"] - (t["rrf_score"] + t["context_lift"] + t["episode_lift"]
                                 + t["term_lift"] + t["identifier_lift"] + t["time_lift"])) < 1e-4


async def test_a_question_about_time_lifts_the_line_that_names_a_time(
        stack: Stack, admin_dsn: str):
    """Fusion step 6: asked "when", the line naming a time outranks the line
    that says the same without one, which both channels rank first."""
    ns, token, ids = await stored_with_context(stack, admin_dsn, POTTERY)
    async with mcp_client(stack.mcp_url, token) as client:
        when = await call(client, "memory_search", {
            "query": "When did Caroline go to the pottery class?", "explain": True,
            "namespace": ns, "top_k": len(POTTERY)})
    timed, plain = ids[0], ids[1]
    by_id = {e["id"]: e for e in when["entries"]}
    assert [e["id"] for e in when["entries"]][0] == timed
    assert by_id[plain]["trace"]["dense_rank"] == by_id[plain]["trace"]["lexical_rank"] == 1
    before = by_id[timed]["score"] - by_id[timed]["trace"]["time_lift"]
    assert before < by_id[plain]["score"]  # without the lift the plain line led
    assert by_id[timed]["trace"]["time_lift"] == pytest.approx(0.5 * before, rel=1e-3)
    for e in when["entries"]:
        assert (e["trace"]["time_lift"] > 0) == names_a_time(e["text"]), e["text"]
        assert lifts_sum_to_the_score(e)
    assert "time lift 0.5 (a question about time)" in when["trace"]["fusion"]


async def test_a_question_not_about_time_is_not_lifted(stack: Stack, admin_dsn: str):
    ns, token, _ = await stored_with_context(stack, admin_dsn, POTTERY)
    async with mcp_client(stack.mcp_url, token) as client:
        found = await call(client, "memory_search", {
            "query": "Did Caroline go to the pottery class?", "explain": True,
            "namespace": ns, "top_k": len(POTTERY)})
    assert found["entries"][0]["text"] == POTTERY[1]
    assert all(e["trace"]["time_lift"] == 0 and lifts_sum_to_the_score(e)
               for e in found["entries"])
    assert "time lift 0.5 (not a question about time)" in found["trace"]["fusion"]


TIME_SAMPLES = ["I went hiking yesterday.", "The Mayor spoke.", "order 20230 shipped",
                "in 2023, then", "this weekend", "this  weekend", "Sundays", "MAY",
                "user_2023", "\u212aelvin ago", "x\nlast\n", "since", ""]


async def test_postgres_and_python_find_the_same_times(admin_dsn: str):
    """The service asks Postgres (`text ~* $1`) what the lab asks Python's
    `re`: the one pattern reads alike in both, and stays fast on the
    longest text an entry may hold."""
    crafted = ["this wee" * 2_000, "19" * 8_000, "when " * 3_200, " " * 15_999 + "May"]
    conn = await asyncpg.connect(admin_dsn)
    try:
        for text in [*TIME_SAMPLES, *crafted]:
            in_sql = await conn.fetchval("SELECT $1::text ~* $2", text, TEXT_PATTERN)
            assert in_sql == names_a_time(text), text[:40]
        await conn.execute("SET statement_timeout = '2s'")
        assert await conn.fetchval("SELECT bool_or($1::text || n::text ~* $2)"
                                   " FROM generate_series(1, 20) n",
                                   "a" * 16_000, TEXT_PATTERN) is False
    finally:
        await conn.close()
