import { TextField } from './fields.tsx'

type Setter = (value: string) => void

/** What a budget is, in its creation and edit forms alike: its amount, its period and the time zone it counts in. */
export function BudgetFields(props: {
  amount: string
  setAmount: Setter
  period: string
  setPeriod: Setter
  zone: string
  setZone: Setter
}) {
  return (
    <>
      <TextField label="Amount (USD)" value={props.amount} onValue={props.setAmount} inputMode="decimal" required />
      <TextField
        label="Period"
        value={props.period}
        onValue={props.setPeriod}
        required
        hint="day, week, month, total, or a window such as 5h, 30m, 7d"
      />
      <TextField
        label="Time zone"
        value={props.zone}
        onValue={props.setZone}
        hint="For day, week and month: an IANA name such as Europe/Berlin"
      />
    </>
  )
}
