-- Prints a few numbers of each kind the bundled workloads draw on the main
-- thread. Run twice with the same --rand-seed, a tool whose random
-- sequence follows the seed prints the same line both times.
function prepare()
  local out = {}
  for _ = 1, 5 do
    out[#out + 1] = sysbench.rand.default(1, 100000)
  end
  out[#out + 1] = sysbench.rand.uniform(1, 1000000)
  out[#out + 1] = sysbench.rand.string("###########-###########")
  print(table.concat(out, " "))
end
