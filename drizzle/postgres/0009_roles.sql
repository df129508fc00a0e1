-- Console roles: a login of the old role 'account' managed its account's keys, which is what 'account-admin' means now
-- (domain/roles.ts); 'viewer' is new and read-only, so no existing login becomes one.
UPDATE "users" SET "role" = 'account-admin' WHERE "role" = 'account';
