-- Projects (a group of an account's keys with shared models and limits) and budgets on a schedule (domain/budgets).
CREATE TABLE "projects" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL REFERENCES "accounts"("id"),
	"name" text NOT NULL,
	"models" text,
	"rpm" integer,
	"tpm" integer,
	"concurrency" integer,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "projects_account_name" ON "projects" USING btree ("account_id","name");--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "project_id" bigint REFERENCES "projects"("id");--> statement-breakpoint
CREATE INDEX "api_keys_project" ON "api_keys" USING btree ("project_id");--> statement-breakpoint
-- scope: account, project (project_id set) or key (key_id set); period: day, week, month, total or a length (5h).
CREATE TABLE "budgets" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL REFERENCES "accounts"("id"),
	"scope" text NOT NULL,
	"project_id" bigint REFERENCES "projects"("id"),
	"key_id" text,
	"amount" bigint NOT NULL,
	"period" text NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "budgets_account" ON "budgets" USING btree ("account_id");--> statement-breakpoint
-- One row per budget and period (its start, epoch ms; 0 for total): spent and held, computed from time, no reset job.
CREATE TABLE "budget_periods" (
	"budget_id" bigint NOT NULL,
	"period_start" bigint NOT NULL,
	"spent" bigint DEFAULT 0 NOT NULL,
	"reserved" bigint DEFAULT 0 NOT NULL,
	PRIMARY KEY("budget_id", "period_start")
);
--> statement-breakpoint
-- The budget periods a hold counts against ("budget:start,…"), so its bill settles against the period it was admitted in.
ALTER TABLE "holds" ADD COLUMN "budget_periods" text;
