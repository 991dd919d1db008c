-- Coroutines (generators, pipelines, passing values both ways, status, wrap, close) and
-- error handling (error with strings, tables and levels, pcall, xpcall, nested handlers,
-- errors across coroutine boundaries, to-be-closed variables and goto).

local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
  end)
end
local got = {}
for v in gen(6) do got[#got + 1] = v end
print("generator", table.concat(got, " "))

-- A producer/filter/consumer pipeline.
local function producer(items)
  return coroutine.create(function()
    for _, it in ipairs(items) do coroutine.yield(it) end
  end)
end
local function filter(src, pred)
  return coroutine.create(function()
    while true do
      local ok, v = coroutine.resume(src)
      if not v then return end
      if pred(v) then coroutine.yield(v * 10) end
    end
  end)
end
local f = filter(producer({ 1, 2, 3, 4, 5, 6, 7, 8, 9 }), function(v) return v % 3 ~= 0 end)
local piped = {}
while true do
  local ok, v = coroutine.resume(f)
  if not v then break end
  piped[#piped + 1] = v
end
print("pipeline", table.concat(piped, ","), coroutine.status(f))

-- Values passed in both directions.
local co = coroutine.create(function(a, b)
  print("co start", a, b)
  local c = coroutine.yield(a + b)
  print("co got", c)
  local d, e = coroutine.yield(c * 2)
  print("co got", d, e)
  return "done", d + e
end)
print("resume1", coroutine.resume(co, 1, 2))
print("status", coroutine.status(co))
print("resume2", coroutine.resume(co, 10))
print("resume3", coroutine.resume(co, 3, 4))
print("status", coroutine.status(co), coroutine.resume(co))
print("isyieldable", coroutine.isyieldable(), select(2, coroutine.running()))

-- Errors inside coroutines.
local bad = coroutine.create(function() coroutine.yield(1); error({ code = 42 }) end)
print(coroutine.resume(bad))
local ok, e = coroutine.resume(bad)
print("co error", ok, type(e), e.code, coroutine.status(bad))
local w = coroutine.wrap(function() error("wrapped failure", 0) end)
print(pcall(w))

-- Yielding across pcall.
local cp = coroutine.create(function()
  local ok2, v = pcall(function()
    local x = coroutine.yield("inside pcall")
    if x == "boom" then error("exploded", 0) end
    return x
  end)
  coroutine.yield(tostring(ok2) .. ":" .. tostring(v))
  return "end"
end)
print(coroutine.resume(cp))
print(coroutine.resume(cp, "boom"))
print(coroutine.resume(cp))

-- Closing a suspended coroutine runs its to-be-closed variables.
local closed = {}
local cc = coroutine.create(function()
  local r <close> = setmetatable({}, { __close = function() closed[#closed + 1] = "closed" end })
  coroutine.yield(1)
end)
coroutine.resume(cc)
print("close", coroutine.close(cc), coroutine.status(cc), table.concat(closed))

-- Fibonacci via coroutines, and a permutation generator.
local function permgen(a, n)
  n = n or #a
  if n <= 1 then coroutine.yield(a) else
    for i = 1, n do
      a[n], a[i] = a[i], a[n]
      permgen(a, n - 1)
      a[n], a[i] = a[i], a[n]
    end
  end
end
local perms = {}
for p in coroutine.wrap(function() permgen({ "a", "b", "c", "d" }) end) do
  perms[#perms + 1] = table.concat(p)
end
print("perms", #perms, table.concat(perms, " ", 1, 8))

-- error/pcall/xpcall.
print(pcall(error))
print(pcall(error, nil))
print(pcall(error, "msg", 0))
print(pcall(error, "with position"))
print(pcall(error, setmetatable({}, { __tostring = function() return "custom error" end })))
local function lvl2() error("level two", 2) end
local function caller() lvl2() end
print(pcall(caller))
print(select("#", pcall(function() return 1, 2, 3 end)), pcall(function() return 1, 2, 3 end))
print(xpcall(function() local t = nil; return t.x end, function(m) return "handled: " .. m end))
print(xpcall(function(a, b) return a // b end, function(m) return "h:" .. m end, 7, 2))
print(pcall(function() local a = "x" + 1 end))
print(pcall(function() return #nil end))
print(pcall(function() return nil .. "a" end))
print(pcall(function() undefined_function() end))
print(pcall(string.rep))
print(pcall(setmetatable, 1, {}))
print(select(2, pcall(string.format, "%d", 1.5)))

-- Nested handlers and rethrow.
local trace = {}
local function risky(n)
  if n == 0 then error({ depth = 0 }) end
  local ok3, err = pcall(risky, n - 1)
  trace[#trace + 1] = n
  err.depth = err.depth + 1
  error(err)
end
local ok4, err4 = pcall(risky, 5)
print("rethrow", ok4, err4.depth, table.concat(trace, ","))

-- to-be-closed variables run on normal exit and on error, in reverse order.
local events = {}
local function closer(name)
  return setmetatable({}, { __close = function(_, e) events[#events + 1] = name .. (e and "!" or "") end })
end
do
  local a <close> = closer("a")
  local b <close> = closer("b")
end
pcall(function()
  local c <close> = closer("c")
  local d <close> = closer("d")
  error("x")
end)
print("tbc", table.concat(events, " "))

-- goto: continue and breaking out of nested loops.
local odd = {}
for i = 1, 10 do
  if i % 2 == 0 then goto continue end
  odd[#odd + 1] = i
  ::continue::
end
for i = 1, 5 do
  for j = 1, 5 do
    if i * j == 12 then
      print("found", i, j)
      goto out
    end
  end
end
::out::
print("odd", table.concat(odd, " "))

-- Deep recursion ends in a caught stack overflow, not a crash.
local function deep(n) return 1 + deep(n + 1) end
local okd, msg = pcall(deep, 1)
print("overflow", okd, (msg:find("stack overflow") ~= nil))
