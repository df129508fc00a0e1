-- Issue 23: two pages fewer in the WAL for each bill committed alone.
-- Usage rows are numbered by SQLite's plain rowid instead of AUTOINCREMENT, so a bill no longer rewrites
-- sqlite_sequence's page (figures in the README's eighth capacity round). Without AUTOINCREMENT an id is max(id) + 1,
-- reused only if the newest rows were deleted. Nothing needs ids never to come back: the request log pages by
-- (created_at, id), and folding (usage.fold) deletes rows up to a (created_at, id) boundary days in the past, so a
-- reused id always comes with a later created_at than its first owner had.
-- SQLite cannot drop AUTOINCREMENT in place: the table is rebuilt, its rows and indexes as they were.
CREATE TABLE `usage_records_by_rowid` (
	`id` integer PRIMARY KEY NOT NULL,
	`request_id` text NOT NULL,
	`account_id` integer NOT NULL,
	`key_id` text NOT NULL,
	`model` text NOT NULL,
	`provider` text NOT NULL,
	`upstream_model` text NOT NULL,
	`protocol` text NOT NULL,
	`input_tokens` integer NOT NULL,
	`cached_input_tokens` integer NOT NULL,
	`cache_write_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`reasoning_tokens` integer NOT NULL,
	`cost` integer NOT NULL,
	`status` integer NOT NULL,
	`error_type` text,
	`latency_ms` integer NOT NULL,
	`stream` integer NOT NULL,
	`estimated` integer NOT NULL,
	`created_at` integer NOT NULL,
	`operation` text DEFAULT 'chat' NOT NULL,
	`units` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `usage_records_by_rowid` (`id`, `request_id`, `account_id`, `key_id`, `model`, `provider`, `upstream_model`, `protocol`,
	`input_tokens`, `cached_input_tokens`, `cache_write_tokens`, `output_tokens`, `reasoning_tokens`, `cost`, `status`, `error_type`,
	`latency_ms`, `stream`, `estimated`, `created_at`, `operation`, `units`)
SELECT `id`, `request_id`, `account_id`, `key_id`, `model`, `provider`, `upstream_model`, `protocol`, `input_tokens`,
	`cached_input_tokens`, `cache_write_tokens`, `output_tokens`, `reasoning_tokens`, `cost`, `status`, `error_type`, `latency_ms`,
	`stream`, `estimated`, `created_at`, `operation`, `units` FROM `usage_records`;
--> statement-breakpoint
DROP TABLE `usage_records`;
--> statement-breakpoint
ALTER TABLE `usage_records_by_rowid` RENAME TO `usage_records`;
--> statement-breakpoint
DELETE FROM `sqlite_sequence` WHERE `name` = 'usage_records';
--> statement-breakpoint
CREATE INDEX `usage_account_time` ON `usage_records` (`account_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `usage_key_time` ON `usage_records` (`key_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `usage_time` ON `usage_records` (`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `usage_model_time` ON `usage_records` (`model`,`created_at`,`id`);
--> statement-breakpoint
-- Nothing on SQLite reads a hold by its age (one server per file, and the next one releases every hold it finds,
-- db/sqlite/ledger.ts), yet each hold's insert and delete rewrote this index's page: one page fewer a reservation
-- and a bill. PostgreSQL's instances do look for stale holds by age and keep theirs.
DROP INDEX `holds_created`;
