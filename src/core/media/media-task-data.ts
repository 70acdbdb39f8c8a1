import { Type, type Static } from '@sinclair/typebox';
import { StoredTaskData } from '../tasks/stored-task-data.ts';

/**
 * What the `image` and `video` tasks keep in the task store, as schemas: the routes write the
 * requests, the handlers the results, and every reader goes through these (a row that does not
 * match fails its own task, with the reason).
 */

const ImageJobSchema = Type.Object({
  model: Type.String(),
  prompt: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  quality: Type.Union([Type.Literal('hd'), Type.Literal('standard')]),
});

// Extra fields are allowed: an agent's video task adds its own (effect-video-agent.ts).
const VideoJobSchema = Type.Object({
  model: Type.String(),
  prompt: Type.Optional(Type.String()),
  images: Type.Array(Type.Object({ key: Type.String(), contentType: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg')]) })),
  quality: Type.Union([Type.Literal('speed'), Type.Literal('quality')]),
  withAudio: Type.Boolean(),
  size: Type.Optional(Type.String()),
  fps: Type.Union([Type.Literal(30), Type.Literal(60)]),
  durationSeconds: Type.Union([Type.Literal(5), Type.Literal(10)]),
});

/** What an `image` task's result holds: blob keys; GET /async-result turns them into download URLs. */
export const StoredImageResult = Type.Object({ images: Type.Array(Type.Object({ key: Type.String() })) });
export type StoredImageResult = Static<typeof StoredImageResult>;

/** What a `video` task's result holds: the video's and its cover's blob keys. */
export const StoredVideoResult = Type.Object({ videos: Type.Array(Type.Object({ key: Type.String(), coverKey: Type.String() })) });
export type StoredVideoResult = Static<typeof StoredVideoResult>;

export const imageTaskRequest = new StoredTaskData('request', ImageJobSchema);
export const videoTaskRequest = new StoredTaskData('request', VideoJobSchema);
export const imageTaskResult = new StoredTaskData('result', StoredImageResult);
export const videoTaskResult = new StoredTaskData('result', StoredVideoResult);
