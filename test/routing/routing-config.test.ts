import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelEntrySchema } from '../../src/backends/index.ts';
import { ConfigError } from '../../src/core/config/config-error.ts';
import { parseConfigText } from '../../src/core/config/load-config.ts';
import { deploymentsOf, modelSettingsOf, routingOf } from '../../src/core/config/model-deployments.ts';

function problemsOf(yaml: string): readonly string[] {
  try {
    parseConfigText(yaml, 'config.yaml', {}, modelEntrySchema);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('models with deployments in the config file', () => {
  it('a routed model gives its deployments, named after their hosts unless named, with weights, priorities and routing', () => {
    const config = parseConfigText(
      [
        'models:',
        '  glm-4.7:',
        '    routing: weighted',
        '    fallbacks: [glm-4.6]',
        '    maxAttempts: 4',
        '    deployments:',
        '      - { backend: openai-compatible, baseUrl: http://gpu-1:8000/v1, weight: 3, timeoutMs: 5000, maxConcurrency: 4 }',
        '      - { name: spare, backend: openai-compatible, baseUrl: http://gpu-2:8000/v1, priority: 1, timeoutMs: 9000, maxConcurrency: 2 }',
        '  glm-4.6: { backend: zai, apiKey: key }',
      ].join('\n'),
      'config.yaml',
      {},
      modelEntrySchema,
    );
    const entry = config.models?.['glm-4.7'];
    assert.ok(entry !== undefined);
    const deployments = deploymentsOf('glm-4.7', entry);
    assert.deepEqual(
      deployments.map(({ name, weight, priority }) => ({ name, weight, priority })),
      [
        { name: 'glm-4.7#1', weight: 3, priority: 0 },
        { name: 'spare', weight: 1, priority: 1 },
      ],
    );
    assert.equal(deployments[1]?.entry['name'], undefined, 'the engine entry has no router keys');
    assert.deepEqual(routingOf(entry), { strategy: 'weighted', fallbacks: ['glm-4.6'], maxAttempts: 4 });
    const settings = modelSettingsOf(entry);
    assert.equal(settings.timeoutMs, 9000);
    assert.equal(settings.maxConcurrency, 6);
    const single = config.models?.['glm-4.6'];
    assert.ok(single !== undefined);
    assert.deepEqual(
      deploymentsOf('glm-4.6', single).map(({ name }) => name),
      ['glm-4.6#1'],
    );
  });

  it('each deployment is checked against its kind, and problems name the deployment by index', () => {
    const problems = problemsOf(
      [
        'models:',
        '  glm-4.7:',
        '    routing: fastest',
        '    fallbacks: [glm-4.7, glm-4.5]',
        '    deployments:',
        '      - { backend: openai-compatible, baseUrl: http://gpu-1:8000/v1 }',
        '      - { backend: openai-compatible, baseUrl: 12, weight: -1 }',
        "      - { name: 'glm-4.7#1', backend: openai-compatible, baseUrl: http://gpu-1:8000/v1, bseUrl: x }",
        '  glm-4.6: { backend: zai, apiKey: key }',
      ].join('\n'),
    );
    const joined = problems.join('\n');
    assert.match(joined, /key 'models\.glm-4\.7\.routing': must be one of least-in-flight, weighted, priority/);
    assert.match(joined, /key 'models\.glm-4\.7\.fallbacks\[0\]': names this model itself/);
    assert.match(joined, /key 'models\.glm-4\.7\.fallbacks\[1\]': must be one of glm-4\.7, glm-4\.6/);
    assert.match(joined, /key 'models\.glm-4\.7\.deployments\[1\]\.baseUrl'/);
    assert.match(joined, /key 'models\.glm-4\.7\.deployments\[1\]\.weight'/);
    assert.match(joined, /key 'models\.glm-4\.7\.deployments\[2\]\.bseUrl': is not a setting of backend openai-compatible/);
    assert.match(joined, /key 'models\.glm-4\.7\.deployments\[2\]\.name': 'glm-4\.7#1' is the name of deployments\[0\] too/);
  });

  it('an entry takes either one backend or deployments, and needs at least one deployment', () => {
    assert.match(
      problemsOf('models:\n  m: { backend: zai, apiKey: k, deployments: [] }').join('\n'),
      /key 'models\.m\.backend': cannot stand beside deployments/,
    );
    assert.match(problemsOf('models:\n  m: { deployments: [] }').join('\n'), /key 'models\.m\.deployments'/);
    assert.match(problemsOf('models:\n  m: { deployments: [{ baseUrl: http://a:1 }] }').join('\n'), /key 'models\.m\.deployments\[0\]\.backend': is required/);
  });
});
