import { Type } from '@sinclair/typebox';
import { ChatCompletionResponse } from '../chat/chat.schema.ts';
import { ChatUsage, StringEnum } from '../shared/common.schema.ts';

/** Image, video and chat task states, exactly as the Java SDK's enum expects them (docs/wire.md §4). */
const taskStatuses = ['PROCESSING', 'SUCCESS', 'FAIL'] as const;

const TaskStatus = StringEnum(taskStatuses, { description: 'PROCESSING, SUCCESS or FAIL.' });

/** Answer of an asynchronous image, video or chat submission (docs/wire.md §4). */
export const AsyncTaskSubmission = Type.Object({
  model: Type.String({ description: 'Model name used.' }),
  id: Type.String({ description: 'Task id; pass it to GET /async-result/{id}.' }),
  request_id: Type.String({ description: 'Client-supplied or platform-generated request id.' }),
  task_status: TaskStatus,
});

/** Why a task failed; present only when task_status is FAIL (a platform error code and message). */
const TaskFailure = Type.Object(
  {
    code: Type.String({ description: 'Platform error code, e.g. 1230 (timed out, or the engine failed), 1301 (unsafe content), 500.' }),
    message: Type.String(),
  },
  { description: 'Present only when task_status is FAIL.' },
);

/** Image variant of GET /async-result/{id} (docs/wire.md §4). */
export const ImageTaskResult = Type.Object(
  {
    model: Type.String(),
    task_status: TaskStatus,
    image_result: Type.Array(Type.Object({ url: Type.String({ description: 'Absolute URL of a generated image.' }) }), {
      description: 'The images once SUCCESS; empty while PROCESSING and on FAIL.',
    }),
    request_id: Type.String(),
    id: Type.Optional(Type.String()),
    error: Type.Optional(TaskFailure),
  },
  { title: 'ImageTaskResult' },
);

/** Video variant of GET /async-result/{id} (docs/wire.md §4). */
export const VideoTaskResult = Type.Object(
  {
    model: Type.String(),
    task_status: TaskStatus,
    video_result: Type.Array(
      Type.Object({
        url: Type.String({ description: 'Absolute URL of the generated video.' }),
        cover_image_url: Type.String({ description: 'Absolute URL of its cover image.' }),
      }),
      { description: 'The video once SUCCESS; empty while PROCESSING and on FAIL.' },
    ),
    request_id: Type.String(),
    id: Type.Optional(Type.String()),
    error: Type.Optional(TaskFailure),
  },
  { title: 'VideoTaskResult' },
);

const chatAnswer = ChatCompletionResponse.properties;

/** Chat variant of GET /async-result/{id} (docs/wire.md §4): the sync answer's fields once SUCCESS. */
export const ChatTaskResult = Type.Object(
  {
    id: Type.String(),
    request_id: Type.String(),
    model: Type.String(),
    task_status: TaskStatus,
    created: Type.Optional(Type.Integer({ description: 'When the answer was made (Unix seconds); once SUCCESS.' })),
    choices: Type.Array(chatAnswer.choices.items, {
      description: 'The answer once SUCCESS, as POST /chat/completions gives it; empty while PROCESSING and on FAIL.',
    }),
    usage: Type.Optional(ChatUsage),
    web_search: chatAnswer.web_search,
    content_filter: chatAnswer.content_filter,
    error: Type.Optional(TaskFailure),
  },
  { title: 'ChatTaskResult' },
);

export const AsyncTaskResult = Type.Union([ImageTaskResult, VideoTaskResult, ChatTaskResult], {
  description: 'The image, video or chat variant, by the kind of task the id names.',
});
