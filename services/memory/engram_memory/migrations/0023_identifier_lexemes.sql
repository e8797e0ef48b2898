-- Identifiers keep their shape in the lexical channel (decision 0024).
-- The `english` parser splits `user_id`, `ERR_CONN_RESET` or `v1.2.3-rc1`
-- into pieces that many rows hold, so the exact identifier was no term of
-- its own. An entry's lexemes (and a query's terms) now also hold each
-- identifier-shaped token whole, lower-cased: two or more runs of letters and
-- digits joined by `. _ : / @ # + -` or `::`. The pattern is the one in
-- engram_memory/identifiers.py, character for character; tokens longer than
-- 200 characters are skipped (a btree entry has a size limit).
CREATE FUNCTION identifier_lexemes(body text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT lower(m[1])), '{}')
    FROM regexp_matches(body, '([A-Za-z0-9]+(?:(?:::|[._:/@#+-])[A-Za-z0-9]+)+)', 'g') AS m
    WHERE length(m[1]) <= 200
$$;

-- What entries.tsv holds and what a query's terms are, written once.
CREATE FUNCTION engram_tsvector(body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $$
    SELECT to_tsvector('english', body) || array_to_tsvector(identifier_lexemes(body))
$$;

-- A generated column's expression cannot be altered before Postgres 17: the
-- column is made again (every row's tsv is computed anew), and the view
-- whose `*` names it with it.
DROP VIEW live_entries;
ALTER TABLE entries DROP COLUMN tsv;
ALTER TABLE entries ADD COLUMN tsv tsvector GENERATED ALWAYS AS (engram_tsvector(text)) STORED;
CREATE VIEW live_entries WITH (security_invoker = true) AS
    SELECT * FROM entries WHERE status = 'live';

-- Backfill: the postings, document frequencies and totals of the rows stored
-- before, rebuilt from the new tsv (the insert/delete triggers keep them
-- exact from here on, as before).
DELETE FROM entry_lexemes;
INSERT INTO entry_lexemes (namespace, lexeme, entry_id, doc_len)
    SELECT e.namespace, u.lexeme, e.id, length(e.tsv) FROM entries e, unnest(e.tsv) u
    ORDER BY 1, 2, 3;
DELETE FROM lexemes;
INSERT INTO lexemes (namespace, lexeme, df)
    SELECT e.namespace, u.lexeme, count(*) FROM entries e, unnest(e.tsv) u
    GROUP BY 1, 2 ORDER BY 1, 2;
DELETE FROM lexicon_totals;
INSERT INTO lexicon_totals (namespace, docs, lexemes)
    SELECT namespace, count(*), sum(length(tsv)) FROM entries GROUP BY 1 ORDER BY 1;

CREATE OR REPLACE FUNCTION lexical_terms(query text, max_df float8, match_budget bigint)
RETURNS TABLE (lexeme text, df int, idf float8, kept boolean)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT k.* FROM lexicon_totals t,
        (SELECT array_agg(l.lexeme) AS lexemes, array_agg(l.df) AS dfs FROM lexemes l
         WHERE l.lexeme = ANY(tsvector_to_array(engram_tsvector(query)))) q,
        kept_terms(q.lexemes, q.dfs, t.docs, max_df, match_budget) k
    ORDER BY k.df, k.lexeme
$$;
