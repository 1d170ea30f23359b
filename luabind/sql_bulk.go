package luabind

import (
	"strconv"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/engine"
)

// bulkInsertMax is the largest statement a bulk insert sends (512 KiB);
// rows are flushed before the buffer would grow past it.
const bulkInsertMax = 524288

// bulkState is a connection's bulk insert: the rows buffered for the
// next INSERT, and the one in flight (see flushBulk).
type bulkState struct {
	bulkActive bool
	bulkRows   int
	bulk       []byte
	bulkPrefix int // length of the INSERT prefix in bulk

	// bulkSent is the buffer of the last INSERT sent, swapped with bulk at
	// each flush: the statement goes to the driver as a string over the
	// buffer, not a copy. Why: a fresh 512 KiB string per flush made
	// prepare fault in new heap pages for most of its INSERTs, a quarter
	// of its client CPU (docs/performance.md, "prepare"). The buffer is
	// reused only once its INSERT has returned; drivers keep no reference
	// to a query after the call (see db.Conn.Query), and sqlFailure copies
	// the one an error keeps.
	bulkSent []byte

	// bulkInFlight receives the outcome of the multi-row INSERT that the
	// last flush sent, while the script builds the next one (nil when
	// nothing is in flight); see flushBulk.
	bulkInFlight chan bulkOutcome
}

// bulkOutcome is what a pipelined INSERT returned.
type bulkOutcome struct {
	res   db.Result
	err   error
	query string
}

// conBulkInit is con:bulk_insert_init(prefix).
func (st *state) conBulkInit(L *lua.LState) int {
	st.checkConn(L).bulkInit(L.CheckString(2))
	L.Push(lua.LTrue)
	return 1
}

func (c *luaConn) bulkInit(prefix string) {
	c.bulk = append(c.bulk[:0], prefix...)
	c.bulkPrefix = len(prefix)
	c.bulkRows = 0
	c.bulkActive = true
}

// conBulkNext is con:bulk_insert_next(row).
func (st *state) conBulkNext(L *lua.LState) int {
	st.checkConn(L).bulkNext(L, L.CheckString(2))
	L.Push(lua.LTrue)
	return 1
}

// conBulkInsertRandomRows is con:_bulk_insert_random_rows(count, size,
// c_template, pad_template [, first_id]), the row loop of oltp_common's
// prepare in one call: count times, it draws
// c = sysbench.rand.string(c_template), pad =
// sysbench.rand.string(pad_template) and k = sysbench.rand.default(1,
// size), in that order, and adds the row "(id, k, 'c', 'pad')", with id
// counting up from first_id, or "(k, 'c', 'pad')" without first_id,
// through con:bulk_insert_next. The draws and rows are those of the Lua
// loop; what it saves is five interpreter calls and four strings per row,
// which made prepare's client CPU twice sysbench's. oltp_common calls it
// only while the functions of that loop are the built-in ones.
func (st *state) conBulkInsertRandomRows(L *lua.LState) int {
	c := st.checkConn(L)
	count := float64(L.CheckNumber(2))
	size := randArgUint32(L, 3)
	cTemplate, padTemplate := L.CheckString(4), L.CheckString(5)
	firstID, numbered := L.Get(6).(lua.LNumber)
	var row, cValue, padValue []byte
	for i := 0.0; i+1 <= count; i++ { // Lua's for i = 1, count
		cValue = st.rand.String(cValue[:0], cTemplate)
		padValue = st.rand.String(padValue[:0], padTemplate)
		k := st.rand.Default(1, size)
		row = append(row[:0], '(')
		if numbered {
			row = strconv.AppendInt(row, int64(float64(firstID)+i), 10)
			row = append(row, ", "...)
		}
		row = strconv.AppendUint(row, uint64(k), 10)
		row = append(row, ", '"...)
		row = append(row, cValue...)
		row = append(row, "', '"...)
		row = append(row, padValue...)
		row = append(row, "')"...)
		// bulkNext copies the row and keeps no reference to it.
		c.bulkNext(L, unsafe.String(unsafe.SliceData(row), len(row)))
	}
	return 0
}

// bulkNext adds a row: rows are joined with ',' and no space after the
// prefix; the buffer is sent first when the row would make it larger than
// 512 KiB.
func (c *luaConn) bulkNext(L *lua.LState, row string) {
	log := c.st.script.cfg.Log
	if !c.bulkActive {
		log.Logf(engine.LevelAlert, "attempt to call bulk_insert_next() before bulk_insert_init()")
		L.RaiseError("db_bulk_insert_next() failed")
	}
	if c.bulkPrefix+len(row) > bulkInsertMax {
		log.Logf(engine.LevelFatal, "Query length exceeds the maximum value (%d), aborting", bulkInsertMax)
		L.RaiseError("db_bulk_insert_next() failed")
	}
	if c.bulkRows > 0 && len(c.bulk)+1+len(row) > bulkInsertMax {
		c.flushBulk(L, false)
	}
	if c.bulkRows > 0 {
		c.bulk = append(c.bulk, ',')
	}
	c.bulk = append(c.bulk, row...)
	c.bulkRows++
}

// flushBulk sends the rows buffered so far as one INSERT.
//
// Outside the run command (prepare and other commands, where no event is
// timed) a flush that is not the last one is pipelined: the INSERT goes to
// the server from another goroutine while the script builds the next one,
// so that generating rows, which costs the interpreter more client CPU
// than it costs sysbench's, overlaps the server's work instead of adding
// to it. At most one INSERT is in flight; the next operation on the
// connection waits for it and raises its error, if any, as a synchronous
// flush would have (see "Who may call the driver"). In the run command flushes stay
// synchronous, so that an event's latency includes its INSERT as in
// sysbench.
func (c *luaConn) flushBulk(L *lua.LState, last bool) {
	conn := c.driverConn(L)
	sent := c.bulk
	query := unsafe.String(unsafe.SliceData(sent), len(sent))
	c.bulk = append(c.bulkSent[:0], sent[:c.bulkPrefix]...)
	c.bulkSent = sent
	c.bulkRows = 0
	if last || c.st.script.cfg.Command == "run" {
		c.open(L, c.run(L, query))
		c.release()
		return
	}
	c.release()
	done := make(chan bulkOutcome, 1)
	c.bulkInFlight = done
	go func() {
		res, err := c.query(conn, query)
		if err == nil && res.Rows != nil {
			res.Rows.Close()
			res.Rows = nil
		}
		done <- bulkOutcome{res: res, err: err, query: query}
	}()
}

// awaitBulk waits for a pipelined INSERT still in flight, then counts it
// or raises its error as a synchronous one would have been.
func (c *luaConn) awaitBulk(L *lua.LState) {
	if c.bulkInFlight == nil {
		return
	}
	out := <-c.bulkInFlight
	c.bulkInFlight = nil
	if out.err != nil {
		c.st.sqlError(L, c, out.err, out.query, false)
		return
	}
	c.st.count(out.res)
}

// discardBulk waits for a pipelined INSERT and forgets its outcome: the
// connection is being closed.
func (c *luaConn) discardBulk() {
	if c.bulkInFlight != nil {
		<-c.bulkInFlight
		c.bulkInFlight = nil
	}
}

// conBulkDone is con:bulk_insert_done(): sends what remains.
func (st *state) conBulkDone(L *lua.LState) int {
	st.checkConn(L).bulkDone(L)
	L.Push(lua.LTrue)
	return 1
}

func (c *luaConn) bulkDone(L *lua.LState) {
	if c.bulkActive && c.bulkRows > 0 {
		c.flushBulk(L, true)
	}
	c.awaitBulk(L)
	c.bulkActive = false
}
