-- Draws RAND_DRAWS values from sysbench.rand.RAND_FUNC and prints one
-- "bin <count>" line per bin. For a function of (lo, hi), value v falls in
-- bin floor((v - lo) * bins / (hi - lo + 1)); uniform_double uses
-- floor(v * bins); string_digits and string_letters count the characters
-- of "##########" and "@@@@@@@@@@" templates (RAND_DRAWS characters).
local fname = os.getenv("RAND_FUNC")
local lo = tonumber(os.getenv("RAND_LO") or "1")
local hi = tonumber(os.getenv("RAND_HI") or "1000")
local bins = tonumber(os.getenv("RAND_BINS") or "20")
local draws = tonumber(os.getenv("RAND_DRAWS") or "100000")
local counts = {}
for i = 0, bins - 1 do counts[i] = 0 end
local function add(i)
   if i < 0 or i >= bins then error("value outside the bins: " .. i) end
   counts[i] = counts[i] + 1
end
if fname == "uniform_double" then
   for _ = 1, draws do add(math.floor(sysbench.rand.uniform_double() * bins)) end
elseif fname == "string_digits" or fname == "string_letters" then
   local tmpl, base = "##########", 48
   if fname == "string_letters" then tmpl, base = "@@@@@@@@@@", 97 end
   for _ = 1, draws / 10 do
      local s = sysbench.rand.string(tmpl)
      for j = 1, #s do add(s:byte(j) - base) end
   end
else
   local f = sysbench.rand[fname]
   local width = hi - lo + 1
   for _ = 1, draws do add(math.floor((f(lo, hi) - lo) * bins / width)) end
end
for i = 0, bins - 1 do print("bin " .. counts[i]) end
