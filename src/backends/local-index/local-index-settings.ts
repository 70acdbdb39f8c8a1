import { Type, type Static } from '@sinclair/typebox';

/** A model entry of `backend: local-index`: web search on the platform's own index; it takes no settings. */
export const LocalIndexSettingsSchema = Type.Object({ backend: Type.Literal('local-index') }, { additionalProperties: false });

export type LocalIndexSettings = Static<typeof LocalIndexSettingsSchema>;
