-- Contextual vectors: a second vector per entry, of the two entries written
-- just before it in its episode followed by the entry itself (a reply's
-- meaning is often in the lines it answers). The dense channel ranks a row
-- by a blend of its two similarities. NULL: no earlier entry in the
-- episode, or a row written before this migration (it ranks by its own
-- vector alone, exactly as before).
ALTER TABLE entries ADD COLUMN context_embedding vector(384);
-- The entries whose words the context vector holds (the line before, the
-- one before that): forgetting either (a DELETE) sets its reference NULL,
-- and the trigger below then drops the vector, so no forgotten words live
-- on in a neighbour's vector.
ALTER TABLE entries ADD COLUMN context_of uuid REFERENCES entries (id) ON DELETE SET NULL;
ALTER TABLE entries ADD COLUMN context_of_prior uuid REFERENCES entries (id) ON DELETE SET NULL;
CREATE INDEX entries_context_of ON entries (context_of) WHERE context_of IS NOT NULL;
CREATE INDEX entries_context_of_prior ON entries (context_of_prior)
    WHERE context_of_prior IS NOT NULL;
CREATE INDEX entries_context_embedding_hnsw ON entries
    USING hnsw (context_embedding vector_cosine_ops);

CREATE FUNCTION context_forgotten() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    NEW.context_embedding := NULL;
    NEW.context_of := NULL;
    NEW.context_of_prior := NULL;
    RETURN NEW;
END $$;
CREATE TRIGGER entries_context_forgotten BEFORE UPDATE OF context_of, context_of_prior
    ON entries FOR EACH ROW
    WHEN ((OLD.context_of IS NOT NULL AND NEW.context_of IS NULL)
          OR (OLD.context_of_prior IS NOT NULL AND NEW.context_of_prior IS NULL))
    EXECUTE FUNCTION context_forgotten();

-- The view's `*` was expanded when it was made: list the new columns too.
CREATE OR REPLACE VIEW live_entries WITH (security_invoker = true) AS
    SELECT * FROM entries WHERE status = 'live';
