-- BM25 statistics for the lexical channel. Postgres' own ranking (ts_rank)
-- has no inverse document frequency, so "the" of a namespace's vocabulary
-- (a speaker's name on every turn, a project name on every note) ranks like
-- its rarest word, and an OR query over common terms touches most rows.
-- Per namespace: how many rows hold each lexeme, and the row count and total
-- lexeme count (for the length norm). Counted over every stored row, live or
-- retired (history reads search them too); a row leaves the counts only when
-- it is forgotten (deleted). Statement triggers keep them exact: one upsert
-- per distinct lexeme per statement, in lexeme order (no lock-order cycles).
CREATE TABLE lexemes (
    namespace text NOT NULL,
    lexeme    text NOT NULL,
    df        int  NOT NULL,
    PRIMARY KEY (namespace, lexeme)
);

CREATE TABLE lexicon_totals (
    namespace text PRIMARY KEY,
    docs      bigint NOT NULL,
    lexemes   bigint NOT NULL
);

CREATE FUNCTION lexicon_added() RETURNS trigger LANGUAGE plpgsql
-- Bulk loads by an admin connection run it too, with their own search_path.
SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO lexemes (namespace, lexeme, df)
        SELECT r.namespace, u.lexeme, count(*) FROM changed_rows r, unnest(r.tsv) u
        GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (namespace, lexeme) DO UPDATE SET df = lexemes.df + EXCLUDED.df;
    INSERT INTO lexicon_totals (namespace, docs, lexemes)
        SELECT namespace, count(*), sum(length(tsv)) FROM changed_rows GROUP BY 1 ORDER BY 1
    ON CONFLICT (namespace) DO UPDATE SET docs = lexicon_totals.docs + EXCLUDED.docs,
                                          lexemes = lexicon_totals.lexemes + EXCLUDED.lexemes;
    RETURN NULL;
END $$;

CREATE FUNCTION lexicon_removed() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    -- Lock in lexeme order first, as inserts do, so the two cannot deadlock.
    PERFORM 1 FROM lexemes l
        WHERE (l.namespace, l.lexeme) IN (SELECT r.namespace, u.lexeme
                                          FROM changed_rows r, unnest(r.tsv) u)
        ORDER BY l.namespace, l.lexeme FOR UPDATE;
    UPDATE lexemes l SET df = l.df - gone.n
        FROM (SELECT r.namespace, u.lexeme, count(*) AS n FROM changed_rows r, unnest(r.tsv) u
              GROUP BY 1, 2 ORDER BY 1, 2) gone
        WHERE l.namespace = gone.namespace AND l.lexeme = gone.lexeme;
    UPDATE lexicon_totals t SET docs = t.docs - gone.docs, lexemes = t.lexemes - gone.lexemes
        FROM (SELECT namespace, count(*) AS docs, sum(length(tsv)) AS lexemes
              FROM changed_rows GROUP BY 1) gone
        WHERE t.namespace = gone.namespace;
    RETURN NULL;
END $$;

CREATE TRIGGER entries_lexicon_added AFTER INSERT ON entries
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION lexicon_added();
CREATE TRIGGER entries_lexicon_removed AFTER DELETE ON entries
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION lexicon_removed();

-- The query's terms as the lexical channel uses them: every lexeme of the
-- query known to the namespace, its df and BM25 idf, and whether it is used.
-- A term held by more than max_df of the rows (and by more than a handful,
-- so small namespaces use every term) is not used: it barely moves a BM25
-- score, it would hand rank credit to weak matches in the fusion, and
-- OR-ing it in would make the index scan touch most rows. The rarest term
-- is always used. One definition for search and for its explain trace.
CREATE FUNCTION lexical_terms(query text, max_df float8)
RETURNS TABLE (lexeme text, df int, idf float8, kept boolean)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    WITH tot AS (SELECT docs FROM lexicon_totals),
    known AS (
        SELECT l.lexeme, l.df, ln((tot.docs - l.df + 0.5) / (l.df + 0.5) + 1) AS idf,
               row_number() OVER (ORDER BY l.df, l.lexeme) AS rarity, tot.docs
        FROM (SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('english', query)) u) q
        JOIN lexemes l ON l.lexeme = q.lexeme, tot
        WHERE l.df > 0)
    SELECT lexeme, df, idf, (df <= greatest(max_df * docs, 3) OR rarity = 1)
    FROM known ORDER BY df, lexeme
$$;

-- Adjacent entries of an episode (conversation context for ranking).
CREATE INDEX entries_episode_created ON entries (episode, created_at) WHERE episode IS NOT NULL;

-- Rows stored before this migration.
INSERT INTO lexemes (namespace, lexeme, df)
    SELECT e.namespace, u.lexeme, count(*) FROM entries e, unnest(e.tsv) u GROUP BY 1, 2;
INSERT INTO lexicon_totals (namespace, docs, lexemes)
    SELECT namespace, count(*), sum(length(tsv)) FROM entries GROUP BY 1;

ALTER TABLE lexemes ENABLE ROW LEVEL SECURITY;
ALTER TABLE lexemes FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON lexemes
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

ALTER TABLE lexicon_totals ENABLE ROW LEVEL SECURITY;
ALTER TABLE lexicon_totals FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON lexicon_totals
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
