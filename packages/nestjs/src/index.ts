/**
 * NestJS module, guards, decorators and exception filter for Keyward: conversion only, on
 * platform-express and platform-fastify. Every decision (which header, which status, which
 * message) is `@keyward/core`'s.
 *
 * @packageDocumentation
 */
export {
  KeywardAuth,
  KeywardGuard,
  KeywardRefusal,
  RequireBearer,
  RequireDeveloper,
  RequireElevated,
  RequireKey,
  RequireProject,
} from './guard.js'
export {
  KeywardExceptionFilter,
  KeywardModule,
  type KeywardModuleAsyncOptions,
} from './module.js'
export { KEYWARD, KEYWARD_OPTIONS, type KeywardModuleOptions } from './options.js'
export { send, toKeywardRequest } from './request.js'
