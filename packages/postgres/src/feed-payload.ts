import type { KeyChangeEvent } from '@keyward/core'

/**
 * @internal The `changed` event of one notification of the change-feed trigger, when it is
 * for `schema`; `null` for another schema's or a payload that is not the trigger's.
 */
export function changeOf(payload: string | undefined, schema: string): KeyChangeEvent | null {
  let parsed: { schema?: unknown; hash?: unknown; id?: unknown; position?: unknown }
  try {
    parsed = JSON.parse(payload ?? '')
  } catch {
    return null
  }
  if (parsed?.schema !== schema || typeof parsed.hash !== 'string') return null
  return {
    type: 'changed',
    hash: parsed.hash,
    ...(typeof parsed.id === 'string' ? { id: parsed.id } : {}),
    ...(typeof parsed.position === 'string' ? { position: parsed.position } : {}),
  }
}
