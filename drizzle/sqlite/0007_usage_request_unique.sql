-- A bill replayed from the spool must be a no-op when it is already committed: one usage row per request id, enforced.
CREATE UNIQUE INDEX `usage_request` ON `usage_records` (`request_id`);
