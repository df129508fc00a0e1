-- The audit log (domain/audit): one row per change, written in the change's transaction.
CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" bigint NOT NULL,
	"action" text NOT NULL,
	"object_type" text NOT NULL,
	"object_id" text,
	"account_id" bigint,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"actor_label" text NOT NULL,
	"address" text,
	"before" text,
	"after" text
);
--> statement-breakpoint
CREATE INDEX "audit_log_time" ON "audit_log" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "audit_log_account_time" ON "audit_log" USING btree ("account_id","at","id");--> statement-breakpoint
CREATE INDEX "audit_log_object_time" ON "audit_log" USING btree ("object_type","object_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_actor_time" ON "audit_log" USING btree ("actor_label","at");--> statement-breakpoint
-- Append-only below the application too: a row is never changed (retention deletes whole rows, nothing updates one).
CREATE FUNCTION "audit_log_refuse_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'the audit log is append-only';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "audit_log_append_only" BEFORE UPDATE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION "audit_log_refuse_update"();
