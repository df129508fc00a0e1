-- Issue 23: a bill committed alone writes its usage row without touching the four usage indexes.
-- Each index is a page of WAL (two pwrites) and ~3.2 µs of a bill that commits alone, as requests arriving one by one
-- do (docs/capacity.md, eleventh round). So the indexed table becomes `usage_log`, bills go into `usage_inbox`, a
-- table with no index, and the ledger moves the inbox into the log in batches (db/sqlite/usage-inbox.ts), where an
-- index page takes many rows at once. Readers read `usage_records`, now a view of both: every row is in exactly one
-- table, in the log once it is moved, in the inbox until then, so a count, a sum or a page of the request log is the
-- same either way — also read straight from the file after a crash, before any server moves anything.
-- A row keeps its id when it moves: ids are handed out over both tables (max of both + 1, inside the writing
-- transaction), so they never collide.
ALTER TABLE `usage_records` RENAME TO `usage_log`;
--> statement-breakpoint
CREATE TABLE `usage_inbox` (
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
CREATE VIEW `usage_records` AS
SELECT `id`, `request_id`, `account_id`, `key_id`, `model`, `provider`, `upstream_model`, `protocol`, `input_tokens`,
	`cached_input_tokens`, `cache_write_tokens`, `output_tokens`, `reasoning_tokens`, `cost`, `status`, `error_type`, `latency_ms`,
	`stream`, `estimated`, `created_at`, `operation`, `units` FROM `usage_log`
UNION ALL
SELECT `id`, `request_id`, `account_id`, `key_id`, `model`, `provider`, `upstream_model`, `protocol`, `input_tokens`,
	`cached_input_tokens`, `cache_write_tokens`, `output_tokens`, `reasoning_tokens`, `cost`, `status`, `error_type`, `latency_ms`,
	`stream`, `estimated`, `created_at`, `operation`, `units` FROM `usage_inbox`;
--> statement-breakpoint
-- Rows written to `usage_records` by anything but the ledger (tools, tests, an older script) land in the inbox with
-- an id over both tables, and the columns' defaults (a view has none of its own). An id the log already has is
-- refused as a table's primary key would refuse it: in the inbox it would make every later move fail.
CREATE TRIGGER `usage_records_insert` INSTEAD OF INSERT ON `usage_records`
BEGIN
	SELECT RAISE(ABORT, 'UNIQUE constraint failed: usage_records.id') WHERE NEW.`id` IN (SELECT `id` FROM `usage_log`);
	INSERT INTO `usage_inbox` (`id`, `request_id`, `account_id`, `key_id`, `model`, `provider`, `upstream_model`, `protocol`,
		`input_tokens`, `cached_input_tokens`, `cache_write_tokens`, `output_tokens`, `reasoning_tokens`, `cost`, `status`, `error_type`,
		`latency_ms`, `stream`, `estimated`, `created_at`, `operation`, `units`)
	VALUES (
		coalesce(NEW.`id`, max(coalesce((SELECT max(`id`) FROM `usage_log`), 0), coalesce((SELECT max(`id`) FROM `usage_inbox`), 0)) + 1),
		NEW.`request_id`, NEW.`account_id`, NEW.`key_id`, NEW.`model`, NEW.`provider`, NEW.`upstream_model`, NEW.`protocol`,
		NEW.`input_tokens`, NEW.`cached_input_tokens`, NEW.`cache_write_tokens`, NEW.`output_tokens`, NEW.`reasoning_tokens`, NEW.`cost`,
		NEW.`status`, NEW.`error_type`, NEW.`latency_ms`, NEW.`stream`, NEW.`estimated`, NEW.`created_at`,
		coalesce(NEW.`operation`, 'chat'), coalesce(NEW.`units`, 0)
	);
END;
