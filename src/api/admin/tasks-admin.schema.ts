import { Type, type Static } from '@sinclair/typebox';

/** GET /admin/tasks: async tasks newest first, a page at a time. */
export const TaskListQuery = Type.Object({
  key_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "Only this key's tasks. A key that is not admin may name only itself." })),
  status: Type.Optional(Type.Union([Type.Literal('PROCESSING'), Type.Literal('SUCCESS'), Type.Literal('FAIL')])),
  kind: Type.Optional(Type.String({ pattern: '^[a-z_]{1,32}$', description: 'image, video or chat.' })),
  limit: Type.Optional(Type.String({ pattern: '^(?:[1-9]|[1-9][0-9]|100)$', description: 'Tasks per page, 1-100 (default 20).' })),
  after: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}\\.[A-Za-z0-9_-]{1,64}$', description: "The previous page's next_cursor." })),
});

const TaskMedia = Type.Object({
  type: Type.Union([Type.Literal('image'), Type.Literal('video')]),
  url: Type.String({ description: 'Signed download URL; expires.' }),
  cover_image_url: Type.Optional(Type.String()),
});

export const TaskListItem = Type.Object({
  id: Type.String(),
  object: Type.Literal('task'),
  kind: Type.String(),
  model: Type.String(),
  key_id: Type.String({ description: 'The key that submitted it.' }),
  request_id: Type.String(),
  task_status: Type.Union([Type.Literal('PROCESSING'), Type.Literal('SUCCESS'), Type.Literal('FAIL')]),
  attempts: Type.Integer({ description: 'Runs started so far.' }),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], { description: 'Why it failed, once FAIL.' }),
  created_at: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  updated_at: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  deadline_at: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  media: Type.Array(TaskMedia, { description: 'Generated images and videos of a successful task.' }),
});
export type TaskListItem = Static<typeof TaskListItem>;

export const TaskList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(TaskListItem),
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page; null on the last.' }),
});
