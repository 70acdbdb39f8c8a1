import { ApiError, invalidField, missingField } from '../core/errors/api-error.ts';
import { quoteClientValue } from '../core/errors/quote-client-value.ts';

/** The parts of an Ajv error this mapping reads. */
export interface SchemaViolation {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
  readonly message?: string | undefined;
}

/**
 * Turns schema violations into the platform error: 1213 naming a missing field, 1214 naming the
 * invalid field and the rule it broke, or the unknown field.
 */
export function violationToApiError(violations: readonly SchemaViolation[]): ApiError {
  const first = pickViolation(violations);
  if (first === undefined) return new ApiError('1210');
  const path = fieldPath(first.instancePath);
  if (first.keyword === 'required') {
    return missingField(joinPath(path, String(first.params['missingProperty'])));
  }
  // Named, so the caller sees which field to drop (the name is the caller's: quoted and capped).
  if (first.keyword === 'additionalProperties') {
    return invalidField(joinPath(path, quoteClientValue(String(first.params['additionalProperty']))), 'not a known field');
  }
  if (path === '') return new ApiError('1210', 'The request body must be a JSON object.');
  return invalidField(path, describeRule(first, violations));
}

/** The first violation, except that inside an `anyOf` the most telling branch failure wins. */
function pickViolation(violations: readonly SchemaViolation[]): SchemaViolation | undefined {
  const union = violations.find((violation) => violation.keyword === 'anyOf');
  if (union === undefined) return violations[0];
  const branches = violations.filter((violation) => violation !== union && violation.instancePath.startsWith(union.instancePath));
  // A branch that failed on something other than the value's type matched the value's shape.
  const specific = branches.filter((violation) => violation.keyword !== 'type');
  return specific.sort((left, right) => right.instancePath.length - left.instancePath.length)[0] ?? union;
}

function describeRule(violation: SchemaViolation, all: readonly SchemaViolation[]): string {
  const params = violation.params;
  switch (violation.keyword) {
    case 'enum':
      return `must be one of ${(params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params['allowedValue'])}`;
    case 'anyOf': {
      const types = all
        .filter((other) => other.keyword === 'type' && other.instancePath === violation.instancePath)
        .map((other) => String(other.params['type']));
      return types.length > 0 ? `must be of type ${[...new Set(types)].join(' or ')}` : 'does not match any allowed form';
    }
    default:
      return violation.message ?? `breaks the '${violation.keyword}' rule`;
  }
}

/** `/messages/0/role` → `messages[0].role`. */
function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : joinPath(path, segment)), '');
}

function joinPath(left: string, right: string): string {
  if (left === '') return right;
  if (right === '') return left;
  return `${left}.${right}`;
}
