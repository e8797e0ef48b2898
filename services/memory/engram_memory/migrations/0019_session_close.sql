-- Sessions close: a session's episode ends after ENGRAM_SESSION_IDLE_S of
-- inactivity (or when the client says so) with an extractive summary of its
-- own entries; a write within ENGRAM_SESSION_REOPEN_S of the close reopens it.
ALTER TABLE episodes ADD COLUMN summary text NOT NULL DEFAULT '';
ALTER TABLE episodes ADD COLUMN last_active_at timestamptz;
-- false once the session was titled by hand (session_title): a close keeps it.
ALTER TABLE episodes ADD COLUMN auto_title boolean NOT NULL DEFAULT true;
CREATE INDEX episodes_idle ON episodes (coalesce(last_active_at, started_at))
    WHERE ended_at IS NULL AND parent_id IS NULL;
-- The idle sweep finds idle sessions in every namespace, only inside a
-- transaction that declares itself the sweep; it closes them per namespace.
CREATE POLICY episode_sweep ON episodes FOR SELECT
    USING (current_setting('engram.episode_sweep', true) = 'on');
-- A close reads its episodes' entries.
CREATE INDEX entries_episode ON entries (namespace, episode) WHERE episode IS NOT NULL;
