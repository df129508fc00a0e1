-- Issue 26: a usage row says which operation it billed (chat, embeddings…) and how much of that operation's own
-- unit it used (embeddings: inputs embedded); rows from before were all chat. Folded days keep the operation too,
-- in usage_daily's key. A constant default adds each column without rewriting the table.
ALTER TABLE "usage_records" ADD COLUMN "operation" text DEFAULT 'chat' NOT NULL;
--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "units" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "operation" text DEFAULT 'chat' NOT NULL;
--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "units" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_day_account_id_key_id_model_status_pk";
--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_day_account_id_key_id_model_status_operation_pk" PRIMARY KEY("day","account_id","key_id","model","status","operation");
