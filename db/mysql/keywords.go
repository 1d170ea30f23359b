package mysql

import "strings"

// returnsRows guesses from its text whether a statement answers with a
// result set, to choose go-sql-driver's query path (which keeps the rows)
// over its exec path (which keeps the affected-row count). The first
// keyword decides, after white space, comments and opening parentheses:
// SELECT, SHOW, DESCRIBE, DESC, EXPLAIN, WITH, VALUES, TABLE, CHECK,
// ANALYZE, OPTIMIZE, REPAIR, CHECKSUM, HELP, CALL and EXECUTE do, and
// so do INSERT, REPLACE and DELETE with a RETURNING clause (MariaDB).
// For several statements the first one decides.
//
// A wrong guess costs only a statistic: a result set read on the exec
// path is discarded (the query counts as "other" instead of "read"), and
// an OK read on the query path loses its affected-row count.
func returnsRows(q string) bool {
	i := skipNoise(q, 0)
	start := i
	for i < len(q) && isWordByte(q[i]) {
		i++
	}
	var word [16]byte
	if i-start > len(word) {
		return false
	}
	n := copy(word[:], q[start:i])
	for j := range n {
		word[j] = upper(word[j])
	}
	switch string(word[:n]) {
	case "SELECT", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "WITH", "VALUES", "TABLE",
		"CHECK", "ANALYZE", "OPTIMIZE", "REPAIR", "CHECKSUM", "HELP", "CALL", "EXECUTE":
		return true
	case "INSERT", "REPLACE", "DELETE":
		return hasReturning(q[i:])
	}
	return false
}

// skipNoise returns the position of the first byte from i on that is not
// white space, part of a comment (/* */, "-- " or "#" to the end of the
// line) or an opening parenthesis.
func skipNoise(q string, i int) int {
	for i < len(q) {
		switch c := q[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '(':
			i++
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return len(q)
			}
			i += 2 + end + 2
		case c == '#' || isDashComment(q, i):
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				return len(q)
			}
			i += end + 1
		default:
			return i
		}
	}
	return i
}

// isDashComment reports whether a "-- " comment starts at i: MySQL wants
// white space (or the end) after the two dashes.
func isDashComment(q string, i int) bool {
	if i+1 >= len(q) || q[i] != '-' || q[i+1] != '-' {
		return false
	}
	if i+2 == len(q) {
		return true
	}
	c := q[i+2]
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// hasReturning reports whether the word RETURNING appears in q outside
// string literals, quoted identifiers and comments.
func hasReturning(q string) bool {
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(q, i)
		case c == '/' && i+1 < len(q) && q[i+1] == '*', c == '#', isDashComment(q, i):
			i = skipNoise(q, i)
		case isWordByte(c):
			start := i
			for i < len(q) && isWordByte(q[i]) {
				i++
			}
			if strings.EqualFold(q[start:i], "RETURNING") {
				return true
			}
		default:
			i++
		}
	}
	return false
}

// skipQuoted returns the position after the quoted text that starts at
// i. A backslash escapes the next byte in strings (not in backquoted
// names); a doubled quote needs no care, being two quoted texts in a row.
func skipQuoted(q string, i int) int {
	quote := q[i]
	// Most quoted texts hold no backslash: find the closing quote with
	// IndexByte, which scans many bytes at a time (a 512 KiB bulk INSERT
	// is almost all string literals).
	if end := strings.IndexByte(q[i+1:], quote); end >= 0 && (quote == '`' || strings.IndexByte(q[i+1:i+1+end], '\\') < 0) {
		return i + 1 + end + 1
	}
	for i++; i < len(q); i++ {
		switch q[i] {
		case '\\':
			if quote != '`' {
				i++
			}
		case quote:
			return i + 1
		}
	}
	return len(q)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
