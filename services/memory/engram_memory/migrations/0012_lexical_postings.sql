-- The lexical channel's match as an index lookup that works under RLS.
-- Postgres uses a qualifier as an index condition on a table with row-level
-- security only when its function is leakproof. The full-text match `@@`
-- (ts_match_vq) is not, so as the memory role every lexical search scanned
-- all of the namespace's rows and never its GIN index (100k rows: 114 ms of
-- a 158 ms search; at 1M most of the 750 ms). Text equality is leakproof, so
-- a postings table, one row per (entry, lexeme), keyed by (namespace,
-- lexeme), is searched through its btree under the same policy as every
-- other table. It holds what BM25 with tf=1 needs: the entry and its length
-- in distinct lexemes (length(tsv)), the latter INCLUDEd so the lookup is
-- index-only. An entry's text never changes after insert (edits supersede),
-- so statement triggers on insert and delete keep it exact, as they keep
-- the df counts of migration 0007.
CREATE TABLE entry_lexemes (
    namespace text NOT NULL,
    lexeme    text NOT NULL,
    entry_id  uuid NOT NULL,
    doc_len   int  NOT NULL,
    PRIMARY KEY (namespace, lexeme, entry_id) INCLUDE (doc_len)
);

CREATE FUNCTION postings_added() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    -- Sorted: a bulk load fills the btree in key order.
    INSERT INTO entry_lexemes (namespace, lexeme, entry_id, doc_len)
        SELECT r.namespace, u.lexeme, r.id, length(r.tsv) FROM changed_rows r, unnest(r.tsv) u
        ORDER BY 1, 2, 3;
    RETURN NULL;
END $$;

CREATE FUNCTION postings_removed() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM entry_lexemes p
        USING (SELECT r.namespace, u.lexeme, r.id FROM changed_rows r, unnest(r.tsv) u) gone
        WHERE p.namespace = gone.namespace AND p.lexeme = gone.lexeme AND p.entry_id = gone.id;
    RETURN NULL;
END $$;

CREATE TRIGGER entries_postings_added AFTER INSERT ON entries
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION postings_added();
CREATE TRIGGER entries_postings_removed AFTER DELETE ON entries
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION postings_removed();

-- Rows stored before this migration.
INSERT INTO entry_lexemes (namespace, lexeme, entry_id, doc_len)
    SELECT e.namespace, u.lexeme, e.id, length(e.tsv) FROM entries e, unnest(e.tsv) u
    ORDER BY 1, 2, 3;

ALTER TABLE entry_lexemes ENABLE ROW LEVEL SECURITY;
ALTER TABLE entry_lexemes FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON entry_lexemes
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

-- Nothing reads entries through `@@` any more; under RLS its GIN index was
-- never used by the service, and it cost every insert a GIN update.
DROP INDEX entries_tsv;
