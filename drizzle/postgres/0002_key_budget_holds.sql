ALTER TABLE "api_keys" ADD COLUMN "reserved" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "budget_key_id" text;