// Package scripts holds the workloads bundled with sbgo: oltp_read_write,
// oltp_read_only, oltp_write_only, oltp_point_select, oltp_insert,
// oltp_delete, oltp_update_index, oltp_update_non_index,
// select_random_points, select_random_ranges, bulk_insert, and the library
// they share, oltp_common; and the loads of two other tools, pgbench_tpcb
// (PostgreSQL's pgbench) and mysqlslap (its auto-generated load).
//
// They are embedded so that `sbgo oltp_read_write run` works without any
// file installed. The Lua loader searches them after the disk path, so a
// script of the same name on the path, or LUA_PATH, takes precedence, as
// sysbench's installed scripts do. They issue the same SQL as sysbench
// 1.0.20's workloads of the same names, and the other two the same
// statements as their tools, so results are comparable between the tools.
package scripts

import "embed"

// FS holds the scripts as <name>.lua at its root, the form require() looks
// them up in.
//
//go:embed *.lua
var FS embed.FS
