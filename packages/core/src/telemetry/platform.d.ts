// The clock of spans: `performance.now()` exists in Node 20+, Bun, Deno, browsers and edge workers.
declare var performance: { now(): number }
