-- The string library: format, patterns, gsub/gmatch/find/match, byte/char, pack, utf8.

print(string.format("%d|%5d|%-5d|%05d|%+d|%x|%X|%o|%c", 42, 42, 42, 42, 42, 255, 255, 8, 65))
print(string.format("%f|%.3f|%10.2f|%-10.2f|%e|%.2E|%g|%g|%g", math.pi, math.pi, -2.5, 2.5,
  12345.678, 0.000123, 1e20, 0.1, 100))
print(string.format("%s|%10s|%-10s|%.3s|%q|%%", "abc", "right", "left", "truncate", 'a "q"\n\0z'))
print(string.format("%q|%q|%q", 1 / 0, math.mininteger, 0.5))
print(string.format("%a", 1.0), string.format("%5.1s|", "xyz"))

local s = "The quick brown fox jumps over the lazy dog"
print(s:len(), s:upper(), s:lower():reverse())
print(s:sub(5, 9), s:sub(-3), s:sub(-8, -5), s:sub(0), ("x"):rep(5, ","))
print(s:find("quick"), s:find("o", 15), s:find("%s(%a+)%s", 10), s:find(".", 1, true))
print(s:match("(%a+) (%a+)$"), s:match("()fox()"))

-- gsub with string, table and function replacements, and a limit.
print((s:gsub("o", "0")))
print(s:gsub("(%w+)", "<%1>", 3))
print(("hello world"):gsub("(%w+) (%w+)", "%2 %1 %0"))
local map = { quick = "slow", lazy = "energetic" }
print((s:gsub("%a+", map)))
print((s:gsub("%a+", function(w) if #w > 4 then return w:upper() end end)))
print(("abc"):gsub("", "-"))

-- gmatch: words, key=value pairs, numbers.
local words = {}
for w in s:gmatch("%a+") do words[#words + 1] = #w end
print("word lengths", table.concat(words, " "))
local kv = {}
for k, v in ("a=1, bb=22, ccc=333"):gmatch("(%w+)=(%w+)") do kv[#kv + 1] = v .. k end
print("kv", table.concat(kv, " "))
local total = 0
for n in ("10 apples, 2.5 pears, -3 plums, 0x10 figs"):gmatch("%-?[%w.]+") do
  total = total + (tonumber(n) or 0)
end
print("numbers sum", total)

-- Character classes, anchors, balanced matches and frontiers.
print(("  trim me  "):match("^%s*(.-)%s*$") .. "|")
print(("f(a(b)c)d(e)"):match("%b()"), ("THE (quick) fox"):find("%f[%a]%a+%f[%A]"))
print(("key = value # comment"):match("^(%w+)%s*=%s*(%w+)"))
print(("2024-01-15"):match("(%d+)-(%d+)-(%d+)"))
print(("hello"):find("l+"), ("hello"):match(".-l"), ("hello"):match(".*l"))
print(("a,b,,c"):gsub(",", ";"), ("[x]"):gsub("[%[%]]", "%%"))
print(string.find("abc", "b", -10), string.find("", ""), string.find("abc", "", 10))

-- byte/char and escapes.
print(string.byte("ABC", 1, -1), string.char(72, 105, 33), #"\u{48}\x41\65\z
      \t")
local bytes = {}
for i = 0, 255, 17 do bytes[#bytes + 1] = string.char(i) end
local packed = table.concat(bytes)
local hex = packed:gsub(".", function(c) return string.format("%02x", c:byte()) end)
print("hex", hex)

-- string.pack / unpack.
local p = string.pack("<i4 >i2 z s1 d", -2, 513, "zs", "abc", 1.5)
print("pack", #p, (p:gsub(".", function(c) return string.format("%02x", c:byte()) end)))
print("unpack", string.unpack("<i4 >i2 z s1 d", p))
print("packsize", string.packsize("i4 i8 d b"))

-- Numbers to strings and back.
print(tostring(10), tostring(10.0), tostring(-0.0), tostring(1e100), tostring(2^63), 3 .. "")
print(tonumber("0x1p4"), tonumber("  12  "), tonumber("1e2"), tonumber("z", 36), tonumber("777", 8),
  tonumber("12a"), tonumber(""), math.type(tonumber("3")), math.type(tonumber("3.0")))
print("10" + 5, "3" * "4", 10 .. 20, "2" ^ 2, -"2")

-- utf8.
local u = "héllo wörld ✓"
print(#u, utf8.len(u), utf8.char(72, 228, 8364, 128512), utf8.codepoint(u, 1, 3))
local cps = {}
for _, c in utf8.codes("añ✓") do cps[#cps + 1] = c end
print("codes", table.concat(cps, ","), utf8.offset(u, 3), #utf8.charpattern)

-- String comparison and a word-frequency table printed in sorted order.
print("a" < "b", "abc" < "abd", "Z" < "a", "" < "a", "10" < "9")
local text = ("the cat and the dog and the bird saw the cat"):rep(3, " ")
local freq = {}
for w in text:gmatch("%a+") do freq[w] = (freq[w] or 0) + 1 end
local ws = {}
for w in pairs(freq) do ws[#ws + 1] = w end
table.sort(ws, function(x, y)
  if freq[x] ~= freq[y] then return freq[x] > freq[y] end
  return x < y
end)
for _, w in ipairs(ws) do io.write(w, "=", freq[w], " ") end
io.write("\n")
