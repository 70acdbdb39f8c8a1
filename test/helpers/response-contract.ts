import { AssertionError } from 'node:assert';
import type { ResponseMismatch, ResponseMismatchReporter } from '../../src/http/response-validation.ts';

/**
 * Collects the answers of a test app that do not match their routes' response schemas
 * (`buildApp({ ..., onResponseMismatch: contract.report })`); `assertKept` fails the test with
 * every one of them. The test platforms call it when they close.
 */
export class ResponseContract {
  readonly mismatches: ResponseMismatch[] = [];

  readonly report: ResponseMismatchReporter = (mismatch) => {
    this.mismatches.push(mismatch);
  };

  assertKept(): void {
    if (this.mismatches.length === 0) return;
    const lines = this.mismatches.map(
      (mismatch) => `${mismatch.route} ${mismatch.statusCode} ${mismatch.part}: ${mismatch.problem}\n    sent: ${mismatch.excerpt}`,
    );
    throw new AssertionError({ message: `${this.mismatches.length} answer(s) do not match their response schemas:\n  ${lines.join('\n  ')}` });
  }
}
