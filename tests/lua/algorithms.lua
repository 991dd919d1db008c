-- Recursive and iterative algorithms: n-queens, memoised Fibonacci, sorting (library sort
-- with comparators and a hand-written merge sort and quicksort), a sieve, a priority queue,
-- big-number arithmetic, a tiny expression evaluator and Conway's life.

-- N-queens: count all solutions and print the first for n = 8.
local function queens(n)
  local cols, d1, d2, pos = {}, {}, {}, {}
  local count, first = 0, nil
  local function place(r)
    if r > n then
      count = count + 1
      if not first then first = table.concat(pos, "") end
      return
    end
    for c = 1, n do
      if not cols[c] and not d1[r + c] and not d2[r - c + n] then
        cols[c], d1[r + c], d2[r - c + n] = true, true, true
        pos[r] = c
        place(r + 1)
        cols[c], d1[r + c], d2[r - c + n] = nil, nil, nil
      end
    end
  end
  place(1)
  return count, first
end
for n = 4, 8 do print("queens", n, queens(n)) end

-- Memoised Fibonacci (integers up to fib(90) fit in 64 bits) and naive recursion.
local memo = {}
local function fib(n)
  if n < 2 then return n end
  local v = memo[n]
  if v then return v end
  v = fib(n - 1) + fib(n - 2)
  memo[n] = v
  return v
end
local function slowfib(n) if n < 2 then return n end return slowfib(n - 1) + slowfib(n - 2) end
print("fib", fib(30), fib(60), fib(90), slowfib(20))

-- Deterministic pseudo-random data (a linear congruential generator, not math.random).
local seed = 12345
local function lcg()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed
end
local data = {}
for i = 1, 2000 do data[i] = lcg() % 10000 end

local function is_sorted(t, lt)
  lt = lt or function(a, b) return a < b end
  for i = 2, #t do if lt(t[i], t[i - 1]) then return false end end
  return true
end
local function checksum(t)
  local h = 0
  for i = 1, #t do h = (h * 31 + t[i]) % 1000000007 end
  return h
end

local a = table.move(data, 1, #data, 1, {})
table.sort(a)
local b = table.move(data, 1, #data, 1, {})
table.sort(b, function(x, y) return x > y end)
print("table.sort", is_sorted(a), is_sorted(b, function(x, y) return x > y end), a[1], a[#a],
  b[1], checksum(a))

local function merge_sort(t)
  if #t <= 1 then return t end
  local mid = #t // 2
  local l = merge_sort(table.move(t, 1, mid, 1, {}))
  local r = merge_sort(table.move(t, mid + 1, #t, 1, {}))
  local res, i, j = {}, 1, 1
  while i <= #l and j <= #r do
    if l[i] <= r[j] then res[#res + 1] = l[i]; i = i + 1 else res[#res + 1] = r[j]; j = j + 1 end
  end
  for k = i, #l do res[#res + 1] = l[k] end
  for k = j, #r do res[#res + 1] = r[k] end
  return res
end
local function quicksort(t, lo, hi)
  lo, hi = lo or 1, hi or #t
  if lo >= hi then return t end
  local p = t[(lo + hi) // 2]
  local i, j = lo, hi
  while i <= j do
    while t[i] < p do i = i + 1 end
    while t[j] > p do j = j - 1 end
    if i <= j then t[i], t[j] = t[j], t[i]; i = i + 1; j = j - 1 end
  end
  quicksort(t, lo, j)
  return quicksort(t, i, hi)
end
local m = merge_sort(data)
local q = quicksort(table.move(data, 1, #data, 1, {}))
print("merge/quick", checksum(m) == checksum(a), checksum(q) == checksum(a), #m, #q)

-- Stable sort of records by two keys (ties broken by original index).
local people = {}
local names = { "ann", "bob", "cyd", "dee", "eve", "fay", "gus", "hal" }
for i = 1, 24 do people[i] = { name = names[(i * 5) % 8 + 1], age = 20 + (i * 7) % 13, idx = i } end
table.sort(people, function(x, y)
  if x.age ~= y.age then return x.age < y.age end
  if x.name ~= y.name then return x.name < y.name end
  return x.idx < y.idx
end)
local ps = {}
for i = 1, 10 do ps[i] = people[i].name .. people[i].age .. "#" .. people[i].idx end
print("records", table.concat(ps, " "))

-- Sieve of Eratosthenes.
local function sieve(n)
  local comp, primes = {}, {}
  for i = 2, n do
    if not comp[i] then
      primes[#primes + 1] = i
      for j = i * i, n, i do comp[j] = true end
    end
  end
  return primes
end
local pr = sieve(20000)
print("primes", #pr, pr[#pr], table.concat(pr, ",", 1, 15))

-- Binary heap priority queue.
local Heap = {}
Heap.__index = Heap
function Heap.new() return setmetatable({ n = 0 }, Heap) end
function Heap:push(v)
  self.n = self.n + 1
  local i = self.n
  self[i] = v
  while i > 1 and self[i // 2] > self[i] do
    self[i // 2], self[i] = self[i], self[i // 2]
    i = i // 2
  end
end
function Heap:pop()
  local top = self[1]
  self[1] = self[self.n]
  self[self.n] = nil
  self.n = self.n - 1
  local i = 1
  while true do
    local l, r, s = 2 * i, 2 * i + 1, i
    if l <= self.n and self[l] < self[s] then s = l end
    if r <= self.n and self[r] < self[s] then s = r end
    if s == i then break end
    self[i], self[s] = self[s], self[i]
    i = s
  end
  return top
end
local h = Heap.new()
for i = 1, 300 do h:push(data[i]) end
local popped = {}
for i = 1, 12 do popped[i] = h:pop() end
print("heap", table.concat(popped, " "), h.n)

-- Arbitrary-precision factorial with base-10^7 limbs.
local function bigmul(x, k)
  local carry = 0
  for i = 1, #x do
    local v = x[i] * k + carry
    x[i] = v % 10000000
    carry = v // 10000000
  end
  while carry > 0 do x[#x + 1] = carry % 10000000; carry = carry // 10000000 end
end
local function bigstr(x)
  local parts = { tostring(x[#x]) }
  for i = #x - 1, 1, -1 do parts[#parts + 1] = string.format("%07d", x[i]) end
  return table.concat(parts)
end
local fact = { 1 }
for i = 2, 100 do bigmul(fact, i) end
local fs = bigstr(fact)
print("100!", #fs, fs:sub(1, 30), fs:sub(-30))

-- A recursive-descent expression evaluator.
local function evaluate(src)
  local pos = 1
  local function peek() return src:match("^%s*(.)", pos) end
  local function take(p)
    local s, e, cap = src:find("^%s*(" .. p .. ")", pos)
    if s then pos = e + 1; return cap end
  end
  local expr
  local function atom()
    local n = take("%d+%.?%d*")
    if n then return tonumber(n) end
    if take("%(") then
      local v = expr()
      assert(take("%)"), "expected )")
      return v
    end
    if take("%-") then return -atom() end
    error("unexpected " .. tostring(peek()) .. " at " .. pos, 0)
  end
  local function power()
    local b = atom()
    if take("%^") then return b ^ power() end
    return b
  end
  local function term()
    local v = power()
    while true do
      local op = take("[%*/%%]")
      if not op then return v end
      local r = power()
      if op == "*" then v = v * r elseif op == "/" then v = v / r else v = v % r end
    end
  end
  function expr()
    local v = term()
    while true do
      local op = take("[%+%-]")
      if not op then return v end
      local r = term()
      if op == "+" then v = v + r else v = v - r end
    end
  end
  local v = expr()
  if pos <= #src and peek() then error("trailing input at " .. pos, 0) end
  return v
end
for _, e in ipairs({ "1 + 2 * 3", "(1 + 2) * 3", "2 ^ 3 ^ 2", "-4 + 10 % 3", "7 / 2 - 0.5", "2 * (3 + 4) * 5", "1 +", "3 $ 4" }) do
  print("eval", e, pcall(evaluate, e))
end

-- Conway's game of life on a small torus: a glider after 8 generations.
local W, H = 10, 8
local grid = {}
for y = 1, H do grid[y] = {} for x = 1, W do grid[y][x] = 0 end end
for _, c in ipairs({ { 2, 1 }, { 3, 2 }, { 1, 3 }, { 2, 3 }, { 3, 3 } }) do grid[c[2]][c[1]] = 1 end
for _ = 1, 8 do
  local nxt = {}
  for y = 1, H do
    nxt[y] = {}
    for x = 1, W do
      local n = 0
      for dy = -1, 1 do
        for dx = -1, 1 do
          if dx ~= 0 or dy ~= 0 then n = n + grid[(y + dy - 1) % H + 1][(x + dx - 1) % W + 1] end
        end
      end
      nxt[y][x] = (n == 3 or (n == 2 and grid[y][x] == 1)) and 1 or 0
    end
  end
  grid = nxt
end
for y = 1, H do
  local row = {}
  for x = 1, W do row[x] = grid[y][x] == 1 and "#" or "." end
  print(table.concat(row))
end

-- Ackermann and Towers of Hanoi.
local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end
local moves = 0
local function hanoi(n, from, to, via)
  if n == 0 then return end
  hanoi(n - 1, from, via, to)
  moves = moves + 1
  hanoi(n - 1, via, to, from)
end
hanoi(12, "a", "c", "b")
print("ack", ack(2, 3), ack(3, 3), "hanoi", moves)
