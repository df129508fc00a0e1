/**
 * A small migrator for SQL embedded in the binary (Drizzle's folder migrator reads files at run time, and a
 * compiled binary has no folder to read). Each migration runs once, inside a transaction, in name order.
 */
export interface Migration {
  name: string
  sql: string
}

export interface MigrationDriver {
  appliedNames(): Promise<Set<string>>
  /** Run the statements and record the name, all in one transaction. */
  apply(migration: Migration, statements: string[]): Promise<void>
}

/** What a run did: the migrations it applied, and whether the database had none before (it was new). */
export interface MigrationRun {
  applied: string[]
  created: boolean
}

export async function runMigrations(driver: MigrationDriver, migrations: Migration[]): Promise<MigrationRun> {
  const applied = await driver.appliedNames()
  const ran: string[] = []
  for (const migration of [...migrations].sort((a, b) => a.name.localeCompare(b.name))) {
    if (applied.has(migration.name)) continue
    const statements = migration.sql
      .split('--> statement-breakpoint')
      .map((part) => part.trim())
      .filter(Boolean)
    await driver.apply(migration, statements)
    ran.push(migration.name)
  }
  return { applied: ran, created: applied.size === 0 && ran.length > 0 }
}
