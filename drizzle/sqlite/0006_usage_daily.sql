CREATE TABLE `usage_daily` (
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
	PRIMARY KEY(`day`, `account_id`, `key_id`, `model`, `status`)
);
--> statement-breakpoint
CREATE INDEX `usage_daily_account_day` ON `usage_daily` (`account_id`,`day`);--> statement-breakpoint
CREATE INDEX `usage_daily_key_day` ON `usage_daily` (`key_id`,`day`);
