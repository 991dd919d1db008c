-- Integer and float arithmetic: floor division, modulo, exponentiation, bitwise operators,
-- conversions, overflow wrap-around and the math library.

local ints = { 7, -7, 3, -3, 1, 0, 13, -13, 100 }
local divs = { 2, -2, 3, -3, 5 }
local out = {}
for _, a in ipairs(ints) do
  for _, b in ipairs(divs) do
    out[#out + 1] = string.format("%d//%d=%d %d%%%d=%d", a, b, a // b, a, b, a % b)
  end
end
print(table.concat(out, " "))

-- Float floor division and modulo, including signs, infinities and NaN.
print(7.5 // 2, -7.5 // 2, 7.5 % 2, -7.5 % 2, 7 % -2.5, 5.0 // 0, -5 // 0.0, 1 % math.huge, -1 % math.huge)
print(0/0 ~= 0/0, math.huge > math.maxinteger, -math.huge < math.mininteger, 3 % -math.huge)
print(pcall(function() return 1 // 0 end))
print(pcall(function() return 1 % 0 end))

-- Integer overflow wraps around; float conversion does not.
print(math.maxinteger + 1 == math.mininteger, math.mininteger - 1 == math.maxinteger)
print(math.maxinteger * 2, math.mininteger // -1, math.mininteger % -1, -math.mininteger)
print(math.maxinteger + 0.0, math.maxinteger // 1.0, 2^53 + 1, (2^53 | 0) + 1)

-- Exponentiation and division always produce floats.
print(2 ^ 10, 2 ^ 0.5, 10 / 2, 1 / 3, 3 / -0.0, (-8) ^ (1 / 3) ~= (-8) ^ (1 / 3))

-- Bitwise operators on integers and integral floats.
print(0xFF & 0x0F, 0xF0 | 0x0F, 0xFF ~ 0x0F, ~0, ~5, 1 << 62, 1 << 63, 1 << 64, -1 >> 1, -1 >> 63, 3.0 | 0)
print(0x7fffffff << 1, 0xdeadbeef >> 4, (0xdeadbeef ~ 0xcafebabe) & 0xffff, 1 << -1, 8 >> -1)
print(pcall(function() return 1.5 | 0 end))
print(pcall(function() return "3" | 0 end), pcall(function() return {} | 0 end))

-- A 32-bit hash (FNV-1a) and xorshift PRNG built from bitwise operators.
local function fnv1a(s)
  local h = 0x811c9dc5
  for i = 1, #s do
    h = h ~ s:byte(i)
    h = (h * 0x01000193) & 0xffffffff
  end
  return h
end
print(string.format("fnv %08x %08x %08x", fnv1a(""), fnv1a("a"), fnv1a("The quick brown fox")))
local x = 88172645463325252
local function xorshift()
  x = x ~ (x << 13)
  x = x ~ (x >> 7)
  x = x ~ (x << 17)
  return x
end
local xs = {}
for _ = 1, 6 do xs[#xs + 1] = string.format("%016x", xorshift()) end
print("xorshift", table.concat(xs, " "))

-- Popcount, bit reversal and gcd.
local function popcount(n)
  local c = 0
  while n ~= 0 do n = n & (n - 1); c = c + 1 end
  return c
end
local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end
print("popcount", popcount(0), popcount(255), popcount(-1), popcount(0x5555555555555555))
print("gcd", gcd(1071, 462), gcd(2^40 | 0, 6^20 | 0), gcd(17, 5))

-- Conversions and math library.
print(math.type(1), math.type(1.0), math.type("1"), math.tointeger(3.0), math.tointeger(3.5),
  math.tointeger("8"), 3 == 3.0, math.ult(1, -1), math.abs(math.mininteger))
print(math.floor(-3.5), math.ceil(-3.5), math.floor(3.7), math.ceil(3.2), math.fmod(-7, 3),
  math.fmod(7, -3), math.fmod(-7.5, 2), math.modf(-3.75))
print(math.max(3, 9.5, -2), math.min(3, 9.5, -2), math.sqrt(2), math.exp(1), math.log(8, 2),
  math.log(100, 10), math.log(1))
print(string.format("%.10f %.10f %.10f %.10f", math.sin(1), math.cos(1), math.tan(0.5), math.atan(1, 2)))
print(string.format("%.17g %.17g %.17g", 0.1 + 0.2, 1 / 3, 1e308 * 10))
print(string.format("%d %s %s", 3.0, 2^63, math.pi), 1e15, 1e16, 123456789012345678)
print(8 // 3 * 3 + 8 % 3, 2^-1, -2^2, not nil == true, 1 < 1.5, 2 <= 2.0, "10" == 10)

-- Integer for loops with float and negative steps, and overflow-safe bounds.
local n = 0
for i = math.maxinteger - 2, math.maxinteger do n = n + 1 end
for i = 1, 0 do n = n + 100 end
local fl = {}
for v = 1, 2, 0.25 do fl[#fl + 1] = v end
for v = 10, 1, -4 do fl[#fl + 1] = v end
print("loops", n, table.concat(fl, " "))

-- Numerical integration and a Newton iteration.
local function simpson(f, a, b, k)
  local h = (b - a) / k
  local s = f(a) + f(b)
  for i = 1, k - 1 do s = s + f(a + i * h) * (i % 2 == 1 and 4 or 2) end
  return s * h / 3
end
print(string.format("simpson %.12f newton %.12f", simpson(math.sin, 0, math.pi, 1000),
  (function(v) local r = v for _ = 1, 30 do r = (r + v / r) / 2 end return r end)(2)))
