// app/api/v1/[...path]/route.ts
import { keywardHandler } from '@keyward/fetch'
import { keyward } from '@/lib/keyward'

// The key endpoints under /api/v1: the developer key of dev_1 creates, lists and revokes keys of
// proj_1. Any other path under /api/v1 answers 404 in the error format.
const handler = keywardHandler(keyward)

export { handler as DELETE, handler as GET, handler as POST }
