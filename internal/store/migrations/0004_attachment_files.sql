-- Receipts kept on disk (BANKMIRROR_ATTACHMENTS_DIR): where each
-- attachment's file was saved, its SHA-256, and the last failure to
-- download it.
ALTER TABLE attachments ADD COLUMN local_path TEXT;
ALTER TABLE attachments ADD COLUMN local_sha256 TEXT;
ALTER TABLE attachments ADD COLUMN download_error TEXT;
ALTER TABLE attachments ADD COLUMN download_attempts INTEGER NOT NULL DEFAULT 0;
