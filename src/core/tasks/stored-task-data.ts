import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ApiError } from '../errors/api-error.ts';
import type { TaskRecord } from './task.ts';

/** What the task store gives for a request or result column whose text is not JSON: the row is kept, the task fails. */
export class UnparsableJson {
  constructor(readonly reason: string) {}
}

/**
 * The stored request or result of one kind of task, read back through its schema (compiled
 * once): the JSON was written by this platform, but a row can be older than the code, or damaged,
 * and then that one task fails with a message naming what is wrong, instead of a cast hiding it.
 */
export class StoredTaskData<Schema extends TSchema> {
  readonly #check: TypeCheck<Schema>;
  readonly #part: 'request' | 'result';

  constructor(part: 'request' | 'result', schema: Schema) {
    this.#part = part;
    this.#check = TypeCompiler.Compile(schema);
  }

  /** Whether the task's data has this shape. */
  matches(task: TaskRecord): boolean {
    return this.#check.Check(this.#valueOf(task));
  }

  /** The task's data, or an ApiError 500 saying which task cannot be read and why. */
  read(task: TaskRecord): Static<Schema> {
    const value = this.#valueOf(task);
    const cannot = `The stored ${this.#part} of ${task.kind} task '${task.id}' cannot be read`;
    if (value instanceof UnparsableJson) throw new ApiError('500', `${cannot}: it is not JSON (${value.reason}).`);
    if (this.#check.Check(value)) return value;
    const first = this.#check.Errors(value).First();
    throw new ApiError('500', `${cannot}: ${first === undefined ? 'it does not match its schema' : `${first.path || '(root)'} ${first.message}`}.`);
  }

  #valueOf(task: TaskRecord): unknown {
    return this.#part === 'request' ? task.request : task.result;
  }
}
