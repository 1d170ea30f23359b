-- A bank whose total balance never changes: --accounts accounts start
-- with --balance each, and every event moves a random amount from one
-- account to another in one transaction that also records the transfer
-- in bank_transfers. Whatever happens to the connections, afterwards
-- the total is accounts * balance, each account's balance is its
-- start plus what the log says it received minus what it sent, and
-- the log holds one row per committed transfer. The fault tests
-- (cmd/sbgo/faults_test.go) compare that log with sbgo's counts.
--
-- Runs unchanged on MySQL/MariaDB and PostgreSQL; only the log's key
-- column is written per server.

sysbench.cmdline.options = {
  accounts = {"Number of accounts", 100},
  balance = {"Starting balance of each account", 1000},
}

local function connect()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

local function serial_key()
  if drv:name() == "pgsql" then
    return "id BIGSERIAL PRIMARY KEY"
  end
  return "id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY"
end

function prepare()
  connect()
  con:query("DROP TABLE IF EXISTS bank_transfers")
  con:query("DROP TABLE IF EXISTS bank_accounts")
  con:query("CREATE TABLE bank_accounts (id INTEGER NOT NULL PRIMARY KEY, balance BIGINT NOT NULL)")
  con:query("CREATE TABLE bank_transfers (" .. serial_key() ..
    ", src INTEGER NOT NULL, dst INTEGER NOT NULL, amount BIGINT NOT NULL)")
  local rows = {}
  for id = 1, sysbench.opt.accounts do
    rows[#rows + 1] = string.format("(%d, %d)", id, sysbench.opt.balance)
  end
  con:query("INSERT INTO bank_accounts (id, balance) VALUES " .. table.concat(rows, ", "))
end

function cleanup()
  connect()
  con:query("DROP TABLE IF EXISTS bank_transfers")
  con:query("DROP TABLE IF EXISTS bank_accounts")
end

function thread_init()
  if sysbench.opt.accounts < 2 then
    error("--accounts must be at least 2")
  end
  connect()
end

-- event moves money from src to dst. The two rows are locked in id
-- order, so that two transfers between the same accounts wait for each
-- other instead of deadlocking, and the locking SELECT's result set is
-- read, so that a reply cut mid-result can hit it.
function event()
  local n = sysbench.opt.accounts
  local src = sysbench.rand.uniform(1, n)
  local dst = sysbench.rand.uniform(1, n - 1)
  if dst >= src then
    dst = dst + 1
  end
  local amount = sysbench.rand.uniform(1, 100)
  con:query("BEGIN")
  local rs = con:query(string.format(
    "SELECT id, balance FROM bank_accounts WHERE id IN (%d, %d) ORDER BY id FOR UPDATE",
    math.min(src, dst), math.max(src, dst)))
  for _ = 1, rs.nrows do
    rs:fetch_row()
  end
  con:query(string.format("UPDATE bank_accounts SET balance = balance - %d WHERE id = %d", amount, src))
  con:query(string.format("UPDATE bank_accounts SET balance = balance + %d WHERE id = %d", amount, dst))
  con:query(string.format("INSERT INTO bank_transfers (src, dst, amount) VALUES (%d, %d, %d)", src, dst, amount))
  con:query("COMMIT")
end

function thread_done()
  con:disconnect()
end
