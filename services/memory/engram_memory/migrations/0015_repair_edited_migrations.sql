-- Memory schema v15: databases built while 0007 and 0013 had earlier texts
-- (their checksums are the "superseded" ones in migrations.lock) are brought
-- to what the current texts build; on any other database this changes nothing.
-- 0007's first text left the lexicon trigger's search_path unpinned, so an
-- admin bulk load with another search_path could not find its tables.
ALTER FUNCTION lexicon_added() SET search_path FROM CURRENT;
ALTER FUNCTION lexicon_removed() SET search_path FROM CURRENT;

-- 0013's first text had no kept_terms(): the term rules, written once.
CREATE OR REPLACE FUNCTION kept_terms(known_lexemes text[], known_df int[], docs bigint,
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

CREATE OR REPLACE FUNCTION lexical_terms(query text, max_df float8, match_budget bigint)
RETURNS TABLE (lexeme text, df int, idf float8, kept boolean)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT k.* FROM lexicon_totals t,
        (SELECT array_agg(l.lexeme) AS lexemes, array_agg(l.df) AS dfs FROM lexemes l
         WHERE l.lexeme = ANY(tsvector_to_array(to_tsvector('english', query)))) q,
        kept_terms(q.lexemes, q.dfs, t.docs, max_df, match_budget) k
    ORDER BY k.df, k.lexeme
$$;

CREATE OR REPLACE FUNCTION chunk_lexical_terms(query text, max_df float8, match_budget bigint)
RETURNS TABLE (lexeme text, df int, idf float8, kept boolean)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT k.* FROM chunk_lexicon_totals t,
        (SELECT array_agg(l.lexeme) AS lexemes, array_agg(l.df) AS dfs FROM chunk_lexicon l
         WHERE l.lexeme = ANY(tsvector_to_array(to_tsvector('english', query)))) q,
        kept_terms(q.lexemes, q.dfs, t.chunks, max_df, match_budget) k
    ORDER BY k.df, k.lexeme
$$;
