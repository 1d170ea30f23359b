package mysql

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// appendValue appends the text the server would have sent for v, a
// value go-sql-driver decoded: it parses numbers of the text protocol and
// decodes those of the binary one (prepared statements), while scripts
// see every value as text, as sysbench shows libmysqlclient's.
func appendValue(dst []byte, v any) []byte {
	switch v := v.(type) {
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case uint64:
		return strconv.AppendUint(dst, v, 10)
	case float64:
		return appendFloat(dst, v, 64)
	case float32:
		return appendFloat(dst, float64(v), 32)
	case string:
		return append(dst, v...)
	case []byte:
		return append(dst, v...)
	case bool:
		if v {
			return append(dst, '1')
		}
		return append(dst, '0')
	case time.Time:
		if v.Nanosecond() != 0 {
			return v.AppendFormat(dst, "2006-01-02 15:04:05.000000")
		}
		return v.AppendFormat(dst, "2006-01-02 15:04:05")
	}
	return fmt.Append(dst, v)
}

// appendFloat writes a FLOAT (bitSize 32) or DOUBLE the way MariaDB and
// MySQL do in the text protocol: the shortest digits that read back as
// the same double, or 6 significant digits for a FLOAT; positional
// notation while the decimal exponent is within -15 < e <= 15 (0.00001,
// 123456789012345.67, 1234570), otherwise scientific notation without a
// '+' or leading zeros in the exponent (1e15, 1.5e-16, 3.4e38).
//
// No server sends NaN or an infinity (the columns cannot hold them), but
// a damaged binary row can: they are written as C's printf writes them.
func appendFloat(dst []byte, f float64, bitSize int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	var buf [32]byte
	var e []byte
	if bitSize == 32 {
		e = strconv.AppendFloat(buf[:0], f, 'e', 5, 32)
	} else {
		e = strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	}
	if e[0] == '-' {
		e = e[1:]
		dst = append(dst, '-')
	}
	var dbuf [24]byte
	digits, exp := splitExponent(dbuf[:0], e)
	return appendDecimal(dst, digits, exp)
}

// splitExponent reads e, a float as d[.ddd]e±dd: it appends its digits
// to digits, without the point and the trailing zeros, and returns them
// with the exponent.
func splitExponent(digits, e []byte) ([]byte, int) {
	mark := 0
	for e[mark] != 'e' {
		mark++
	}
	exp := 0
	for _, c := range e[mark+2:] {
		exp = exp*10 + int(c-'0')
	}
	if e[mark+1] == '-' {
		exp = -exp
	}
	for _, c := range e[:mark] {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return digits, exp
}

// appendDecimal writes digits (d.ddd times ten to the exp) as
// appendFloat says.
func appendDecimal(dst, digits []byte, exp int) []byte {
	point := exp + 1 // digits before the decimal point
	switch {
	case point < -14 || point > 15:
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		return strconv.AppendInt(dst, int64(exp), 10)
	case point <= 0:
		dst = append(dst, "0."...)
		for range -point {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case point >= len(digits):
		dst = append(dst, digits...)
		for range point - len(digits) {
			dst = append(dst, '0')
		}
		return dst
	default:
		dst = append(dst, digits[:point]...)
		dst = append(dst, '.')
		return append(dst, digits[point:]...)
	}
}

// appendQuoted appends s as a MySQL string literal, escaped as
// mysql_real_escape_string does: NUL, newline, carriage return,
// backslash, both quotes and Ctrl-Z get a backslash, so no value can end
// the literal. (A server in NO_BACKSLASH_ESCAPES mode would read the
// backslashes literally.)
func appendQuoted(dst, s []byte) []byte {
	dst = append(dst, '\'')
	for _, c := range s {
		switch c {
		case 0:
			dst = append(dst, '\\', '0')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\'':
			dst = append(dst, '\\', '\'')
		case '"':
			dst = append(dst, '\\', '"')
		case 0x1a:
			dst = append(dst, '\\', 'Z')
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '\'')
}
