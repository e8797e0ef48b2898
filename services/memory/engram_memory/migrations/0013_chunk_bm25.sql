-- Document chunks get the lexical design entries have (0007, 0011, 0012):
-- BM25 from postings, with per-namespace term statistics and the same term
-- limits. Before, `tsv @@ query` ranked by cover density with no idf: under
-- RLS it scanned every chunk of the namespace (`@@` is not leakproof, so
-- never a GIN index condition), and with no df cut a common word made a
-- postings lookup alone slower than that scan. Chunks are long, so term
-- frequency counts here: postings keep tf (the lexeme's positions) and the
-- chunk's length in tokens. A chunk's text never changes; statement
-- triggers on insert and delete keep all three tables exact (a document's
-- chunks cascade with it), upserting in key order as 0007 does. The term
-- rules move into one function that entries' lexical_terms also calls.
CREATE TABLE chunk_lexemes (
    namespace text NOT NULL,
    lexeme    text NOT NULL,
    chunk_id  uuid NOT NULL,
    tf        int  NOT NULL,
    doc_len   int  NOT NULL,
    PRIMARY KEY (namespace, lexeme, chunk_id) INCLUDE (tf, doc_len)
);

CREATE TABLE chunk_lexicon (
    namespace text NOT NULL,
    lexeme    text NOT NULL,
    df        int  NOT NULL,
    PRIMARY KEY (namespace, lexeme)
);

CREATE TABLE chunk_lexicon_totals (
    namespace text PRIMARY KEY,
    chunks    bigint NOT NULL,
    tokens    bigint NOT NULL
);

-- One row per (chunk, lexeme): tf is the lexeme's position count.
CREATE FUNCTION chunk_terms_of(chunk_tsv tsvector)
RETURNS TABLE (lexeme text, tf int) LANGUAGE sql IMMUTABLE AS $$
    SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1) FROM unnest(chunk_tsv) u
$$;

CREATE FUNCTION chunk_lexicon_added() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO chunk_lexemes (namespace, lexeme, chunk_id, tf, doc_len)
        SELECT r.namespace, t.lexeme, r.id, t.tf,
               sum(t.tf) OVER (PARTITION BY r.id)
        FROM changed_rows r, chunk_terms_of(r.tsv) t ORDER BY 1, 2, 3;
    INSERT INTO chunk_lexicon (namespace, lexeme, df)
        SELECT r.namespace, u.lexeme, count(*) FROM changed_rows r, unnest(r.tsv) u
        GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (namespace, lexeme) DO UPDATE SET df = chunk_lexicon.df + EXCLUDED.df;
    INSERT INTO chunk_lexicon_totals (namespace, chunks, tokens)
        SELECT r.namespace, count(*),
               coalesce(sum((SELECT sum(t.tf) FROM chunk_terms_of(r.tsv) t)), 0)
        FROM changed_rows r GROUP BY 1 ORDER BY 1
    ON CONFLICT (namespace) DO UPDATE
        SET chunks = chunk_lexicon_totals.chunks + EXCLUDED.chunks,
            tokens = chunk_lexicon_totals.tokens + EXCLUDED.tokens;
    RETURN NULL;
END $$;

CREATE FUNCTION chunk_lexicon_removed() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM chunk_lexemes p
        USING (SELECT r.namespace, u.lexeme, r.id FROM changed_rows r, unnest(r.tsv) u) gone
        WHERE p.namespace = gone.namespace AND p.lexeme = gone.lexeme AND p.chunk_id = gone.id;
    -- Lock in lexeme order first, as inserts do, so the two cannot deadlock.
    PERFORM 1 FROM chunk_lexicon l
        WHERE (l.namespace, l.lexeme) IN (SELECT r.namespace, u.lexeme
                                          FROM changed_rows r, unnest(r.tsv) u)
        ORDER BY l.namespace, l.lexeme FOR UPDATE;
    UPDATE chunk_lexicon l SET df = l.df - gone.n
        FROM (SELECT r.namespace, u.lexeme, count(*) AS n FROM changed_rows r, unnest(r.tsv) u
              GROUP BY 1, 2) gone
        WHERE l.namespace = gone.namespace AND l.lexeme = gone.lexeme;
    UPDATE chunk_lexicon_totals t SET chunks = t.chunks - gone.chunks,
                                      tokens = t.tokens - gone.tokens
        FROM (SELECT r.namespace, count(*) AS chunks,
                     coalesce(sum((SELECT sum(c.tf) FROM chunk_terms_of(r.tsv) c)), 0) AS tokens
              FROM changed_rows r GROUP BY 1) gone
        WHERE t.namespace = gone.namespace;
    RETURN NULL;
END $$;

CREATE TRIGGER chunks_lexicon_added AFTER INSERT ON document_chunks
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT
    EXECUTE FUNCTION chunk_lexicon_added();
CREATE TRIGGER chunks_lexicon_removed AFTER DELETE ON document_chunks
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT
    EXECUTE FUNCTION chunk_lexicon_removed();

-- Which of a query's known terms the lexical channel uses, with their BM25
-- idf: the rules of 0007 and 0011 (max_df share, rarest first within the
-- match budget, the rarest always), now written once for entries and
-- chunks. `known` holds each query lexeme the corpus has, with its df.
CREATE FUNCTION kept_terms(known_lexemes text[], known_df int[], docs bigint,
                           max_df float8, match_budget bigint)
RETURNS TABLE (lexeme text, df int, idf float8, kept boolean)
LANGUAGE sql IMMUTABLE AS $$
    WITH known AS (
        SELECT k.lexeme, k.df, ln((docs - k.df + 0.5) / (k.df + 0.5) + 1) AS idf,
               row_number() OVER (ORDER BY k.df, k.lexeme) AS rarity,
               sum(k.df) OVER (ORDER BY k.df, k.lexeme) AS running_df
        FROM unnest(known_lexemes, known_df) AS k (lexeme, df)
        WHERE k.df > 0)
    SELECT lexeme, df, idf,
           ((df <= greatest(max_df * docs, 3) AND running_df <= match_budget) OR rarity = 1)
    FROM known
$$;

-- Same signature and results as 0011's; the rules now live in kept_terms.
CREATE OR REPLACE FUNCTION lexical_terms(query text, max_df float8, match_budget bigint)
RETURNS TABLE (lexeme text, df int, idf float8, kept boolean)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT k.* FROM lexicon_totals t,
        (SELECT array_agg(l.lexeme) AS lexemes, array_agg(l.df) AS dfs FROM lexemes l
         WHERE l.lexeme = ANY(tsvector_to_array(to_tsvector('english', query)))) q,
        kept_terms(q.lexemes, q.dfs, t.docs, max_df, match_budget) k
    ORDER BY k.df, k.lexeme
$$;

CREATE FUNCTION chunk_lexical_terms(query text, max_df float8, match_budget bigint)
RETURNS TABLE (lexeme text, df int, idf float8, kept boolean)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT k.* FROM chunk_lexicon_totals t,
        (SELECT array_agg(l.lexeme) AS lexemes, array_agg(l.df) AS dfs FROM chunk_lexicon l
         WHERE l.lexeme = ANY(tsvector_to_array(to_tsvector('english', query)))) q,
        kept_terms(q.lexemes, q.dfs, t.chunks, max_df, match_budget) k
    ORDER BY k.df, k.lexeme
$$;

-- Chunks stored before this migration.
INSERT INTO chunk_lexemes (namespace, lexeme, chunk_id, tf, doc_len)
    SELECT c.namespace, t.lexeme, c.id, t.tf, sum(t.tf) OVER (PARTITION BY c.id)
    FROM document_chunks c, chunk_terms_of(c.tsv) t ORDER BY 1, 2, 3;
INSERT INTO chunk_lexicon (namespace, lexeme, df)
    SELECT namespace, lexeme, count(*) FROM chunk_lexemes GROUP BY 1, 2;
INSERT INTO chunk_lexicon_totals (namespace, chunks, tokens)
    SELECT c.namespace, count(*), coalesce(sum((SELECT sum(t.tf) FROM chunk_terms_of(c.tsv) t)), 0)
    FROM document_chunks c GROUP BY 1;

ALTER TABLE chunk_lexemes ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunk_lexemes FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON chunk_lexemes
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

ALTER TABLE chunk_lexicon ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunk_lexicon FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON chunk_lexicon
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

ALTER TABLE chunk_lexicon_totals ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunk_lexicon_totals FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON chunk_lexicon_totals
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

-- Nothing matches chunks with `@@` any more.
DROP INDEX document_chunks_tsv;
