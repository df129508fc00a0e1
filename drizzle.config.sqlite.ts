import { defineConfig } from 'drizzle-kit'

// `bunx drizzle-kit generate --config drizzle.config.sqlite.ts` writes a new migration after a schema change;
// src/db/sqlite/migrations.ts embeds the SQL files into the binary.
export default defineConfig({ dialect: 'sqlite', schema: './src/db/sqlite/schema.ts', out: './drizzle/sqlite' })
