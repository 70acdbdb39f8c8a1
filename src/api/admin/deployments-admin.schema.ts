import { Type, type Static } from '@sinclair/typebox';

const DeploymentHealth = Type.Object(
  {
    model: Type.String({ description: 'The public model name.' }),
    deployment: Type.String({ description: "The deployment's name (its `name`, else `<model>#<position>`, from 1 in config order)." }),
    backend: Type.String({ description: 'Its engine kind.' }),
    address: Type.Optional(
      Type.String({ description: "The engine's `<host>:<port>` (from its baseUrl); absent for an engine in process. Shown to admin keys only." }),
    ),
    state: Type.Union([Type.Literal('healthy'), Type.Literal('cooling-down'), Type.Literal('not-started')], {
      description: '`cooling-down`: left alone after failures until cooling_until; `not-started`: this node has not called the model yet.',
    }),
    in_flight: Type.Integer({ minimum: 0, description: 'Calls under way on it from this node.' }),
    consecutive_failures: Type.Integer({ minimum: 0 }),
    cooling_until: Type.Optional(Type.Integer({ description: 'While cooling down: when it may be tried again (Unix ms).' })),
    last_error: Type.Optional(Type.String({ description: 'What its last failure said.' })),
  },
  { additionalProperties: false },
);

export const DeploymentHealthList = Type.Object({
  object: Type.Literal('list'),
  /** Health is seen by each node on its own: the node answering. */
  data: Type.Array(DeploymentHealth),
});

export type DeploymentHealthObject = Static<typeof DeploymentHealth>;
