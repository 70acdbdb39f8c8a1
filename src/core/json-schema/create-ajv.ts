import AjvCompiler from '@fastify/ajv-compiler';

export type Ajv = AjvCompiler.Ajv;

/**
 * An Ajv 8 set up like Fastify's own (same formats, from the same compiler package), for
 * validating outside a route: `coerceTypes: 'array'` for text values (multipart fields), false to
 * check values exactly as they are (engine output).
 */
export function createAjv(coerceTypes: false | 'array'): Ajv {
  const created: { ajv?: Ajv } = {};
  AjvCompiler()(
    {},
    {
      customOptions: { coerceTypes, useDefaults: false, removeAdditional: false, allErrors: false, strict: false },
      onCreate: (instance) => {
        created.ajv = instance;
      },
    },
  );
  if (created.ajv === undefined) throw new Error('@fastify/ajv-compiler did not create an Ajv instance.');
  return created.ajv;
}
