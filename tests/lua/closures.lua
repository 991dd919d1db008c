-- Closures, upvalues, varargs, tables and metatables, and a small class system.

local function counter(start, step)
  local n = start
  return function()
    n = n + step
    return n
  end, function() return n end
end

local inc, get = counter(10, 3)
inc(); inc()
print("counter", inc(), get())

-- Closures in a loop capture a fresh variable per iteration.
local fs = {}
for i = 1, 5 do
  fs[i] = function(x) return i * x end
end
local acc = {}
for i = 1, 5 do acc[#acc + 1] = fs[i](i + 1) end
print("loop closures", table.concat(acc, ","))

-- Shared upvalues between sibling closures.
local function pair()
  local v = 0
  return function(d) v = v + d end, function() return v end
end
local add, read = pair()
for i = 1, 100 do add(i) end
print("shared upvalue", read())

-- Varargs and select.
local function va(...)
  local n = select("#", ...)
  local t = table.pack(...)
  local s = 0
  for i = 1, t.n do
    if type(t[i]) == "number" then s = s + t[i] end
  end
  return n, s, select(-1, ...)
end
print("varargs", va(1, nil, 3, "x", 5.5))
print("unpack", table.unpack({ 1, 2, 3, 4 }, 2, 3))

-- Recursive local function and tail calls.
local function sum_to(n, a)
  if n == 0 then return a end
  return sum_to(n - 1, a + n)
end
print("tail call", sum_to(100000, 0))

-- Table library.
local t = {}
for i = 1, 10 do table.insert(t, i * i) end
table.insert(t, 1, 0)
print("remove", table.remove(t), table.remove(t, 1), #t)
print("move", table.concat(table.move(t, 2, 4, 1, {}), " "))
print("concat", table.concat(t, "-", 3, 6))

-- Metatables: arithmetic, comparison, concatenation, call, index, newindex, len, tostring.
local Vec = {}
Vec.__index = Vec
local function vec(x, y) return setmetatable({ x = x, y = y }, Vec) end
Vec.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
Vec.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y) end
Vec.__mul = function(a, b)
  if type(a) == "number" then return vec(a * b.x, a * b.y) end
  if type(b) == "number" then return vec(a.x * b, a.y * b) end
  return a.x * b.x + a.y * b.y
end
Vec.__unm = function(a) return vec(-a.x, -a.y) end
Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y end
Vec.__lt = function(a, b) return a:len2() < b:len2() end
Vec.__le = function(a, b) return a:len2() <= b:len2() end
Vec.__len = function(a) return 2 end
Vec.__tostring = function(a) return "(" .. a.x .. ", " .. a.y .. ")" end
Vec.__concat = function(a, b) return tostring(a) .. tostring(b) end
Vec.__call = function(a, k) return a[k] end
function Vec:len2() return self.x * self.x + self.y * self.y end

local a, b = vec(1, 2), vec(3, -4)
print("vec", tostring(a + b), tostring(a - b), a * b, tostring(2 * a), tostring(-b))
print("vec cmp", a == vec(1, 2), a ~= b, a < b, b <= a, #a, a .. b, a("y"))

-- __index function with memoisation, __newindex that records writes.
local squares = setmetatable({}, {
  __index = function(t, k)
    local v = k * k
    rawset(t, k, v)
    return v
  end,
})
print("memo index", squares[12], rawget(squares, 12), rawget(squares, 13))

local log = {}
local proxy = setmetatable({}, {
  __newindex = function(t, k, v)
    log[#log + 1] = k .. "=" .. tostring(v)
    rawset(t, k, v)
  end,
})
proxy.a = 1
proxy.b = 2
proxy.a = 3 -- existing key: no __newindex
print("newindex", table.concat(log, ";"), proxy.a)

-- A small class system with inheritance and super calls.
local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, { __index = parent }) end
  c.new = function(...)
    local o = setmetatable({}, c)
    if o.init then o:init(...) end
    return o
  end
  c.super = parent
  return c
end

local Animal = class()
function Animal:init(name, legs) self.name = name; self.legs = legs end
function Animal:speak() return self.name .. " makes a sound" end
function Animal:describe() return self.name .. " has " .. self.legs .. " legs; " .. self:speak() end

local Dog = class(Animal)
function Dog:init(name) Dog.super.init(self, name, 4); self.tricks = {} end
function Dog:speak() return self.name .. " barks" end
function Dog:learn(t) self.tricks[#self.tricks + 1] = t; return self end

local Bird = class(Animal)
function Bird:init(name) Animal.init(self, name, 2) end

local zoo = { Animal.new("Generic", 0), Dog.new("Rex"):learn("sit"):learn("roll"), Bird.new("Tweety") }
for _, x in ipairs(zoo) do print("class", x:describe()) end
print("tricks", table.concat(zoo[2].tricks, "+"), getmetatable(zoo[2]) == Dog, zoo[3].speak == Animal.speak)

-- Sorted iteration over a hash table (pairs order itself is not deterministic).
local h = { apple = 3, pear = 7, fig = 1, kiwi = 5, plum = 2 }
local keys = {}
for k in pairs(h) do keys[#keys + 1] = k end
table.sort(keys)
local parts = {}
for _, k in ipairs(keys) do parts[#parts + 1] = k .. ":" .. h[k] end
print("sorted keys", table.concat(parts, " "))
