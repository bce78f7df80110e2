// For tests: what a rejected promise's KeywardError says, as plain fields.
export async function rejection(promise: Promise<unknown>) {
  try {
    await promise
  } catch (error) {
    const e = error as { type: string; status: number; loc: string[]; msg: string }
    return { type: e.type, status: e.status, loc: e.loc, msg: e.msg }
  }
  throw new Error('expected a rejection')
}
