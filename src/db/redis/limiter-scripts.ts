/**
 * The Lua scripts behind shared key limits. Each runs atomically in Redis: checking and recording an admission is one
 * step however many instances admit at once. Time is Redis's own (`TIME`), so instances' clocks need not agree.
 *
 * Per key: `requests` (sorted set: one member per admission of the last minute, scored by its time), `tokens` (sorted
 * set `id|count` of finished requests' tokens, scored by when they ended) with `token_sum`, `running` (sorted set
 * `id|reserved tokens` of requests in flight, scored by their lease's expiry) with `reserved`. A running request's
 * instance renews its lease every few seconds; an instance that dies stops renewing, and the next admission reclaims
 * its slots and reservations once their lease expires.
 */

/** KEYS: requests, tokens, token_sum, running, reserved. ARGV: rpm, tpm, concurrency (-1: none), tokens, id, lease ms, window ms. */
export const admitScript = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local rpm, tpm, concurrency = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens, id, lease, window = tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local since = now - window
local function countOf(member) return tonumber(string.match(member, '|(%d+)$')) end
local running = concurrency >= 0 or tpm >= 0
local active, reserved = 0, 0
if running then
  local dead = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
  if #dead > 0 then
    local back = 0
    for _, member in ipairs(dead) do back = back + countOf(member) end
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
    redis.call('DECRBY', KEYS[5], back)
  end
  active = redis.call('ZCARD', KEYS[4])
  reserved = tonumber(redis.call('GET', KEYS[5]) or '0')
end
local count = 0
if rpm >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', since)
  count = redis.call('ZCARD', KEYS[1])
end
local tokenSum = 0
if tpm >= 0 then
  local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', since)
  if #old > 0 then
    local gone = 0
    for _, member in ipairs(old) do gone = gone + countOf(member) end
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', since)
    redis.call('DECRBY', KEYS[3], gone)
  end
  tokenSum = tonumber(redis.call('GET', KEYS[3]) or '0')
end
local verdict, wait = 0, 0
if concurrency >= 0 and active >= concurrency then
  verdict = 1
elseif rpm >= 0 and count >= rpm then
  verdict = 2
  local oldest = redis.call('ZRANGE', KEYS[1], count - rpm, count - rpm, 'WITHSCORES')
  wait = tonumber(oldest[2]) + window - now
elseif tpm >= 0 and tokenSum + reserved + tokens > tpm then
  verdict = 3
  local excess = tokenSum + reserved + tokens - tpm
  local freed = 0
  wait = window
  local entries = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
  for i = 1, #entries, 2 do
    freed = freed + countOf(entries[i])
    if freed >= excess then
      wait = tonumber(entries[i + 1]) + window - now
      break
    end
  end
else
  if rpm >= 0 then
    redis.call('ZADD', KEYS[1], now, id)
    redis.call('PEXPIRE', KEYS[1], window)
    count = count + 1
  end
  if running then
    redis.call('ZADD', KEYS[4], now + lease, id .. '|' .. tokens)
    reserved = redis.call('INCRBY', KEYS[5], tokens)
    redis.call('PEXPIRE', KEYS[4], lease * 2)
    redis.call('PEXPIRE', KEYS[5], lease * 2)
    active = active + 1
  end
end
local function newest(key)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if #last == 0 then return -1 end
  return tonumber(last[2])
end
return {verdict, now, count, active, tokenSum, reserved, newest(KEYS[1]), newest(KEYS[2]), wait}
`

/**
 * KEYS: running, reserved, tokens, token_sum, requests. ARGV: running member, reserved tokens, tokens used, window ms,
 * 'release' or 'cancel', id. A slot already reclaimed (its lease expired) gives nothing back twice.
 */
export const endScript = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('DECRBY', KEYS[2], ARGV[2]) end
if ARGV[5] == 'cancel' then
  redis.call('ZREM', KEYS[5], ARGV[6])
  return 0
end
local used = tonumber(ARGV[3])
if used > 0 then
  redis.call('ZADD', KEYS[3], now, ARGV[6] .. '|' .. used)
  redis.call('INCRBY', KEYS[4], used)
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
  redis.call('PEXPIRE', KEYS[4], ARGV[4])
end
return 0
`

/** KEYS: running, reserved of each live request, in pairs. ARGV: lease ms, then each request's running member. */
export const renewScript = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local lease = tonumber(ARGV[1])
for i = 1, #KEYS / 2 do
  redis.call('ZADD', KEYS[2 * i - 1], 'XX', now + lease, ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[2 * i - 1], lease * 2)
  redis.call('PEXPIRE', KEYS[2 * i], lease * 2)
end
return #KEYS / 2
`
