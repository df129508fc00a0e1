-- Issue 27: per-key address rules, and the alerts (webhooks) an account is told of.
-- allowed_ips: a JSON array of addresses and CIDR blocks, or NULL for every address.
ALTER TABLE "api_keys" ADD "allowed_ips" text;--> statement-breakpoint
-- A webhook: where an account's alerts go. The secret signs every delivery, so it is kept as it was made (see
-- db/webhook-rows.ts); project_id is for a project's own webhooks (NULL: the whole account).
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL REFERENCES "accounts"("id"),
	"project_id" text,
	"url" text NOT NULL,
	"secret" text NOT NULL,
	"events" text NOT NULL,
	"balance_below" bigint,
	"expiry_days" integer NOT NULL,
	"budget_percents" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "webhooks_account" ON "webhooks" ("account_id");--> statement-breakpoint
-- One delivery per webhook and occasion: the unique dedupe key is what sends a threshold at most once per period,
-- whichever instance (or how many) noticed it.
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"account_id" bigint NOT NULL,
	"event" text NOT NULL,
	"dedupe_key" text NOT NULL,
	"payload" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL DEFAULT 0,
	"next_attempt_at" bigint NOT NULL,
	"first_attempt_at" bigint,
	"last_attempt_at" bigint,
	"last_status" integer,
	"last_error" text,
	"claimed_by" text,
	"claimed_until" bigint,
	"created_at" bigint NOT NULL,
	"delivered_at" bigint
);
--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_once" ON "webhook_deliveries" ("webhook_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due" ON "webhook_deliveries" ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_account" ON "webhook_deliveries" ("account_id","created_at");
