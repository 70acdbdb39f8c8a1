import type { LimitCheck, LimitVerdict } from '../core/limits/limiter.ts';

/** Units to lease with a check (`l` step), per part; 0 for none. */
export interface LeaseRequest {
  readonly rate: number;
  readonly tokens: number;
  readonly calls: number;
  readonly slots: number;
}

/** A leasing check's verdict and what was granted besides the call's own units. */
export interface LeaseAnswer extends LeaseRequest {
  readonly verdict: LimitVerdict;
}

/**
 * Every step of the Redis limiter, for any number of calls, as one script: the steps of one
 * event-loop turn that touch one key's counters run in one call of it, in the order they were
 * asked, atomically. KEYS: the counters the batch names, each once; ARGV: step after step, a
 * letter and its fields, a counter given by its index in KEYS (0: a part a check does not ask
 * about). Returns the verdicts of the checks, in order.
 * - `c` check (Limiter.check): now, rate counter/limit/expiry, tokens counter/limit, calls
 *   counter/limit/expiry, slot counter/limit/holder/lease end. Rate first (a request refused by a
 *   later part still counts as a request); the call is counted and the slot taken only when every
 *   part passes. Slots are a sorted set of holders scored by lease end: lapsed holders (a crashed
 *   node's) are dropped when the set is full, before refusing; the set lives as long as its
 *   longest lease. Counters get their expiry when created (INCR answers 1): a check that passes
 *   costs one command per counter, the fewer commands the less Redis CPU per call.
 * - `r` release: slot counter, holder.
 * - `n` renew: slot counter, holder, lease end, now. XX: a holder whose lease lapsed is not
 *   brought back, since its slot may be another call's by now.
 * - `a` add: counter, amount, expiry (set when the add created the counter; a seeded one has it).
 * - `s` seed: counter, value, expiry; set only when absent.
 * - `l` check and lease (LeasingLimiter): the fields of `c`, then how many units to lease of the
 *   rate, the token quota, the calls quota and the slots (0: none). A leased part is checked as
 *   in `c` and, when it passes, up to that many more units are counted at once, never past the
 *   limit: rate units at once (as requests are), token headroom (only on a seeded counter), calls
 *   and slots when the whole check passes. With a slot lease, the holder field is a prefix: the
 *   slots are members prefix0 (the call's own) to prefixN. Answers the verdict and the four
 *   grants, space-separated ("ok 64 1216 64 10"; a refused check still reports its rate grant).
 * - `g` give back: counter, amount; leased units not used, subtracted only while the counter
 *   lives (an expired window is not brought back as a negative count).
 */
export const limitsScript = `
local function check(i)
  local now = tonumber(ARGV[i + 1])
  local rate = tonumber(ARGV[i + 2])
  if rate > 0 then
    local count = redis.call('INCR', KEYS[rate])
    if count == 1 then redis.call('PEXPIREAT', KEYS[rate], ARGV[i + 4]) end
    if count > tonumber(ARGV[i + 3]) then
      redis.call('DECR', KEYS[rate])
      return 'rate'
    end
  end
  local tokens = tonumber(ARGV[i + 5])
  if tokens > 0 and tonumber(redis.call('GET', KEYS[tokens]) or '0') >= tonumber(ARGV[i + 6]) then return 'tokens' end
  local calls = tonumber(ARGV[i + 7])
  if calls > 0 and tonumber(redis.call('GET', KEYS[calls]) or '0') >= tonumber(ARGV[i + 8]) then return 'calls' end
  local slot = tonumber(ARGV[i + 10])
  if slot > 0 then
    local counter = KEYS[slot]
    local limit = tonumber(ARGV[i + 11])
    if redis.call('ZCARD', counter) >= limit then
      redis.call('ZREMRANGEBYSCORE', counter, '-inf', now)
      if redis.call('ZCARD', counter) >= limit then return 'slot' end
    end
    redis.call('ZADD', counter, ARGV[i + 13], ARGV[i + 12])
    redis.call('PEXPIREAT', counter, redis.call('ZRANGE', counter, -1, -1, 'WITHSCORES')[2])
  end
  if calls > 0 and redis.call('INCR', KEYS[calls]) == 1 then redis.call('PEXPIREAT', KEYS[calls], ARGV[i + 9]) end
  return 'ok'
end

local function take(counter, amount, expiresAt)
  if redis.call('INCRBY', counter, amount) == amount then redis.call('PEXPIREAT', counter, expiresAt) end
end

local function leaseCheck(i)
  local now = tonumber(ARGV[i + 1])
  local rateGrant, tokensGrant, callsGrant, slotGrant = 0, 0, 0, 0
  local function answer(verdict)
    return verdict .. ' ' .. rateGrant .. ' ' .. tokensGrant .. ' ' .. callsGrant .. ' ' .. slotGrant
  end
  local rate = tonumber(ARGV[i + 2])
  if rate > 0 then
    local before = tonumber(redis.call('GET', KEYS[rate]) or '0')
    local limit = tonumber(ARGV[i + 3])
    if before >= limit then return answer('rate') end
    rateGrant = math.min(tonumber(ARGV[i + 14]), limit - before - 1)
    take(KEYS[rate], 1 + rateGrant, ARGV[i + 4])
  end
  local tokens = tonumber(ARGV[i + 5])
  local tokensUsed
  if tokens > 0 then
    tokensUsed = redis.call('GET', KEYS[tokens])
    if tonumber(tokensUsed or '0') >= tonumber(ARGV[i + 6]) then return answer('tokens') end
  end
  local calls = tonumber(ARGV[i + 7])
  local callsUsed = 0
  if calls > 0 then
    callsUsed = tonumber(redis.call('GET', KEYS[calls]) or '0')
    if callsUsed >= tonumber(ARGV[i + 8]) then return answer('calls') end
  end
  local slot = tonumber(ARGV[i + 10])
  if slot > 0 then
    local counter = KEYS[slot]
    local limit = tonumber(ARGV[i + 11])
    local held = redis.call('ZCARD', counter)
    if held >= limit then
      redis.call('ZREMRANGEBYSCORE', counter, '-inf', now)
      held = redis.call('ZCARD', counter)
      if held >= limit then return answer('slot') end
    end
    slotGrant = math.min(tonumber(ARGV[i + 17]), limit - held - 1)
    local members = {}
    if tonumber(ARGV[i + 17]) > 0 then
      for n = 0, slotGrant do
        members[#members + 1] = ARGV[i + 13]
        members[#members + 1] = ARGV[i + 12] .. n
      end
    else
      members[1] = ARGV[i + 13]
      members[2] = ARGV[i + 12]
    end
    redis.call('ZADD', counter, unpack(members))
    redis.call('PEXPIREAT', counter, redis.call('ZRANGE', counter, -1, -1, 'WITHSCORES')[2])
  end
  -- Headroom only on a counter that lives (seeded): INCRBY on a missing one would never expire.
  if tokens > 0 and tokensUsed then
    tokensGrant = math.min(tonumber(ARGV[i + 15]), tonumber(ARGV[i + 6]) - tonumber(tokensUsed))
    if tokensGrant > 0 then redis.call('INCRBY', KEYS[tokens], tokensGrant) end
  end
  if calls > 0 then
    callsGrant = math.min(tonumber(ARGV[i + 16]), tonumber(ARGV[i + 8]) - callsUsed - 1)
    take(KEYS[calls], 1 + callsGrant, ARGV[i + 9])
  end
  return answer('ok')
end

local verdicts = {}
local i = 1
while i <= #ARGV do
  local step = ARGV[i]
  if step == 'c' then
    verdicts[#verdicts + 1] = check(i)
    i = i + 14
  elseif step == 'l' then
    verdicts[#verdicts + 1] = leaseCheck(i)
    i = i + 18
  elseif step == 'g' then
    local counter = KEYS[tonumber(ARGV[i + 1])]
    if redis.call('EXISTS', counter) == 1 then redis.call('DECRBY', counter, ARGV[i + 2]) end
    i = i + 3
  elseif step == 'r' then
    redis.call('ZREM', KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2])
    i = i + 3
  elseif step == 'n' then
    local counter = KEYS[tonumber(ARGV[i + 1])]
    redis.call('ZREMRANGEBYSCORE', counter, '-inf', ARGV[i + 4])
    if redis.call('ZADD', counter, 'XX', ARGV[i + 3], ARGV[i + 2]) == 0 and redis.call('ZSCORE', counter, ARGV[i + 2]) then
      redis.call('PEXPIREAT', counter, redis.call('ZRANGE', counter, -1, -1, 'WITHSCORES')[2])
    end
    i = i + 5
  elseif step == 'a' then
    local counter = KEYS[tonumber(ARGV[i + 1])]
    if redis.call('INCRBY', counter, ARGV[i + 2]) == tonumber(ARGV[i + 2]) then redis.call('PEXPIREAT', counter, ARGV[i + 3]) end
    i = i + 4
  elseif step == 's' then
    redis.call('SET', KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2], 'PXAT', ARGV[i + 3], 'NX')
    i = i + 4
  else
    return redis.error_reply('unknown limits step ' .. tostring(step))
  end
end
return verdicts
`;

const admitted: LimitVerdict = { admitted: true };
const refused = {
  rate: { admitted: false, refusedBy: 'rate' },
  tokens: { admitted: false, refusedBy: 'tokens' },
  calls: { admitted: false, refusedBy: 'calls' },
  slot: { admitted: false, refusedBy: 'slot' },
} as const satisfies Record<string, LimitVerdict>;

/**
 * The steps of one event-loop turn on one key's counters (one hash tag, so one Redis Cluster
 * shard), sent as one script call when the turn ends (RedisLimiter).
 */
export class LimitBatch {
  readonly #keys: string[] = [];
  readonly #keyIndex = new Map<string, number>();
  readonly #args: (string | number)[] = [];
  readonly #checks: { resolve: (verdict: LimitVerdict) => void; reject: (error: unknown) => void }[] = [];
  /** Leasing checks by their index among the checks (their answer carries grants). */
  readonly #leasing = new Map<number, (answer: LeaseAnswer) => void>();
  #settled: Promise<void> | undefined;
  #settle: ((error: unknown) => void) | undefined;

  /** Arguments so far: a batch this large is sent at once rather than grown further. */
  get size(): number {
    return this.#args.length;
  }

  check(check: LimitCheck): Promise<LimitVerdict> {
    this.#pushCheck('c', check);
    return new Promise((resolve, reject) => this.#checks.push({ resolve, reject }));
  }

  /** A check that also leases units (a slot lease: `check.slot.holder` is the members' prefix). */
  checkLeasing(check: LimitCheck, lease: LeaseRequest): Promise<LeaseAnswer> {
    this.#pushCheck('l', check);
    this.#args.push(lease.rate, lease.tokens, lease.calls, lease.slots);
    return new Promise((resolve, reject) => {
      this.#leasing.set(this.#checks.length, resolve);
      this.#checks.push({ resolve: () => reject(new Error('a leasing check answered without grants')), reject });
    });
  }

  #pushCheck(step: 'c' | 'l', check: LimitCheck): void {
    const { rate, tokens, calls, slot } = check;
    this.#args.push(
      step,
      check.now,
      this.#key(rate?.counter),
      rate?.limit ?? 0,
      rate?.expiresAt ?? 0,
      this.#key(tokens?.counter),
      tokens?.limit ?? 0,
      this.#key(calls?.counter),
      calls?.limit ?? 0,
      calls?.expiresAt ?? 0,
      this.#key(slot?.counter),
      slot?.limit ?? 0,
      slot?.holder ?? '',
      slot?.leaseUntil ?? 0,
    );
  }

  /** The steps that answer nothing share one promise: settled when the batch has run. */
  release(counter: string, holder: string): Promise<void> {
    this.#args.push('r', this.#key(counter), holder);
    return this.#done();
  }

  renew(counter: string, holder: string, leaseUntil: number, now: number): Promise<void> {
    this.#args.push('n', this.#key(counter), holder, leaseUntil, now);
    return this.#done();
  }

  add(counter: string, amount: number, expiresAt: number): Promise<void> {
    this.#args.push('a', this.#key(counter), amount, expiresAt);
    return this.#done();
  }

  seed(counter: string, value: number, expiresAt: number): Promise<void> {
    this.#args.push('s', this.#key(counter), value, expiresAt);
    return this.#done();
  }

  giveBack(counter: string, amount: number): Promise<void> {
    this.#args.push('g', this.#key(counter), amount);
    return this.#done();
  }

  /** The counters the batch names, for the script's KEYS. */
  get keys(): readonly string[] {
    return this.#keys;
  }

  /** The steps, for the script's ARGV. */
  get args(): readonly (string | number)[] {
    return this.#args;
  }

  /** Settles every step's promise with the script's outcome (once it has run, or failed). */
  settle(error: unknown, answer: unknown): void {
    if (error !== null && error !== undefined) {
      this.#fail(error);
      return;
    }
    const verdicts = answer as string[];
    if (verdicts.length !== this.#checks.length) {
      this.#fail(new Error(`the limits script answered ${verdicts.length} verdicts for ${this.#checks.length} checks`));
      return;
    }
    for (let index = 0; index < verdicts.length; index += 1) {
      const leasing = this.#leasing.get(index);
      if (leasing !== undefined) {
        const answer = parseLeaseAnswer(verdicts[index] ?? '');
        if (answer === undefined) this.#checks[index]?.reject(new Error(`the limits script answered '${verdicts[index]}'`));
        else leasing(answer);
        continue;
      }
      const verdict = verdicts[index] ?? '';
      const waiting = this.#checks[index];
      if (verdict === 'ok') waiting?.resolve(admitted);
      else if (verdict === 'rate' || verdict === 'tokens' || verdict === 'calls' || verdict === 'slot') waiting?.resolve(refused[verdict]);
      else waiting?.reject(new Error(`the limits script answered '${verdict}'`));
    }
    this.#settle?.(undefined);
  }

  #fail(error: unknown): void {
    for (const waiting of this.#checks) waiting.reject(error);
    this.#settle?.(error);
  }

  #done(): Promise<void> {
    this.#settled ??= new Promise<void>((resolve, reject) => {
      this.#settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    return this.#settled;
  }

  #key(counter: string | undefined): number {
    if (counter === undefined) return 0;
    let index = this.#keyIndex.get(counter);
    if (index === undefined) {
      index = this.#keys.push(counter);
      this.#keyIndex.set(counter, index);
    }
    return index;
  }
}

/** "ok 64 0 64 10": the verdict, then the rate, tokens, calls and slot grants. */
function parseLeaseAnswer(text: string): LeaseAnswer | undefined {
  const [verdict, rate, tokens, calls, slots] = text.split(' ');
  const verdictOf = verdict === 'ok' ? admitted : verdict === 'rate' || verdict === 'tokens' || verdict === 'calls' || verdict === 'slot' ? refused[verdict] : undefined;
  if (verdictOf === undefined) return undefined;
  return { verdict: verdictOf, rate: Number(rate), tokens: Number(tokens), calls: Number(calls), slots: Number(slots) };
}
