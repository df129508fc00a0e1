import { defineConfig } from 'drizzle-kit'

// `bunx drizzle-kit generate --config drizzle.config.postgres.ts` writes a new migration after a schema change;
// src/db/postgres/migrations.ts embeds the SQL files into the binary.
export default defineConfig({ dialect: 'postgresql', schema: './src/db/postgres/schema.ts', out: './drizzle/postgres' })
