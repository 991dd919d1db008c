-- An uncaught runtime error: the interpreter prints the partial output, reports the error
-- on stderr and exits with status 1.
local t = {}
for i = 1, 5 do t[i] = i * i end
print("before error", table.concat(t, " "))
local function fail(depth)
  if depth == 0 then
    local cfg = nil
    return cfg.missing_field
  end
  return fail(depth - 1) + 1
end
fail(3)
print("never printed")
