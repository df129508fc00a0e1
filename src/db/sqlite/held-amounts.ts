/**
 * What each of this server's leases still holds, kept in memory on SQLite instead of in its hold row.
 *
 * On SQLite a hold row is never read for its amount by anyone else: one server serves a file (sqlite/serve-lock.ts),
 * and its next start gives back every reservation a crash left by zeroing `reserved` (ledger.ts, startServing). So
 * the row is written when a lease is reserved (or grows) and deleted when the lease is released, and a bill no longer
 * shrinks it: at 400 requests a second, each arriving alone, the hold row's page was one of the four pages of WAL a
 * bill commits (docs/capacity.md, thirteenth round). The row still says the lease is alive: a bill or release for a
 * lease whose row another start deleted gives nothing back (`alive`), as a vanished row did before.
 *
 * Amounts change only with a commit: a transaction (a reservation or a write) records its changes here as pending
 * (`grant`, `take`, `drop`) and they count once it has committed (`committed`); a transaction that throws was rolled
 * back, and the next one's `begin` forgets what it recorded.
 */
export class HeldAmounts {
  private readonly held = new Map<string, number>()
  /** Changes of the transaction in progress: the new amount, or null for a lease given up. */
  private readonly pending = new Map<string, number | null>()

  /** A transaction begins. */
  begin(): void {
    this.pending.clear()
  }

  /** What the lease holds now, this transaction's changes included (undefined: nothing known of it). */
  remaining(leaseId: string): number | undefined {
    const change = this.pending.get(leaseId)
    if (change === null) return undefined
    return change ?? this.held.get(leaseId)
  }

  /** The lease is granted `amount` more in this transaction; when its hold row is new, that is all it holds. */
  grant(leaseId: string, amount: number, newRow: boolean): void {
    this.pending.set(leaseId, (newRow ? 0 : (this.remaining(leaseId) ?? 0)) + amount)
  }

  /** The lease gives up `amount` of its hold in this transaction. */
  take(leaseId: string, amount: number): void {
    this.pending.set(leaseId, (this.remaining(leaseId) ?? 0) - amount)
  }

  /** The lease is gone in this transaction (released, or its row found deleted). */
  drop(leaseId: string): void {
    this.pending.set(leaseId, null)
  }

  /** The transaction committed: its changes count. */
  committed(): void {
    for (const [leaseId, amount] of this.pending) {
      if (amount === null) this.held.delete(leaseId)
      else this.held.set(leaseId, amount)
    }
    this.pending.clear()
  }

  /** Every hold given back at once (a start, holding the serve lock). */
  clear(): void {
    this.held.clear()
    this.pending.clear()
  }
}
