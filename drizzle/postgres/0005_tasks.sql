CREATE TABLE "task_file_parts" (
	"file_id" text NOT NULL,
	"seq" integer NOT NULL,
	"data" text NOT NULL,
	CONSTRAINT "task_file_parts_file_id_seq_pk" PRIMARY KEY("file_id","seq")
);
--> statement-breakpoint
CREATE TABLE "task_files" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"purpose" text NOT NULL,
	"filename" text NOT NULL,
	"bytes" bigint NOT NULL,
	"task_id" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint
);
--> statement-breakpoint
CREATE TABLE "task_items" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"seq" integer NOT NULL,
	"custom_id" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"owner" text,
	"lease_until" bigint,
	"not_before" bigint DEFAULT 0 NOT NULL,
	"staged" text,
	"result" text,
	"status_code" integer,
	"cost" bigint DEFAULT 0 NOT NULL,
	"started_at" bigint,
	"finished_at" bigint
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"account_id" bigint NOT NULL,
	"key_id" text NOT NULL,
	"status" text NOT NULL,
	"endpoint" text NOT NULL,
	"model" text,
	"input_file_id" text,
	"output_file_id" text,
	"error_file_id" text,
	"metadata" text,
	"display_name" text,
	"total" integer NOT NULL,
	"succeeded" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"canceled" integer DEFAULT 0 NOT NULL,
	"expired" integer DEFAULT 0 NOT NULL,
	"spent" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"started_at" bigint,
	"finished_at" bigint,
	"cancel_requested_at" bigint,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "task_files_account_time" ON "task_files" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "task_files_created" ON "task_files" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "task_items_order" ON "task_items" USING btree ("task_id","seq");--> statement-breakpoint
CREATE INDEX "task_items_status" ON "task_items" USING btree ("status","task_id","seq");--> statement-breakpoint
CREATE INDEX "tasks_account_time" ON "tasks" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tasks_status" ON "tasks" USING btree ("status");