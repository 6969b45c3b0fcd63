-- Stands in for migration 20 (another branch's: the shrink of issue 32), so
-- that 0021 has its number here; the merge keeps that branch's file instead.
SELECT 1;
