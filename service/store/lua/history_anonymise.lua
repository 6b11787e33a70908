-- KEYS: a player's rating history (a list of JSON entries, newest first).
-- ARGV: the text naming an erased opponent ("opponent":"pl_..."), and what replaces it.
-- Rewrites each entry that names the erased player in place, in one step, so a rating
-- written meanwhile is neither lost nor doubled; the entries' numbers stay as they were.
-- Returns how many entries were rewritten.
local entries = redis.call('LRANGE', KEYS[1], 0, -1)
local rewritten = 0
for i, entry in ipairs(entries) do
  local first, last = string.find(entry, ARGV[1], 1, true)
  if first then
    local text = string.sub(entry, 1, first - 1) .. ARGV[2] .. string.sub(entry, last + 1)
    redis.call('LSET', KEYS[1], i - 1, text)
    rewritten = rewritten + 1
  end
end
return rewritten
