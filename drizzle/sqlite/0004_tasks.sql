CREATE TABLE `task_file_parts` (
	`file_id` text NOT NULL,
	`seq` integer NOT NULL,
	`data` text NOT NULL,
	PRIMARY KEY(`file_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `task_files` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`purpose` text NOT NULL,
	`filename` text NOT NULL,
	`bytes` integer NOT NULL,
	`task_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer
);
--> statement-breakpoint
CREATE INDEX `task_files_account_time` ON `task_files` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `task_files_created` ON `task_files` (`created_at`);--> statement-breakpoint
CREATE TABLE `task_items` (
	`id` text PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`seq` integer NOT NULL,
	`custom_id` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`owner` text,
	`lease_until` integer,
	`not_before` integer DEFAULT 0 NOT NULL,
	`staged` text,
	`result` text,
	`status_code` integer,
	`cost` integer DEFAULT 0 NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `task_items_order` ON `task_items` (`task_id`,`seq`);--> statement-breakpoint
CREATE INDEX `task_items_status` ON `task_items` (`status`,`task_id`,`seq`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`account_id` integer NOT NULL,
	`key_id` text NOT NULL,
	`status` text NOT NULL,
	`endpoint` text NOT NULL,
	`model` text,
	`input_file_id` text,
	`output_file_id` text,
	`error_file_id` text,
	`metadata` text,
	`display_name` text,
	`total` integer NOT NULL,
	`succeeded` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`canceled` integer DEFAULT 0 NOT NULL,
	`expired` integer DEFAULT 0 NOT NULL,
	`spent` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`cancel_requested_at` integer,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tasks_account_time` ON `tasks` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_status` ON `tasks` (`status`);