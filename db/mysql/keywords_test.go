package mysql

import "testing"

func TestReturnsRows(t *testing.T) {
	tests := []struct {
		query string
		want  bool
	}{
		{"SELECT 1", true},                                        // plain read
		{"select c from sbtest1 where id=1", true},                // case does not matter
		{"  \n\tSELECT 1", true},                                  // leading white space
		{"/* hint */ SELECT 1", true},                             // leading block comment
		{"-- note\nSELECT 1", true},                               // leading line comment
		{"# note\nSELECT 1", true},                                // hash comment
		{"((SELECT 1) UNION (SELECT 2))", true},                   // parentheses
		{"SHOW TABLES", true},                                     // SHOW
		{"DESCRIBE t", true},                                      // DESCRIBE
		{"desc t", true},                                          // DESC
		{"EXPLAIN SELECT 1", true},                                // EXPLAIN
		{"WITH x AS (SELECT 1) SELECT * FROM x", true},            // CTE
		{"VALUES (1),(2)", true},                                  // table value constructor
		{"TABLE t", true},                                         // TABLE statement
		{"CHECK TABLE t", true},                                   // admin statements answer with rows
		{"ANALYZE TABLE t", true},                                 // ANALYZE
		{"OPTIMIZE TABLE t", true},                                // OPTIMIZE
		{"REPAIR TABLE t", true},                                  // REPAIR
		{"CHECKSUM TABLE t", true},                                // CHECKSUM
		{"HELP 'select'", true},                                   // HELP
		{"CALL p()", true},                                        // procedures may return rows
		{"EXECUTE s", true},                                       // SQL-level prepared statement
		{"SELECT 1; UPDATE t SET a=1", true},                      // the first statement decides
		{"UPDATE t SET a=1; SELECT 1", false},                     // the first statement decides
		{"UPDATE sbtest1 SET k=k+1 WHERE id=1", false},            // write
		{"INSERT INTO t VALUES (1)", false},                       // write
		{"INSERT INTO t VALUES (1) RETURNING id", true},           // MariaDB RETURNING
		{"delete from t where id=1 returning *", true},            // any case
		{"REPLACE INTO t VALUES (1) RETURNING a", true},           // REPLACE ... RETURNING
		{"INSERT INTO t VALUES ('returning')", false},             // the word in a string
		{"INSERT INTO t VALUES ('it\\'s returning')", false},      // escaped quote inside the string
		{"INSERT INTO `returning` VALUES (1)", false},             // a quoted identifier
		{"INSERT INTO t VALUES (1) /* returning */", false},       // a comment
		{"INSERT INTO t (returning_x) VALUES (1)", false},         // part of a longer word
		{"INSERT INTO t VALUES ('a\\'b') RETURNING id", true},     // escaped quote, then the word
		{"INSERT INTO t VALUES ('a\\\\') RETURNING id", true},     // escaped backslash before the closing quote
		{"INSERT INTO t VALUES ('a\\\\', ' returning ') ", false}, // the word in the next string
		{"INSERT INTO `a\\` VALUES (1) RETURNING id", true},       // no escapes between backquotes
		{"INSERT INTO t VALUES ('unterminated RETURNING", false},  // an unterminated string
		{"BEGIN", false},                                          // transaction control
		{"COMMIT", false},                                         // transaction control
		{"SET autocommit=0", false},                               // SET
		{"CREATE TABLE t (a int)", false},                         // DDL
		{"SELECTED", false},                                       // a longer word is not SELECT
		{"", false},                                               // empty
		{"/* unterminated", false},                                // only a comment
		{"-- only a comment", false},                              // only a comment
		{"--1", false},                                            // "--" without a space is no comment
	}
	for _, tt := range tests {
		if got := returnsRows(tt.query); got != tt.want {
			t.Errorf("returnsRows(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}

// The keyword test runs for every query: it must not allocate.
func TestReturnsRowsAllocs(t *testing.T) {
	queries := []string{"SELECT c FROM sbtest1 WHERE id=1", "INSERT INTO t VALUES (1) RETURNING id", "UPDATE t SET a=1"}
	for _, q := range queries {
		if n := testing.AllocsPerRun(100, func() { returnsRows(q) }); n != 0 {
			t.Errorf("returnsRows(%q) allocates %v times", q, n)
		}
	}
}
