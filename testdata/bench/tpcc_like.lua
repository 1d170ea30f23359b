-- A TPC-C-like order-entry workload, written from the TPC-C specification's
-- transaction profiles (clause 2): New-Order, Payment, Order-Status,
-- Delivery and Stock-Level in the 45/43/4/4/4 mix. It is a Lua-heavy
-- benchmark of the client: every statement is text built with
-- string.format and `..`, a transaction draws dozens of random numbers,
-- result sets are read row by row, and values are kept in Lua tables.
-- It is not a TPC-C implementation (no keying or think times, no
-- terminals bound to warehouses, scaled-down cardinalities on request).
--
-- It uses the sysbench 1.0 API only, so sysbench 1.0.20 and sbgo run it alike:
--   sysbench tpcc_like.lua --db-driver=mysql --warehouses=2 prepare
--   sysbench tpcc_like.lua --db-driver=mysql --warehouses=2 --threads=8 --time=30 run
--   sysbench tpcc_like.lua --db-driver=mysql --warehouses=2 cleanup
-- With --mix-report=on every thread prints, at its end, the transactions,
-- statements and rows read per transaction type.

sysbench.cmdline.options = {
  warehouses = {"Number of warehouses", 2},
  items = {"Number of items (100000 in TPC-C)", 100000},
  customers = {"Customers per district (3000 in TPC-C)", 3000},
  orders = {"Orders per district loaded by prepare (3000 in TPC-C); the last 30% are undelivered", 3000},
  mix_report = {"Print each thread's transactions, statements and rows per type at its end", false},
}

local DISTRICTS = 10
local SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}
-- NURand's run-time constants C (clause 2.1.6) and the one for last names at load time.
local C_LAST_LOAD, C_LAST_RUN, C_CUST, C_ITEM = 157, 223, 259, 7911

local fmt = string.format
local rand = sysbench.rand.uniform
local bor = bit.bor

-- Templates of random letters and digits, by length, for sysbench.rand.string.
local letters, digits = {}, {}
for n = 1, 500 do
  letters[n] = string.rep("@", n)
  digits[n] = string.rep("#", n)
end

local function astring(min, max)
  return sysbench.rand.string(letters[rand(min, max)])
end

local function nstring(n)
  return sysbench.rand.string(digits[n])
end

-- NURand(A, x, y) of clause 2.1.6, with C the constant for A.
local function nurand(a, c, x, y)
  return (bor(rand(0, a), rand(x, y)) + c) % (y - x + 1) + x
end

-- A customer last name made of three syllables from a number in 0..999.
local function last_name(n)
  return SYLLABLES[math.floor(n / 100) + 1] .. SYLLABLES[math.floor(n / 10) % 10 + 1] .. SYLLABLES[n % 10 + 1]
end

-- A data field of 26 to 50 letters, a tenth of which carry "ORIGINAL".
local function data_field()
  local s = astring(26, 50)
  if rand(1, 10) == 1 then
    local at = rand(1, #s - 8)
    s = s:sub(1, at - 1) .. "ORIGINAL" .. s:sub(at + 8)
  end
  return s
end

local function address()
  return fmt("'%s','%s','%s','%s','%s11111'", astring(10, 20), astring(10, 20), astring(10, 20),
    astring(2, 2), nstring(4))
end

-- Schema ---------------------------------------------------------------------

local TABLES = {
  item = [[i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2),
    i_data VARCHAR(50), PRIMARY KEY (i_id)]],
  warehouse = [[w_id SMALLINT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20),
    w_street_2 VARCHAR(20), w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4),
    w_ytd DECIMAL(12,2), PRIMARY KEY (w_id)]],
  district = [[d_id TINYINT NOT NULL, d_w_id SMALLINT NOT NULL, d_name VARCHAR(10),
    d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9),
    d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INT, PRIMARY KEY (d_w_id, d_id)]],
  customer = [[c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id SMALLINT NOT NULL,
    c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20),
    c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16),
    c_since DATETIME, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4),
    c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt INT, c_delivery_cnt INT,
    c_data VARCHAR(500), PRIMARY KEY (c_w_id, c_d_id, c_id), KEY (c_w_id, c_d_id, c_last, c_first)]],
  history = [[h_c_id INT, h_c_d_id TINYINT, h_c_w_id SMALLINT, h_d_id TINYINT, h_w_id SMALLINT,
    h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24)]],
  orders = [[o_id INT NOT NULL, o_d_id TINYINT NOT NULL, o_w_id SMALLINT NOT NULL, o_c_id INT,
    o_entry_d DATETIME, o_carrier_id TINYINT, o_ol_cnt TINYINT, o_all_local TINYINT,
    PRIMARY KEY (o_w_id, o_d_id, o_id), KEY (o_w_id, o_d_id, o_c_id, o_id)]],
  new_orders = [[no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, no_w_id SMALLINT NOT NULL,
    PRIMARY KEY (no_w_id, no_d_id, no_o_id)]],
  order_line = [[ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, ol_w_id SMALLINT NOT NULL,
    ol_number TINYINT NOT NULL, ol_i_id INT, ol_supply_w_id SMALLINT, ol_delivery_d DATETIME,
    ol_quantity TINYINT, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24),
    PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)]],
  stock = [[s_i_id INT NOT NULL, s_w_id SMALLINT NOT NULL, s_quantity SMALLINT,
    s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24),
    s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24),
    s_ytd INT, s_order_cnt SMALLINT, s_remote_cnt SMALLINT, s_data VARCHAR(50),
    PRIMARY KEY (s_w_id, s_i_id)]],
}
local TABLE_ORDER = {"item", "warehouse", "district", "customer", "history", "orders", "new_orders",
  "order_line", "stock"}

-- Load ------------------------------------------------------------------------

-- bulk inserts rows made by row(i) for i = 1..n into table name.
local function bulk(con, name, columns, n, row)
  con:bulk_insert_init("INSERT INTO " .. name .. " (" .. columns .. ") VALUES")
  for i = 1, n do
    con:bulk_insert_next(row(i))
  end
  con:bulk_insert_done()
end

local function load_items(con)
  bulk(con, "item", "i_id, i_im_id, i_name, i_price, i_data", sysbench.opt.items, function(i)
    return fmt("(%d,%d,'%s',%.2f,'%s')", i, rand(1, 10000), astring(14, 24), rand(100, 10000) / 100,
      data_field())
  end)
end

local function load_stock(con, w)
  bulk(con, "stock", "s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, " ..
    "s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, " ..
    "s_remote_cnt, s_data", sysbench.opt.items, function(i)
    local dist = {}
    for d = 1, DISTRICTS do
      dist[d] = astring(24, 24)
    end
    return fmt("(%d,%d,%d,'%s',0,0,0,'%s')", i, w, rand(10, 100), table.concat(dist, "','"), data_field())
  end)
end

local function load_customers(con, w, d)
  local n = sysbench.opt.customers
  bulk(con, "customer", "c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, " ..
    "c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, " ..
    "c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data", n, function(c)
    local last = c <= 1000 and c - 1 or nurand(255, C_LAST_LOAD, 0, 999)
    local credit = rand(1, 10) == 1 and "BC" or "GC"
    return fmt("(%d,%d,%d,'%s','OE','%s',%s,'%s',NOW(),'%s',50000.00,%.4f,-10.00,10.00,1,0,'%s')",
      c, d, w, astring(8, 16), last_name(last), address(), nstring(16), credit, rand(0, 5000) / 10000,
      astring(300, 500))
  end)
  bulk(con, "history", "h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data", n,
    function(c)
      return fmt("(%d,%d,%d,%d,%d,NOW(),10.00,'%s')", c, d, w, d, w, astring(12, 24))
    end)
end

-- load_orders loads a district's orders, their lines, and the undelivered
-- last 30% of them as new orders.
local function load_orders(con, w, d)
  local n, customers = sysbench.opt.orders, sysbench.opt.customers
  local first_new = n - math.floor(n * 3 / 10) + 1
  local counts = {}
  bulk(con, "orders", "o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local", n,
    function(o)
      counts[o] = rand(5, 15)
      local carrier = o < first_new and tostring(rand(1, 10)) or "NULL"
      return fmt("(%d,%d,%d,%d,NOW(),%s,%d,1)", o, d, w, (o - 1) % customers + 1, carrier, counts[o])
    end)
  con:bulk_insert_init("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, " ..
    "ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES")
  for o = 1, n do
    local delivered = o < first_new
    for l = 1, counts[o] do
      con:bulk_insert_next(fmt("(%d,%d,%d,%d,%d,%d,%s,5,%.2f,'%s')", o, d, w, l, rand(1, sysbench.opt.items),
        w, delivered and "NOW()" or "NULL", delivered and 0 or rand(1, 999999) / 100, astring(24, 24)))
    end
  end
  con:bulk_insert_done()
  bulk(con, "new_orders", "no_o_id, no_d_id, no_w_id", n - first_new + 1, function(i)
    return fmt("(%d,%d,%d)", first_new + i - 1, d, w)
  end)
end

local function load_warehouse(con, w)
  print(fmt("Loading warehouse %d", w))
  con:query(fmt("INSERT INTO warehouse VALUES (%d,'%s',%s,%.4f,300000.00)", w, astring(6, 10), address(),
    rand(0, 2000) / 10000))
  load_stock(con, w)
  for d = 1, DISTRICTS do
    con:query(fmt("INSERT INTO district VALUES (%d,%d,'%s',%s,%.4f,30000.00,%d)", d, w, astring(6, 10),
      address(), rand(0, 2000) / 10000, sysbench.opt.orders + 1))
    load_customers(con, w, d)
    load_orders(con, w, d)
  end
end

-- load_data is prepare: every thread makes sure the tables exist, thread 0
-- loads the items, and the threads load the warehouses between them.
local function load_data()
  local con = sysbench.sql.driver():connect()
  for _, name in ipairs(TABLE_ORDER) do
    if sysbench.tid == 0 then
      print(fmt("Creating table '%s'...", name))
    end
    con:query(fmt("CREATE TABLE IF NOT EXISTS %s (%s)", name, TABLES[name]))
  end
  if sysbench.tid == 0 then
    print(fmt("Loading %d items", sysbench.opt.items))
    load_items(con)
  end
  for w = sysbench.tid + 1, sysbench.opt.warehouses, sysbench.opt.threads do
    load_warehouse(con, w)
  end
  con:disconnect()
end

sysbench.cmdline.commands = {
  prepare = {load_data, sysbench.cmdline.PARALLEL_COMMAND},
}

function cleanup()
  local con = sysbench.sql.driver():connect()
  for _, name in ipairs(TABLE_ORDER) do
    print(fmt("Dropping table '%s'...", name))
    con:query("DROP TABLE IF EXISTS " .. name)
  end
end

-- Transactions ----------------------------------------------------------------

local con
local W, ITEMS, CUSTOMERS
-- Per transaction type (1..5, in the order of NAMES): transactions,
-- statements and rows read by this thread.
local NAMES = {"new_order", "payment", "order_status", "delivery", "stock_level"}
local txns, stmts, rows = {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}
local kind = 1

function thread_init()
  con = sysbench.sql.driver():connect()
  W, ITEMS, CUSTOMERS = sysbench.opt.warehouses, sysbench.opt.items, sysbench.opt.customers
end

function thread_done()
  if sysbench.opt.mix_report then
    local parts = {}
    for k, name in ipairs(NAMES) do
      parts[k] = fmt("%s %d/%d/%d", name, txns[k], stmts[k], rows[k])
    end
    print(fmt("thread %d transactions/statements/rows: %s", sysbench.tid, table.concat(parts, ", ")))
  end
  con:disconnect()
end

-- Every statement goes through these three, which count it.
local function query(sql)
  stmts[kind] = stmts[kind] + 1
  return con:query(sql)
end

local function query_row(sql)
  stmts[kind] = stmts[kind] + 1
  return con:query_row(sql)
end

local function fetch(rs)
  local row = rs:fetch_row()
  if row then
    rows[kind] = rows[kind] + 1
  end
  return row
end

-- other_warehouse is a warehouse other than w, or w when there is one only.
local function other_warehouse(w)
  if W == 1 then
    return w
  end
  local o = rand(1, W - 1)
  return o >= w and o + 1 or o
end

-- customer_by_name returns the id of the customer in the middle (by first
-- name) of those with a random last name, or nil when there is none.
local function customer_by_name(w, d)
  local last = last_name(nurand(255, C_LAST_RUN, 0, 999))
  local where = fmt("c_w_id = %d AND c_d_id = %d AND c_last = '%s'", w, d, last)
  local n = tonumber(query_row("SELECT COUNT(c_id) FROM customer WHERE " .. where))
  if n == 0 then
    return nil
  end
  local rs = query("SELECT c_id, c_first FROM customer WHERE " .. where .. " ORDER BY c_first")
  local middle = math.floor((n + 1) / 2)
  local id
  for _ = 1, middle do
    id = fetch(rs)[1]
  end
  return tonumber(id)
end

-- pick_customer is clause 2.5.1.2's choice: by last name 60% of the time.
local function pick_customer(w, d)
  local id
  if rand(1, 100) <= 60 then
    id = customer_by_name(w, d)
  end
  return id or nurand(1023, C_CUST, 1, CUSTOMERS)
end

local function new_order()
  local w, d = rand(1, W), rand(1, DISTRICTS)
  local c = nurand(1023, C_CUST, 1, CUSTOMERS)
  local n = rand(5, 15)
  local rollback = rand(1, 100) == 1
  -- The order lines, sorted by supplying warehouse and item so that
  -- concurrent orders lock stock rows in the same order.
  local lines, all_local = {}, 1
  for i = 1, n do
    local supply = w
    if rand(1, 100) == 1 then
      supply = other_warehouse(w)
    end
    if supply ~= w then
      all_local = 0
    end
    lines[i] = {item = nurand(8191, C_ITEM, 1, ITEMS), supply = supply, qty = rand(1, 10)}
  end
  if rollback then
    lines[n].item = ITEMS + 1 -- an unused item: the order is rolled back
  end
  table.sort(lines, function(a, b)
    if a.supply ~= b.supply then
      return a.supply < b.supply
    end
    return a.item < b.item
  end)

  query("BEGIN")
  local w_tax = tonumber(query_row(fmt("SELECT w_tax FROM warehouse WHERE w_id = %d", w)))
  local d_tax, o_id = query_row(fmt("SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = %d " ..
    "AND d_id = %d FOR UPDATE", w, d))
  d_tax, o_id = tonumber(d_tax), tonumber(o_id)
  query(fmt("UPDATE district SET d_next_o_id = %d WHERE d_w_id = %d AND d_id = %d", o_id + 1, w, d))
  local discount = tonumber((query_row(fmt("SELECT c_discount, c_last, c_credit FROM customer " ..
    "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", w, d, c))))
  query(fmt("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, " ..
    "o_all_local) VALUES (%d, %d, %d, %d, NOW(), NULL, %d, %d)", o_id, d, w, c, n, all_local))
  query(fmt("INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (%d, %d, %d)", o_id, d, w))

  local values, total = {}, 0
  for i, line in ipairs(lines) do
    local price, _, i_data = query_row(fmt("SELECT i_price, i_name, i_data FROM item WHERE i_id = %d",
      line.item))
    if price == nil then
      query("ROLLBACK")
      return
    end
    local qty, s_data, dist = query_row(fmt("SELECT s_quantity, s_data, s_dist_%02d FROM stock " ..
      "WHERE s_i_id = %d AND s_w_id = %d FOR UPDATE", d, line.item, line.supply))
    qty = tonumber(qty)
    if qty >= line.qty + 10 then
      qty = qty - line.qty
    else
      qty = qty - line.qty + 91
    end
    query(fmt("UPDATE stock SET s_quantity = %d, s_ytd = s_ytd + %d, s_order_cnt = s_order_cnt + 1, " ..
      "s_remote_cnt = s_remote_cnt + %d WHERE s_i_id = %d AND s_w_id = %d", qty, line.qty,
      line.supply == w and 0 or 1, line.item, line.supply))
    local amount = line.qty * tonumber(price)
    local brand = (i_data:find("ORIGINAL", 1, true) and s_data:find("ORIGINAL", 1, true)) and "B" or "G"
    line.brand = brand
    total = total + amount
    values[i] = fmt("(%d, %d, %d, %d, %d, %d, NULL, %d, %.2f, '%s')", o_id, d, w, i, line.item,
      line.supply, line.qty, amount, dist)
  end
  total = total * (1 - discount) * (1 + w_tax + d_tax)
  query("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, " ..
    "ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES " .. table.concat(values, ", "))
  query("COMMIT")
  return total
end

local function payment()
  local w, d = rand(1, W), rand(1, DISTRICTS)
  local cw, cd = w, d
  if rand(1, 100) > 85 then
    cw, cd = other_warehouse(w), rand(1, DISTRICTS)
  end
  local amount = rand(100, 500000) / 100

  query("BEGIN")
  query(fmt("UPDATE warehouse SET w_ytd = w_ytd + %.2f WHERE w_id = %d", amount, w))
  local w_name = query_row(fmt("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip " ..
    "FROM warehouse WHERE w_id = %d", w))
  query(fmt("UPDATE district SET d_ytd = d_ytd + %.2f WHERE d_w_id = %d AND d_id = %d", amount, w, d))
  local d_name = query_row(fmt("SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip " ..
    "FROM district WHERE d_w_id = %d AND d_id = %d", w, d))
  local c = pick_customer(cw, cd)
  local customer = fmt("c_w_id = %d AND c_d_id = %d AND c_id = %d", cw, cd, c)
  local fields = {query_row("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, " ..
    "c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance " ..
    "FROM customer WHERE " .. customer .. " FOR UPDATE")}
  if fields[11] == "BC" then
    local c_data = query_row("SELECT c_data FROM customer WHERE " .. customer)
    c_data = (fmt("%d %d %d %d %d %.2f|", c, cd, cw, d, w, amount) .. c_data):sub(1, 500)
    query(fmt("UPDATE customer SET c_balance = c_balance - %.2f, c_ytd_payment = c_ytd_payment + %.2f, " ..
      "c_payment_cnt = c_payment_cnt + 1, c_data = '%s' WHERE %s", amount, amount, c_data, customer))
  else
    query(fmt("UPDATE customer SET c_balance = c_balance - %.2f, c_ytd_payment = c_ytd_payment + %.2f, " ..
      "c_payment_cnt = c_payment_cnt + 1 WHERE %s", amount, amount, customer))
  end
  query(fmt("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) " ..
    "VALUES (%d, %d, %d, %d, %d, NOW(), %.2f, '%s')", c, cd, cw, d, w, amount, w_name .. "    " .. d_name))
  query("COMMIT")
end

local function order_status()
  local w, d = rand(1, W), rand(1, DISTRICTS)
  query("BEGIN")
  local c = pick_customer(w, d)
  local balance, first, middle, last = query_row(fmt("SELECT c_balance, c_first, c_middle, c_last " ..
    "FROM customer WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", w, d, c))
  local o_id = query_row(fmt("SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = %d " ..
    "AND o_d_id = %d AND o_c_id = %d ORDER BY o_id DESC LIMIT 1", w, d, c))
  local lines = {}
  if o_id then
    local rs = query(fmt("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d " ..
      "FROM order_line WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id = %s", w, d, o_id))
    local row = fetch(rs)
    while row do
      lines[#lines + 1] = {item = row[1], supply = row[2], qty = tonumber(row[3]), amount = tonumber(row[4]),
        delivered = row[5]}
      row = fetch(rs)
    end
  end
  query("COMMIT")
  return balance, first, middle, last, lines
end

local function delivery()
  local w, carrier = rand(1, W), rand(1, 10)
  query("BEGIN")
  for d = 1, DISTRICTS do
    local o_id = query_row(fmt("SELECT no_o_id FROM new_orders WHERE no_w_id = %d AND no_d_id = %d " ..
      "ORDER BY no_o_id LIMIT 1 FOR UPDATE", w, d))
    if o_id then
      local order = fmt("o_w_id = %d AND o_d_id = %d AND o_id = %s", w, d, o_id)
      local lines = fmt("ol_w_id = %d AND ol_d_id = %d AND ol_o_id = %s", w, d, o_id)
      query(fmt("DELETE FROM new_orders WHERE no_w_id = %d AND no_d_id = %d AND no_o_id = %s", w, d, o_id))
      local c = query_row("SELECT o_c_id FROM orders WHERE " .. order)
      query(fmt("UPDATE orders SET o_carrier_id = %d WHERE %s", carrier, order))
      query("UPDATE order_line SET ol_delivery_d = NOW() WHERE " .. lines)
      local sum = query_row("SELECT SUM(ol_amount) FROM order_line WHERE " .. lines)
      query(fmt("UPDATE customer SET c_balance = c_balance + %s, c_delivery_cnt = c_delivery_cnt + 1 " ..
        "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %s", sum, w, d, c))
    end
  end
  query("COMMIT")
end

local function stock_level()
  local w, d, threshold = rand(1, W), rand(1, DISTRICTS), rand(10, 20)
  query("BEGIN")
  local next_o = tonumber(query_row(fmt("SELECT d_next_o_id FROM district WHERE d_w_id = %d AND d_id = %d",
    w, d)))
  local low = query_row(fmt("SELECT COUNT(DISTINCT s_i_id) FROM order_line JOIN stock " ..
    "ON s_w_id = ol_w_id AND s_i_id = ol_i_id WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id >= %d " ..
    "AND ol_o_id < %d AND s_quantity < %d", w, d, next_o - 20, next_o, threshold))
  query("COMMIT")
  return tonumber(low)
end

local TRANSACTIONS = {new_order, payment, order_status, delivery, stock_level}

-- pick is the mix: 45% New-Order, 43% Payment, 4% each of the others.
local function pick()
  local r = rand(1, 100)
  if r <= 45 then
    return 1
  elseif r <= 88 then
    return 2
  end
  return 3 + math.floor((r - 89) / 4)
end

function event()
  kind = pick()
  txns[kind] = txns[kind] + 1
  TRANSACTIONS[kind]()
end
