-- Prints the first values sysbench draws in its main thread, one
-- "<call> <value>" line each, in call order.
local R = sysbench.rand
local function show(call, v) print(call .. " " .. tostring(v)) end
for _ = 1, 3 do show("uniform_uint64()", (tostring(R.uniform_uint64()):gsub("ULL$", ""))) end
for _ = 1, 3 do show("uniform_double()", string.format("%.17g", R.uniform_double())) end
local calls = {
   {"uniform", 1, 1000, 5}, {"gaussian", 1, 1000, 5}, {"special", 1, 1000, 5},
   {"pareto", 1, 1000, 5}, {"default", 1, 1000, 5}, {"uniform", 0, 4294967295, 1},
   {"uniform", 10, 1, 2}, {"uniform", -5, 5, 5}, {"special", 1, 100000, 3},
   {"gaussian", 1, 100000, 3}, {"pareto", 1, 1000000, 3},
}
for _, c in ipairs(calls) do
   for _ = 1, c[4] do
      show(string.format("%s(%d,%d)", c[1], c[2], c[3]), R[c[1]](c[2], c[3]))
   end
end
for _ = 1, 3 do show("string(##-@@_x#)", R.string("##-@@_x#")) end
for _ = 1, 3 do show("unique()", R.unique()) end
