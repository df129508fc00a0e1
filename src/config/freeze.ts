/** Every object and list inside, frozen too: a config is read by many parts at once and none of them may change it. */
export function freezeDeeply<Value>(value: Value): Value {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) freezeDeeply(item)
    Object.freeze(value)
  }
  return value
}
