-- A bound on the lexical channel's work at scale. Every kept term is OR-ed
-- into one full-text match and each matching row is scored, so the scoring
-- grows with the sum of the kept terms' df. (Under RLS the match itself runs
-- over every row of the namespace: `@@` is not leakproof, so it cannot be a
-- GIN index condition. This bound does not change that.) In a namespace of 1M rows, terms under
-- the max_df share (10%) can still match 100k rows each (a search measured
-- 1.1 s p50, evals/results/scale-20261130T093428Z.json). Terms are now taken
-- rarest first while their running df stays within `match_budget` rows; the
-- rarest term is always taken. The terms left out are the commonest of the
-- query, with the lowest idf: rows matching only them would rank last.
-- Small namespaces never reach the budget, so their ranking is unchanged.
DROP FUNCTION lexical_terms(text, float8);

CREATE FUNCTION lexical_terms(query text, max_df float8, match_budget bigint)
RETURNS TABLE (lexeme text, df int, idf float8, kept boolean)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    WITH tot AS (SELECT docs FROM lexicon_totals),
    known AS (
        SELECT l.lexeme, l.df, ln((tot.docs - l.df + 0.5) / (l.df + 0.5) + 1) AS idf,
               row_number() OVER (ORDER BY l.df, l.lexeme) AS rarity,
               sum(l.df) OVER (ORDER BY l.df, l.lexeme) AS running_df, tot.docs
        FROM (SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('english', query)) u) q
        JOIN lexemes l ON l.lexeme = q.lexeme, tot
        WHERE l.df > 0)
    SELECT lexeme, df, idf,
           ((df <= greatest(max_df * docs, 3) AND running_df <= match_budget) OR rarity = 1)
    FROM known ORDER BY df, lexeme
$$;
