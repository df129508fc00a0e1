CREATE TABLE "usage_daily" (
	"day" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"key_id" text NOT NULL,
	"model" text NOT NULL,
	"status" integer NOT NULL,
	"requests" bigint NOT NULL,
	"input_tokens" bigint NOT NULL,
	"cached_input_tokens" bigint NOT NULL,
	"cache_write_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"reasoning_tokens" bigint NOT NULL,
	"cost" bigint NOT NULL,
	CONSTRAINT "usage_daily_day_account_id_key_id_model_status_pk" PRIMARY KEY("day","account_id","key_id","model","status")
);
--> statement-breakpoint
CREATE INDEX "usage_daily_account_day" ON "usage_daily" USING btree ("account_id","day");--> statement-breakpoint
CREATE INDEX "usage_daily_key_day" ON "usage_daily" USING btree ("key_id","day");
