//! The Lua scripts behind the multi-step operations: each runs atomically
//! in Redis, in one round trip.
//!
//! A session's streams are listed in a sorted set (`k:{session}`) whose
//! scores are the streams' expiry times (server clock, milliseconds), so
//! ids of streams whose logs have expired are pruned as the session goes
//! on and the set stays as small as the session's live streams.

use std::sync::LazyLock;

use redis::Script;

/// The server's clock in milliseconds (scripts are replicated by effects,
/// so `TIME` is allowed before writes).
const NOW: &str = "local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
";

/// `KEYS`: per append, its log, ended flag and session's stream set.
/// `ARGV[1]`: max events (`0` keeps none), `ARGV[2]`: ttl in ms; then per
/// append: stream id, `1` if it ended, the number of events, the events
/// (8-byte big-endian sequence number, then the event bytes).
///
/// The ended flag key holds `1` once the stream has ended; `0` marks a
/// stream that exists without events (an append of nothing, or
/// `max_events` of 0), so that it is still known to `read_events`.
pub(crate) static APPEND: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{NOW}local max = ARGV[1]
local ttl = ARGV[2]
local ttln = tonumber(ttl)
local a = 3
for i = 1, #KEYS, 3 do
  local e, x, k = KEYS[i], KEYS[i + 1], KEYS[i + 2]
  local stream, ended, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  a = a + 3
  if max == '0' then
    redis.call('DEL', e)
  elseif n > 0 then
    local last = a + n - 1
    for j = a, last, 256 do
      redis.call('RPUSH', e, unpack(ARGV, j, math.min(j + 255, last)))
    end
    redis.call('LTRIM', e, '-' .. max, -1)
  end
  a = a + n
  if redis.call('PEXPIRE', e, ttl) == 0 and ended ~= '1' then
    redis.call('SET', x, '0', 'NX', 'PX', ttl)
  end
  if ended == '1' then
    redis.call('SET', x, '1', 'PX', ttl)
  else
    redis.call('PEXPIRE', x, ttl)
  end
  redis.call('ZREMRANGEBYSCORE', k, '-inf', string.format('%d', now))
  redis.call('ZADD', k, string.format('%d', now + ttln), stream)
  if redis.call('PTTL', k) < ttln then
    redis.call('PEXPIRE', k, ttl)
  end
end
return 1"
    ))
});

/// `KEYS[1]`: the session record, `KEYS[2]`: its stream set. `ARGV[1]`:
/// ttl in ms, `ARGV[2]`/`ARGV[3]`: the log and ended flag key prefixes of
/// the session's streams. Answers 0 when the session is gone.
pub(crate) static TOUCH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then
  return 0
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  {NOW}  local ttl = ARGV[1]
  local score = string.format('%d', now + tonumber(ttl))
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%d', now))
  local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
  for _, id in ipairs(ids) do
    redis.call('PEXPIRE', ARGV[2] .. id, ttl)
    redis.call('PEXPIRE', ARGV[3] .. id, ttl)
    redis.call('ZADD', KEYS[2], score, id)
  end
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return 1"
    ))
});

/// `KEYS[1]`: the session record, `KEYS[2]`: its stream set.
/// `ARGV[1]`/`ARGV[2]`: the log and ended flag key prefixes of the
/// session's streams. Answers 1 when the record existed.
pub(crate) static REMOVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "local was = redis.call('DEL', KEYS[1])
local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
for _, id in ipairs(ids) do
  redis.call('DEL', ARGV[1] .. id, ARGV[2] .. id)
end
redis.call('DEL', KEYS[2])
return was",
    )
});
