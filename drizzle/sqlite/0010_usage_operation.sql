-- Issue 26: a usage row says which operation it billed (chat, embeddings…) and how much of that operation's own
-- unit it used (embeddings: inputs embedded); rows from before were all chat. Folded days keep the operation too,
-- so usage_daily is rebuilt with it in its key (SQLite cannot change a primary key in place).
ALTER TABLE `usage_records` ADD `operation` text DEFAULT 'chat' NOT NULL;
--> statement-breakpoint
ALTER TABLE `usage_records` ADD `units` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE TABLE `usage_daily_by_operation` (
	`day` integer NOT NULL,
	`account_id` integer NOT NULL,
	`key_id` text NOT NULL,
	`model` text NOT NULL,
	`status` integer NOT NULL,
	`requests` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`cached_input_tokens` integer NOT NULL,
	`cache_write_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`reasoning_tokens` integer NOT NULL,
	`cost` integer NOT NULL,
	`operation` text DEFAULT 'chat' NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `account_id`, `key_id`, `model`, `status`, `operation`)
);
--> statement-breakpoint
INSERT INTO `usage_daily_by_operation` (`day`, `account_id`, `key_id`, `model`, `status`, `requests`, `input_tokens`, `cached_input_tokens`,
	`cache_write_tokens`, `output_tokens`, `reasoning_tokens`, `cost`)
SELECT `day`, `account_id`, `key_id`, `model`, `status`, `requests`, `input_tokens`, `cached_input_tokens`, `cache_write_tokens`,
	`output_tokens`, `reasoning_tokens`, `cost` FROM `usage_daily`;
--> statement-breakpoint
DROP TABLE `usage_daily`;
--> statement-breakpoint
ALTER TABLE `usage_daily_by_operation` RENAME TO `usage_daily`;
--> statement-breakpoint
CREATE INDEX `usage_daily_account_day` ON `usage_daily` (`account_id`,`day`);
--> statement-breakpoint
CREATE INDEX `usage_daily_key_day` ON `usage_daily` (`key_id`,`day`);
