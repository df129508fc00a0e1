CREATE TABLE "accounts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"reserved" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "accounts_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"name" text,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"models" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"revoked_at" bigint,
	"last_used_at" bigint,
	"rpm" integer,
	"tpm" integer,
	"concurrency" integer,
	"budget" bigint,
	"expires_at" bigint,
	"spent" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "api_keys_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "holds" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"key_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"amount" bigint NOT NULL,
	"balance_after" bigint NOT NULL,
	"note" text NOT NULL,
	"actor" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"account_id" bigint NOT NULL,
	"key_id" text NOT NULL,
	"model" text NOT NULL,
	"provider" text NOT NULL,
	"upstream_model" text NOT NULL,
	"protocol" text NOT NULL,
	"input_tokens" integer NOT NULL,
	"cached_input_tokens" integer NOT NULL,
	"cache_write_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"reasoning_tokens" integer NOT NULL,
	"cost" bigint NOT NULL,
	"status" integer NOT NULL,
	"error_type" text,
	"latency_ms" integer NOT NULL,
	"stream" boolean NOT NULL,
	"estimated" boolean NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "holds" ADD CONSTRAINT "holds_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_updated" ON "api_keys" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "api_keys_account" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "holds_created" ON "holds" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_account_time" ON "ledger_entries" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "usage_account_time" ON "usage_records" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "usage_key_time" ON "usage_records" USING btree ("key_id","created_at","id");--> statement-breakpoint
CREATE INDEX "usage_time" ON "usage_records" USING btree ("created_at","id");