import { Type, type Static } from '@sinclair/typebox';

export const ModelFileObject = Type.Object(
  {
    uri: Type.String({ description: 'The file on the hub: hf://<owner>/<repo>/<file>@<revision>.' }),
    path: Type.String({ description: 'Where it is (or will be) on this node.' }),
    bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Its size once in place; null before.' }),
    state: Type.Union([Type.Literal('ready'), Type.Literal('downloading'), Type.Literal('failed'), Type.Literal('missing')], {
      description: '`missing`: not fetched (MODEL_PLATFORM_PULL=off, or not yet tried); `failed`: the last try failed, see error.',
    }),
    downloaded_bytes: Type.Integer({ minimum: 0 }),
    total_bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'The size the hub states, once known.' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last download failed.' }),
  },
  { additionalProperties: false },
);

export const ModelFileList = Type.Object({ data: Type.Array(ModelFileObject) });

export type ModelFileObject = Static<typeof ModelFileObject>;
