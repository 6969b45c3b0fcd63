-- Where a listing's transactions began (the largest rowid when it
-- started): its deletion pass reads no row written after that, and a first
-- sync's none at all.
ALTER TABLE sync_state ADD COLUMN start_rowid INTEGER;
