import { request } from 'undici';
import { readCappedBody } from '../backends/engine-http/read-capped-body.ts';
import { alignedTable } from './aligned-table.ts';

/** A node answers its admin API at once; one that does not is reported, not waited for. */
const answerTimeoutMs = 10_000;

/** A list of deployments is a few hundred bytes each; more than this is not the admin API answering. */
const maxAnswerBytes = 8 * 1024 * 1024;

interface DeploymentRow {
  readonly model: string;
  readonly deployment: string;
  readonly backend: string;
  readonly address?: string;
  readonly state: string;
  readonly in_flight: number;
  readonly consecutive_failures: number;
  readonly cooling_until?: number;
  readonly last_error?: string;
}

/**
 * `models status`: the health of every deployment as a running node sees it, from its admin API
 * (GET /admin/deployments). Health is passive and kept by each node in its memory, so a CLI
 * process of its own would know nothing: it asks the node at `--url` (default
 * http://127.0.0.1:$PORT, else 8080) with the admin key in MODEL_PLATFORM_ADMIN_KEY (an
 * environment variable, so the secret is not on the command line). Exit code 1 when the node
 * cannot be asked or a model has no deployment that takes calls.
 */
export async function runModelsStatus(flags: { readonly url?: string | undefined }, environment: NodeJS.ProcessEnv = process.env): Promise<number> {
  const adminKey = environment['MODEL_PLATFORM_ADMIN_KEY']?.trim();
  if (adminKey === undefined || adminKey === '') {
    console.error('model-platform: models status asks a running node: set MODEL_PLATFORM_ADMIN_KEY to an admin key (<id>.<secret>).');
    return 1;
  }
  const base = (flags.url ?? `http://127.0.0.1:${environment['PORT'] ?? '8080'}`).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(base)) {
    console.error(`model-platform: --url must be an http(s) address, not '${base}'.`);
    return 1;
  }
  let rows: DeploymentRow[];
  try {
    rows = await fetchDeployments(`${base}/admin/deployments`, adminKey);
  } catch (error) {
    console.error(`model-platform: cannot read ${base}/admin/deployments: ${(error as Error).message.split(adminKey).join('***')}`);
    return 1;
  }
  console.log(formatStatusTable(rows, Date.now()));
  const models = [...new Set(rows.map((row) => row.model))];
  const down = models.filter((model) => !rows.some((row) => row.model === model && row.state !== 'cooling-down'));
  if (down.length === 0) return 0;
  console.error(`No deployment takes calls: ${down.join(', ')}.`);
  return 1;
}

async function fetchDeployments(url: string, adminKey: string): Promise<DeploymentRow[]> {
  const response = await request(url, {
    method: 'GET',
    headers: { authorization: `Bearer ${adminKey}`, accept: 'application/json' },
    signal: AbortSignal.timeout(answerTimeoutMs),
  });
  const text = (await readCappedBody(response.body, maxAnswerBytes, 'the answer')).toString('utf8');
  const body = JSON.parse(text) as { data?: unknown; error?: { code?: unknown; message?: unknown } };
  if (response.statusCode !== 200) {
    const said = typeof body.error?.message === 'string' ? `: ${body.error.message}` : '';
    throw new Error(`HTTP ${response.statusCode}${said}`);
  }
  if (!Array.isArray(body.data)) throw new Error('the answer has no data list');
  return body.data as DeploymentRow[];
}

function formatStatusTable(rows: readonly DeploymentRow[], now: number): string {
  const header = ['MODEL', 'DEPLOYMENT', 'BACKEND', 'ADDRESS', 'STATE', 'IN_FLIGHT', 'FAILURES', 'RETRY_IN', 'LAST_ERROR'];
  const cells = rows.map((row) => [
    row.model,
    row.deployment,
    row.backend,
    row.address ?? '',
    row.state,
    String(row.in_flight),
    String(row.consecutive_failures),
    row.cooling_until === undefined ? '' : `${Math.max(0, Math.ceil((row.cooling_until - now) / 1000))} s`,
    (row.last_error ?? '').replace(/\s+/g, ' ').slice(0, 120),
  ]);
  return alignedTable([header, ...cells]);
}
