/**
 * The Lua scripts of the Redis limiter. Each runs atomically in Redis, so a check on one node
 * sees every other node's counts and no two nodes take the same last unit.
 *
 * Slots are a sorted set per key and model: members are the holders (one per call under way),
 * scored by the end of their lease. A node renews its calls' leases while they run; a node that
 * dies stops renewing, and its holders are dropped once their lease has passed.
 */

/** Keeps a slot set as long as its longest lease: a set whose holders all lapsed goes by itself. */
const keepUntilLastLease = `
local function keepUntilLastLease(holders)
  local last = redis.call('ZRANGE', holders, -1, -1, 'WITHSCORES')[2]
  if last then redis.call('PEXPIREAT', holders, last) end
end
`;

/**
 * One admission step (Limiter.check). KEYS: the counters the check names; ARGV[1]: the check as
 * JSON, each part naming its counter by its place in KEYS:
 * `{ now, rate?: { key, limit, expiresAt }, tokens?: { key, limit }, calls?: { key, limit, expiresAt },
 * slot?: { key, limit, holder, leaseUntil } }`. Answers `ok` or the part that refused.
 */
export const checkLimitsScript = `${keepUntilLastLease}
local check = cjson.decode(ARGV[1])
local now = check.now

-- A new window's counter gets its expiry when it is created.
local function increment(counter, expiresAt)
  local count = redis.call('INCR', counter)
  if count == 1 then redis.call('PEXPIREAT', counter, expiresAt) end
  return count
end

-- The request is counted unless the rate refuses it.
local function countRequest(rate)
  local counter = KEYS[rate.key]
  if increment(counter, rate.expiresAt) <= rate.limit then return true end
  redis.call('DECR', counter)
  return false
end

local function belowLimit(part)
  return tonumber(redis.call('GET', KEYS[part.key]) or '0') < part.limit
end

-- Holders whose lease has passed (their node died) make room before a call is refused.
local function takeSlot(slot)
  local holders = KEYS[slot.key]
  if redis.call('ZCARD', holders) >= slot.limit then
    redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
    if redis.call('ZCARD', holders) >= slot.limit then return false end
  end
  redis.call('ZADD', holders, slot.leaseUntil, slot.holder)
  keepUntilLastLease(holders)
  return true
end

if check.rate and not countRequest(check.rate) then return 'rate' end
if check.tokens and not belowLimit(check.tokens) then return 'tokens' end
if check.calls and not belowLimit(check.calls) then return 'calls' end
if check.slot and not takeSlot(check.slot) then return 'slot' end
-- Only a call every part admitted uses up its quota.
if check.calls then increment(KEYS[check.calls.key], check.calls.expiresAt) end
return 'ok'
`;

/** Limiter.add. KEYS[1]: the counter; ARGV: the amount, the counter's expiry (kept when it has one: a seeded window). */
export const addToCounterScript = `
redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
`;

/**
 * Limiter.renewSlots, one slot. KEYS[1]: the slot set; ARGV: the holder, the new lease end, now.
 * A holder whose lease has passed is not brought back: its slot may be another call's by now.
 */
export const renewSlotScript = `${keepUntilLastLease}
local holders, holder, leaseUntil, now = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
if redis.call('ZSCORE', holders, holder) then
  redis.call('ZADD', holders, leaseUntil, holder)
  keepUntilLastLease(holders)
end
`;
