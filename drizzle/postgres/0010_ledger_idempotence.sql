-- A bill replayed from an instance's spool (or a batch written again after its answer was lost) must be a no-op when
-- it is already committed: one usage row per request id, enforced.
CREATE UNIQUE INDEX "usage_request" ON "usage_records" USING btree ("request_id");
--> statement-breakpoint
-- Batches of lease releases applied so far (pruned after a day): a release carries no request id, so a batch written
-- again after a lost answer is recognised by its own id.
CREATE TABLE "ledger_batches" (
	"id" text PRIMARY KEY NOT NULL,
	"applied_at" bigint NOT NULL
);
