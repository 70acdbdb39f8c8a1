import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: projectRoot });

/** The no-restricted-imports messages ESLint gives `source` as if it were the file at `filePath` (nothing is written). */
async function boundaryErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  assert.ok(result !== undefined);
  return result.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

describe('layer boundaries (eslint.config.js)', () => {
  it('refuses an import from src/http, src/api or src/backends in src/core, at any depth', async () => {
    const crossings: [filePath: string, source: string, folder: string][] = [
      ['src/core/chat/probe.ts', "import { abortOnDisconnect } from '../../http/client-abort.ts';\nexport const probe = abortOnDisconnect;\n", 'http'],
      ['src/core/backends/probe.ts', "import type { App } from '../../http/app-types.ts';\nexport type Probe = App;\n", 'http'],
      ['src/core/probe.ts', "export { registerChatRoutes } from '../api/chat/chat.route.ts';\n", 'api'],
      [
        'src/core/models/deeper/probe.ts',
        "import { backendFactories } from '../../../backends/index.ts';\nexport const probe = backendFactories;\n",
        'backends',
      ],
    ];
    for (const [filePath, source, folder] of crossings) {
      const errors = await boundaryErrors(filePath, source);
      assert.equal(errors.length, 1, `${filePath}: ${source}`);
      assert.match(errors[0] ?? '', new RegExp(`src/core must not import from src/${folder}`));
    }
  });

  it('refuses an import from src/api or src/http in src/backends', async () => {
    const crossings: [source: string, folder: string][] = [
      ["import { toChatRequest } from '../../api/chat/chat-request.mapper.ts';\nexport const probe = toChatRequest;\n", 'api'],
      ["import { abortOnDisconnect } from '../../http/client-abort.ts';\nexport const probe = abortOnDisconnect;\n", 'http'],
    ];
    for (const [source, folder] of crossings) {
      const errors = await boundaryErrors('src/backends/zai/probe.ts', source);
      assert.equal(errors.length, 1, source);
      assert.match(errors[0] ?? '', new RegExp(`src/backends must not import from src/${folder}`));
    }
  });

  it("refuses an import of another engine kind's folder in src/backends, from a kind or from engine-http", async () => {
    const crossings: [filePath: string, source: string, kind: string][] = [
      [
        'src/backends/zai/probe.ts',
        "import { createOpenAiCompatibleBackend } from '../openai-compatible/openai-compatible.backend.ts';\nexport const probe = createOpenAiCompatibleBackend;\n",
        'openai-compatible',
      ],
      ['src/backends/searxng/probe.ts', "export { LocalIndexSearcher } from '../local-index/local-index-searcher.ts';\n", 'local-index'],
      ['src/backends/engine-http/probe.ts', "import { zaiHttpError } from '../zai/zai-error.ts';\nexport const probe = zaiHttpError;\n", 'zai'],
      [
        'src/backends/glm-ocr/deeper/probe.ts',
        "import type { PaddleOcrSettings } from '../../paddle-ocr/paddle-ocr-settings.ts';\nexport type Probe = PaddleOcrSettings;\n",
        'paddle-ocr',
      ],
    ];
    for (const [filePath, source, kind] of crossings) {
      const errors = await boundaryErrors(filePath, source);
      assert.equal(errors.length, 1, `${filePath}: ${source}`);
      assert.match(errors[0] ?? '', new RegExp(`an engine kind must not import from src/backends/${kind}: .* src/backends/engine-http`));
    }
  });

  it('lets imports go the right way: core from core (its engine client included), backends and routes from core, a kind from engine-http and its own folder, the kinds list from every kind', async () => {
    const allowed: [filePath: string, source: string][] = [
      ['src/core/chat/probe.ts', "import { readSseData } from '../http/read-sse.ts';\nexport const probe = readSseData;\n"],
      ['src/core/chat/probe.ts', "import type { ChatRequest } from './chat-types.ts';\nexport type Probe = ChatRequest;\n"],
      ['src/backends/zai/probe.ts', "import type { ChatRequest } from '../../core/chat/chat-types.ts';\nexport type Probe = ChatRequest;\n"],
      ['src/backends/zai/probe.ts', "import { postJson } from '../engine-http/engine-request.ts';\nexport const probe = postJson;\n"],
      ['src/backends/zai/probe.ts', "import { zaiHttpError } from './zai-error.ts';\nexport const probe = zaiHttpError;\n"],
      ['src/backends/probe.ts', "export { createZaiBackend } from './zai/zai.backend.ts';\n"],
      ['src/api/chat/probe.ts', "import { abortOnDisconnect } from '../../http/client-abort.ts';\nexport const probe = abortOnDisconnect;\n"],
    ];
    for (const [filePath, source] of allowed) assert.deepEqual(await boundaryErrors(filePath, source), [], `${filePath}: ${source}`);
  });
});
