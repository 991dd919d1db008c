-- Dynamic code and the runtime: load with environments, _ENV, string.dump, weak tables and
-- the collector, rawequal/rawlen, next, integer/float table keys, string buffers with
-- io.write, and a non-zero exit status through os.exit.

-- load with a custom environment, chunk arguments and syntax errors.
local env = { x = 6, y = 7 }
local chunk = load("return x * y, ...", "=chunk", "t", env)
print("load", chunk("extra", 1))
print("load error", load("return +", "=bad"))
print("load fn", load(coroutine.wrap(function()
  for _, piece in ipairs({ "local a", " = 40 ", "return a + 2" }) do coroutine.yield(piece) end
end))())

-- _ENV as an upvalue: a sandbox whose globals land in a table.
local function sandbox()
  local _ENV = setmetatable({}, { __index = _G })
  counter = 0
  for i = 1, 5 do counter = counter + i end
  return _ENV
end
local sb = sandbox()
print("sandbox", sb.counter, rawget(_G, "counter"), sb.print == print)

-- Globals through a strict metatable on _G.
setmetatable(_G, {
  __newindex = function(_, k) error("assignment to undeclared global " .. k, 2) end,
  __index = function(_, k) error("undeclared global " .. k, 2) end,
})
print("strict", pcall(function() undeclared = 1 end))
print("strict", pcall(function() return not_there end))
setmetatable(_G, nil)

-- string.dump round trip.
local function adder(p) return function(q) return p + q end end
local dumped = string.dump(function(a, b) return a * 100 + b end)
print("dump", load(dumped, "dumped", "b")(4, 2), pcall(load, dumped, "dumped", "t"))
print("upvalue", debug.getupvalue(adder(5), 1))

-- Weak tables are cleared by a full collection.
local weak = setmetatable({}, { __mode = "k" })
local strong = {}
for i = 1, 10 do
  local k = { id = i }
  weak[k] = i
  if i % 2 == 0 then strong[#strong + 1] = k end
end
collectgarbage("collect")
collectgarbage("collect")
local survivors = {}
for k, v in pairs(weak) do survivors[#survivors + 1] = v end
table.sort(survivors)
print("weak", table.concat(survivors, " "))
local cache = setmetatable({}, { __mode = "v" })
cache.a = {}
cache.b = strong[1]
collectgarbage()
print("weak values", cache.a, cache.b == strong[1])

-- Finalisers run at collection, in reverse order of marking.
local fin = {}
do
  for i = 1, 3 do setmetatable({}, { __gc = function() fin[#fin + 1] = i end }) end
end
collectgarbage()
table.sort(fin)
print("gc", table.concat(fin, ","))

-- Table keys: floats with integral values normalise to integers; NaN is rejected.
local t = {}
t[1] = "int"; t[1.0] = "float"; t[2^53] = "big"; t["1"] = "str"
print("keys", t[1], #t, t[2^53 | 0], t["1"], pcall(function() t[0 / 0] = 1 end))
print("raw", rawequal(t, t), rawequal("a", "a"), rawlen({ 1, 2, 3 }), rawlen("four"),
  next({}), next({ 10 }))

-- Border (#) of sequences built in different ways.
local seq = {}
for i = 1, 100 do seq[i] = i end
for i = 100, 51, -1 do seq[i] = nil end
print("length", #seq, #{ 1, 2, 3, nil }, #{ n = 1 }, select("#", table.unpack({ 1, 2, 3 })))

-- Building a large string through a table buffer and io.write.
local buf = {}
for i = 1, 2000 do buf[#buf + 1] = string.char(97 + i % 26) end
local big = table.concat(buf)
io.write("buffer ", #big, " ", big:sub(1, 30), " ", select(2, big:gsub("a", "")), "\n")
io.write(string.format("%5.2f%%\n", 12.345), 1, " ", 2.5, "\n")

-- Integer-keyed sparse arrays and ipairs stopping at the first hole.
local sparse = { [1] = "a", [2] = "b", [4] = "d", [1000] = "z" }
local seen = {}
for i, v in ipairs(sparse) do seen[#seen + 1] = i .. v end
print("ipairs", table.concat(seen, " "))

-- __index chains, __pairs-free iteration via next, and inheritance of metamethods.
local Base = { greet = function(self) return "hi from " .. self.name end }
local Mid = setmetatable({ kind = "mid" }, { __index = Base })
local obj = setmetatable({ name = "obj" }, { __index = Mid })
print("chain", obj:greet(), obj.kind, rawget(obj, "kind"))

-- os and io bits that are deterministic.
print("os", type(os.getenv("PATH")), os.getenv("STRATA_SURELY_UNSET_VARIABLE"), type(io.stdout),
  io.type(io.stdout), io.type(42))

io.stdout:write("exiting with status 3\n")
io.stdout:flush()
os.exit(3)
