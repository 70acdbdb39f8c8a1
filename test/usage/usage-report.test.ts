import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { UsageRecord } from '../../src/core/usage/usage-record.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { UsageRepository } from '../../src/store/usage-repository.ts';
import { UsageReportRepository } from '../../src/store/usage/usage-report-repository.ts';
import { runCli } from '../helpers/cli-process.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';

reportSkippedPostgres();

const alice = 'a11ce000000000000000000000000000';
const gone = 'beef0000000000000000000000000000';
const at = (day: number, hour: number) => Date.UTC(2025, 2, day, hour);
let sequence = 0;
const record = (keyId: string, model: string, endpoint: string, createdAt: number, usage: Partial<UsageRecord> = {}): UsageRecord => ({
  keyId,
  model,
  endpoint,
  requestId: `r${(sequence += 1)}`,
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  createdAt,
  ...usage,
});

/** Three days of March 2025: chat and layout parsing by alice, audio by a key that no longer exists. */
const fixture: readonly UsageRecord[] = [
  record(alice, 'glm-4.7', 'chat.completions', at(1, 9), { promptTokens: 100, completionTokens: 20, cachedTokens: 10, cost: 1_250_000 }),
  record(alice, 'glm-4.7', 'chat.completions', at(1, 23), { promptTokens: 50, completionTokens: 5, cost: 300 }),
  record(alice, 'glm-ocr', 'layout_parsing', at(2, 0), { units: { pages: 12 }, cost: 18_000 }),
  record(gone, 'my-asr', 'audio.transcriptions', at(2, 8), { units: { audioSeconds: 12.5 }, cost: 5 }),
  record(gone, 'my-asr', 'audio.transcriptions', at(2, 9), { units: { audioSeconds: 0.25 }, cost: 2 }),
  record(alice, 'glm-4.7', 'chat.completions', at(3, 12), { promptTokens: 7, completionTokens: 7, units: { searches: 1 }, cost: 7 }),
];

for (const target of databaseTargets) {
  describe(`usage report (${target.name})`, () => {
    let url: string | undefined;
    let dataDir: string;
    let database: Database;
    let reports: UsageReportRepository;
    let environment: NodeJS.ProcessEnv;
    before(async () => {
      url = await target.create();
      dataDir = mkdtempSync(join(tmpdir(), 'model-platform-usage-report-'));
      database = openDatabase({ databaseUrl: url, dataDir });
      await migrateToLatest(database);
      await database.db
        .insertInto('api_keys')
        .values({ id: alice, secret_hash: 'x', secret_sealed: 'x', name: 'alice', created_at: 0, revoked_at: null, policy: null })
        .execute();
      // Two batches, as the recorder writes them: the rollups add up across batches.
      const ledger = new UsageRepository(database);
      await ledger.insertMany(fixture.slice(0, 3));
      await ledger.insertMany(fixture.slice(3));
      reports = new UsageReportRepository(database);
      environment = { MODEL_PLATFORM_DATA_DIR: dataDir, ...(url === undefined ? {} : { DATABASE_URL: url }) };
    });
    after(async () => {
      await database.close();
      await target.drop(url);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('sums the rollups by day, by key (with its name), and by model and endpoint, within the dates', async () => {
      const byDay = await reports.report({ from: '2025-03-01', to: '2025-03-03', by: ['day'] });
      assert.deepEqual(
        byDay.map((row) => [row.day, row.calls, row.promptTokens, row.completionTokens, row.cachedTokens, row.pages, row.audioSeconds, row.searches, row.cost]),
        [
          ['2025-03-01', 2, 150, 25, 10, 0, 0, 0, 1_250_300],
          ['2025-03-02', 3, 0, 0, 0, 12, 12.75, 0, 18_007],
          ['2025-03-03', 1, 7, 7, 0, 0, 0, 1, 7],
        ],
      );
      const byKey = await reports.report({ from: '2025-03-02', to: '2025-03-03', by: ['key'] });
      assert.deepEqual(
        byKey.map((row) => [row.keyId, row.keyName, row.calls, row.pages, row.audioSeconds]),
        [
          [alice, 'alice', 2, 12, 0],
          [gone, undefined, 2, 0, 12.75],
        ],
      );
      const byModel = await reports.report({ from: '2025-03-01', to: '2025-03-01', by: ['endpoint', 'model'] });
      assert.deepEqual(
        byModel.map((row) => [row.model, row.endpoint, row.calls]),
        [['glm-4.7', 'chat.completions', 2]],
      );
      assert.deepEqual(await reports.report({ from: '2025-04-01', to: '2025-04-30', by: ['day'] }), []);
    });

    // The real binary costs seconds a start on a busy machine: run on one back end, PostgreSQL when there is one.
    const cliSkip = target !== databaseTargets.at(-1) ? 'the CLI runs on the last database target only' : false;
    it('`model-platform usage report` prints CSV and an aligned table from the same database; bad flags exit 2', { skip: cliSkip }, async () => {
      const [csv, table, csvByDay, badGrouping, badDate] = await Promise.all([
        runCli(['usage', 'report', '--by', 'key,model', '--from', '2025-03-01', '--to', '2025-03-02', '--format', 'csv'], environment),
        runCli(['usage', 'report', '--by', 'day', '--from', '2025-03-01', '--to', '2025-03-03'], environment),
        runCli(['usage', 'report', '--by', 'day', '--from', '2025-03-01', '--to', '2025-03-03', '--format', 'csv'], environment),
        runCli(['usage', 'report', '--by', 'week'], environment),
        runCli(['usage', 'report', '--from', '2025-02-30'], environment),
      ]);
      assert.equal(csv.code, 0, csv.stderr);
      assert.equal(
        csv.stdout,
        [
          'key_id,key_name,model,calls,prompt_tokens,completion_tokens,cached_tokens,pages,audio_seconds,images,videos,searches,urls_read,spend_micros,spend',
          `${alice},alice,glm-4.7,2,150,25,10,0,0,0,0,0,0,1250300,1.250300`,
          `${alice},alice,glm-ocr,1,0,0,0,12,0,0,0,0,0,18000,0.018000`,
          `${gone},,my-asr,2,0,0,0,0,12.75,0,0,0,0,7,0.000007`,
          '',
        ].join('\r\n'),
      );
      assert.equal(table.code, 0, table.stderr);
      // Unit columns with nothing in them (images, videos, URLs) are left out of the table.
      assert.equal(
        table.stdout,
        [
          'day         calls  prompt_tokens  completion_tokens  cached_tokens  pages  audio_seconds  searches  spend_micros     spend',
          '----------  -----  -------------  -----------------  -------------  -----  -------------  --------  ------------  --------',
          '2025-03-01      2            150                 25             10      0              0         0       1250300  1.250300',
          '2025-03-02      3              0                  0              0     12          12.75         0         18007  0.018007',
          '2025-03-03      1              7                  7              0      0              0         1             7  0.000007',
          '----------  -----  -------------  -----------------  -------------  -----  -------------  --------  ------------  --------',
          'total           6            157                 32             10     12          12.75         1       1268314  1.268314',
          '',
        ].join('\n'),
      );
      // The same spend in both formats: each day's, and the table's total as the sum of the CSV's.
      const tableSpend = table.stdout.split('\n').flatMap((line) => (/^(\S+) .* (\d+) {2}(\d+\.\d{6})$/.exec(line) ?? []).slice(1, 4).join(' ') || []);
      const csvSpend = csvByDay.stdout
        .trim()
        .split('\r\n')
        .slice(1)
        .map((line) => line.split(','))
        .map((cells) => [cells[0], cells.at(-2), cells.at(-1)].join(' '));
      const csvTotal = csvSpend.reduce((total, line) => total + Number(line.split(' ')[1]), 0);
      assert.deepEqual(tableSpend, [...csvSpend, `total ${csvTotal} 1.268314`]);
      assert.equal(badGrouping.code, 2);
      assert.match(badGrouping.stderr, /--by: 'week' is not one of day, key, model, endpoint/);
      assert.equal(badDate.code, 2);
      assert.match(badDate.stderr, /--from: '2025-02-30' is not a date written YYYY-MM-DD/);
    });
  });
}
