import { Type, type Static } from '@sinclair/typebox';

/** GET /paas/v4/async-result/{id}: the task id a submission returned. */
export const AsyncResultParams = Type.Object({
  id: Type.String({ minLength: 1, description: 'Task id returned by an asynchronous image, video or chat submission.' }),
});

export type AsyncResultParams = Static<typeof AsyncResultParams>;
