-- Issue 27: a project's address rules. Its keys are checked against their own list and this one: an address must pass
-- every list that applies. allowed_ips: a JSON array of addresses and CIDR blocks, or NULL for every address.
ALTER TABLE "projects" ADD "allowed_ips" text;
