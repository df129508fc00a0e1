ALTER TABLE `api_keys` ADD `reserved` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `holds` ADD `budget_key_id` text;