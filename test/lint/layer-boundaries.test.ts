import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/** Each source, linted as the file at its path, gets exactly one boundary error, the one `message` gives for its folder. */
async function assertRefused(crossings: [filePath: string, source: string, folder: string][], message: (folder: string) => string): Promise<void> {
  for (const [filePath, source, folder] of crossings) {
    const errors = await boundaryErrors(filePath, source);
    assert.equal(errors.length, 1, `${filePath}: ${source}`);
    assert.ok(errors[0]?.includes(message(folder)), `${filePath}: ${errors[0]}`);
  }
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

  it('refuses an import from src/tools, src/store, src/blobs, src/limits or src/tasks in src/core, naming the port to use', async () => {
    await assertRefused(
      [
        ['src/core/chat/probe.ts', "import { GuardedFetcher } from '../../tools/fetch/guarded-fetcher.ts';\nexport const probe = GuardedFetcher;\n", 'tools'],
        [
          'src/core/knowledge/probe.ts',
          "import { createKnowledgeIndex } from '../../store/knowledge/create-knowledge-index.ts';\nexport const probe = createKnowledgeIndex;\n",
          'store',
        ],
        ['src/core/probe.ts', "export { createBlobStore } from '../blobs/create-blob-store.ts';\n", 'blobs'],
        ['src/core/limits/probe.ts', "import type { Limiter } from '../../limits/limiter.ts';\nexport type Probe = Limiter;\n", 'limits'],
        [
          'src/core/tasks/deeper/probe.ts',
          "import { createTaskService } from '../../../tasks/task-service.ts';\nexport const probe = createTaskService;\n",
          'tasks',
        ],
      ],
      (folder) => `src/core must not import from src/${folder}: name a port in src/core and pass the implementation in from src/platform`,
    );
  });

  it('refuses an import from src/store in src/api', async () => {
    await assertRefused(
      [
        [
          'src/api/chat/probe.ts',
          "import { createKnowledgeIndex } from '../../store/knowledge/create-knowledge-index.ts';\nexport const probe = createKnowledgeIndex;\n",
          'store',
        ],
        ['src/api/probe.ts', "import type { Database } from '../store/database.ts';\nexport type Probe = Database;\n", 'store'],
      ],
      (folder) => `src/api must not import from src/${folder}: name a port in src/core`,
    );
  });

  it('refuses an import from src/api in src/http', async () => {
    await assertRefused(
      [
        ['src/http/probe.ts', "import { registerApiRoutes } from '../api/register-api-routes.ts';\nexport const probe = registerApiRoutes;\n", 'api'],
        ['src/http/deeper/probe.ts', "import { ErrorBody } from '../../api/shared/common.schema.ts';\nexport const probe = ErrorBody;\n", 'api'],
      ],
      (folder) => `src/http must not import from src/${folder}: compose it in src/platform`,
    );
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
      ['src/api/chat/probe.ts', "import type { KnowledgeIndex } from '../../core/knowledge/knowledge-index.ts';\nexport type Probe = KnowledgeIndex;\n"],
      ['src/platform/probe.ts', "import { registerApiRoutes } from '../api/register-api-routes.ts';\nexport const probe = registerApiRoutes;\n"],
      [
        'src/platform/probe.ts',
        "import { createKnowledgeIndex } from '../store/knowledge/create-knowledge-index.ts';\nexport const probe = createKnowledgeIndex;\n",
      ],
      ['src/core/limits/probe.ts', "import { Admission } from './admission.ts';\nexport const probe = Admission;\n"],
    ];
    for (const [filePath, source] of allowed) assert.deepEqual(await boundaryErrors(filePath, source), [], `${filePath}: ${source}`);
  });

  it('has no file in src that switches the layer rule off', async () => {
    const sourceRoot = join(projectRoot, 'src');
    const files = (await readdir(sourceRoot, { recursive: true })).filter((file) => file.endsWith('.ts'));
    const exceptions: string[] = [];
    for (const file of files) {
      if (/eslint-disable[^\n]*no-restricted-imports/.test(await readFile(join(sourceRoot, file), 'utf8'))) exceptions.push(file);
    }
    assert.deepEqual(exceptions, [], 'a port passed in from src/platform replaces an import across the layers');
  });
});
