-- Batches of lease releases applied so far (pruned after a day): a release carries no request id, so a batch written
-- again after its first answer was lost is recognised by its own id. (Bills are recognised by their request id,
-- looked up through usage_account_time: a unique index on request_id cost ~20 µs per request here, bench/compare.ts.)
CREATE TABLE `ledger_batches` (
	`id` text PRIMARY KEY NOT NULL,
	`applied_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ledger_batches_time` ON `ledger_batches` (`applied_at`);
