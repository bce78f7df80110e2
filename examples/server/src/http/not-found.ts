import { ErrorType, echoValue, KeywardError } from '@keyward/core'

/** 404 `not_found` for the request's project, as the key service words it. */
export const projectNotFound = (projectId: string): KeywardError =>
  new KeywardError(ErrorType.notFound, `Project ${echoValue(projectId)} was not found.`, [
    'path',
    'project_id',
  ])
