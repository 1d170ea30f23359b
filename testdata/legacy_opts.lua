-- A script that declares no options: any option is accepted and becomes
-- a string global, as in sysbench 0.5.
function help()
  print("oltp_table_size=" .. tostring(oltp_table_size) .. " (" .. type(oltp_table_size) .. ")")
  print("threads=" .. tostring(threads) .. " (" .. type(threads) .. ")")
end
