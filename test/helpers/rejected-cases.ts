import { it } from 'node:test';
import { assertPlatformError } from './error-assertions.ts';
import { postJson, type TestPlatform } from './test-platform.ts';

/** A JSON body that breaks one rule, the code it must get, and the field the message must name. */
export interface RejectedCase {
  readonly name: string;
  readonly body: unknown;
  readonly code: string;
  readonly field: string;
}

/** One test per case: POST the body, expect 400 with the code and the field named. */
export function itRejectsEach(test: () => TestPlatform, url: string, cases: readonly RejectedCase[]): void {
  for (const testCase of cases) {
    it(`rejects: ${testCase.name}`, async () => {
      const response = await postJson(test(), url, testCase.body);
      assertPlatformError(response, { status: 400, code: testCase.code, mentions: [testCase.field] });
    });
  }
}
