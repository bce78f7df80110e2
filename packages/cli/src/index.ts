/**
 * The `keyward` command line for operators, as a function: `run(argv, io)` resolves to the
 * exit code, with stdin, stdout, stderr, the environment and the store injected.
 *
 * @packageDocumentation
 */

export { EXIT, type ExitCode } from './exit.js'
export type { CliIO, TextSink } from './io.js'
export { run } from './run.js'
export { type OpenedStore, type OpenStore, openStore, STORE_ENV, type StoreLocation } from './store.js'
