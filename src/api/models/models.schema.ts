import { Type, type Static } from '@sinclair/typebox';

/** One model in the OpenAI list shape that OpenAI-compatible clients fill their model pickers from. */
export const ModelObject = Type.Object({
  id: Type.String({ description: 'The model name to send as `model`.' }),
  object: Type.Literal('model'),
  created: Type.Integer({ description: 'Unix timestamp, seconds: when this server started serving the model.' }),
  owned_by: Type.String({ description: 'Who serves the model: always model-platform.' }),
});

export type ModelObject = Static<typeof ModelObject>;

/** GET /paas/v4/models. */
export const ModelList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(ModelObject),
});

export type ModelList = Static<typeof ModelList>;

/** GET /paas/v4/models/{id}. */
export const ModelIdParams = Type.Object({
  id: Type.String({ minLength: 1, description: 'Model name.' }),
});
