-- A bank whose total balance never changes: --accounts accounts start
-- with --balance each, and every event moves a random amount from one
-- account to another in one transaction that also records the transfer
-- in bank_transfers. Whatever happens to the connections, afterwards
-- the total is accounts * balance, each account's balance is its
-- start plus what the log says it received minus what it sent, and
-- the log holds one row per committed transfer. The fault tests
-- (cmd/sbgo/faults_test.go) compare that log with sbgo's counts.
--
-- A retried event is idempotent: each transfer carries a token unique
-- in the log, and an event restarted after an error (a lost session,
-- a COMMIT whose answer never came) first looks its token up and only
-- transfers again when the first attempt did not commit. So every
-- counted transaction is exactly one logged transfer, even when the
-- client could not know whether a COMMIT took effect.
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
    ", token BIGINT NOT NULL UNIQUE, src INTEGER NOT NULL, dst INTEGER NOT NULL, amount BIGINT NOT NULL)")
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

-- token_base keeps each thread's tokens apart; sent counts its
-- transfers.
local token_base, sent = 0, 0

-- pending is the transfer the last attempt of this event started; it is
-- cleared once that attempt's COMMIT has answered, so an event that
-- finds it set is a retry.
local pending

function thread_init(thread_id)
  if sysbench.opt.accounts < 2 then
    error("--accounts must be at least 2")
  end
  token_base = thread_id * 2^32
  connect()
end

-- new_transfer draws a transfer between two different accounts.
local function new_transfer()
  local n = sysbench.opt.accounts
  local src = sysbench.rand.uniform(1, n)
  local dst = sysbench.rand.uniform(1, n - 1)
  if dst >= src then
    dst = dst + 1
  end
  sent = sent + 1
  return {token = token_base + sent, src = src, dst = dst, amount = sysbench.rand.uniform(1, 100)}
end

-- transfer moves the money of t in one transaction, unless the log
-- already holds t's token. The two rows are locked in id order, so that
-- two transfers between the same accounts wait for each other instead
-- of deadlocking, and the token is looked up after the locks are held:
-- an earlier attempt of t still open on the server has either committed
-- by then or rolled back. The locking SELECT's result set is read, so
-- that a reply cut mid-result can hit it.
local function transfer(t)
  con:query("BEGIN")
  local rs = con:query(string.format(
    "SELECT id, balance FROM bank_accounts WHERE id IN (%d, %d) ORDER BY id FOR UPDATE",
    math.min(t.src, t.dst), math.max(t.src, t.dst)))
  for _ = 1, rs.nrows do
    rs:fetch_row()
  end
  if t.retry and tonumber(con:query_row(string.format(
      "SELECT COUNT(*) FROM bank_transfers WHERE token = %d", t.token))) > 0 then
    con:query("COMMIT")
    return
  end
  con:query(string.format("UPDATE bank_accounts SET balance = balance - %d WHERE id = %d", t.amount, t.src))
  con:query(string.format("UPDATE bank_accounts SET balance = balance + %d WHERE id = %d", t.amount, t.dst))
  con:query(string.format("INSERT INTO bank_transfers (token, src, dst, amount) VALUES (%d, %d, %d, %d)",
    t.token, t.src, t.dst, t.amount))
  con:query("COMMIT")
end

-- event runs a new transfer, or retries the pending one: what a failed
-- attempt left open on a session that survived (an ignored duplicate
-- key, say) is rolled back first, since BEGIN would commit it on MySQL.
function event()
  if pending then
    pending.retry = true
    con:query("ROLLBACK")
  else
    pending = new_transfer()
  end
  transfer(pending)
  pending = nil
end

function thread_done()
  con:disconnect()
end
