/**
 * @internal The parameters of a statement written to the shape of one query (only the conditions
 * it has): `add` appends a value and returns its placeholder, cast to `type`.
 */
export function statementParams(first: readonly unknown[]) {
  const values = [...first]
  const add = (value: unknown, type: string) => {
    values.push(value)
    return `$${values.length}::${type}`
  }
  return { values, add }
}
