CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "instance_id" text;