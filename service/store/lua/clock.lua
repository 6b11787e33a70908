-- KEYS: log. Returns {head, the last entry's time in ms or false, the time now in ms}.
local head = redis.call('XLEN', KEYS[1])
local now = redis.call('TIME')
local now_ms = now[1] * 1000 + math.floor(now[2] / 1000)
local last = false
if head > 0 then
  local entry = redis.call('XRANGE', KEYS[1], head .. '-0', head .. '-0')[1]
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == 't' then last = tonumber(fields[i + 1]) end
  end
end
return {head, last, now_ms}
