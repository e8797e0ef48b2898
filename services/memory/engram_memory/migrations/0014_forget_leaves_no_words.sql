-- Memory schema v14: a tombstone keeps no words of what was forgotten, and
-- only a keyed digest (HMAC-SHA256 under the stack's audit key) to recognise
-- the same content again; an unkeyed hash of a short secret gives it back to
-- a dictionary.
UPDATE tombstones SET excerpt = '';
ALTER TABLE tombstones DROP COLUMN excerpt;
-- Digests written before were unkeyed and cannot be re-keyed without the
-- text (gone): they are cleared, and '' matches no digest.
UPDATE tombstones SET content_hash = '';
ALTER TABLE tombstones RENAME COLUMN content_hash TO content_hmac;
COMMENT ON COLUMN tombstones.content_hmac IS
    'HMAC-SHA256 of the normalised text under ENGRAM_AUDIT_HMAC_KEY; empty for tombstones written before v14';

-- The lexicons kept a forgotten row's words with a count of 0: a lexeme no
-- row holds any more now goes with its last row.
CREATE OR REPLACE FUNCTION lexicon_removed() RETURNS trigger LANGUAGE plpgsql
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
    DELETE FROM lexemes l
        WHERE l.df <= 0 AND (l.namespace, l.lexeme) IN (SELECT r.namespace, u.lexeme
                                                        FROM changed_rows r, unnest(r.tsv) u);
    UPDATE lexicon_totals t SET docs = t.docs - gone.docs, lexemes = t.lexemes - gone.lexemes
        FROM (SELECT namespace, count(*) AS docs, sum(length(tsv)) AS lexemes
              FROM changed_rows GROUP BY 1) gone
        WHERE t.namespace = gone.namespace;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION chunk_lexicon_removed() RETURNS trigger LANGUAGE plpgsql
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
    DELETE FROM chunk_lexicon l
        WHERE l.df <= 0 AND (l.namespace, l.lexeme) IN (SELECT r.namespace, u.lexeme
                                                        FROM changed_rows r, unnest(r.tsv) u);
    UPDATE chunk_lexicon_totals t SET chunks = t.chunks - gone.chunks,
                                      tokens = t.tokens - gone.tokens
        FROM (SELECT r.namespace, count(*) AS chunks,
                     coalesce(sum((SELECT sum(c.tf) FROM chunk_terms_of(r.tsv) c)), 0) AS tokens
              FROM changed_rows r GROUP BY 1) gone
        WHERE t.namespace = gone.namespace;
    RETURN NULL;
END $$;

-- Words of rows forgotten before.
DELETE FROM lexemes WHERE df <= 0;
DELETE FROM chunk_lexicon WHERE df <= 0;
