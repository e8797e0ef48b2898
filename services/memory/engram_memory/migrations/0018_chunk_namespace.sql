-- memory_stats counts a namespace's chunks; without this index the count
-- would read every namespace's chunks and let RLS drop the others.
CREATE INDEX document_chunks_ns ON document_chunks (namespace);
