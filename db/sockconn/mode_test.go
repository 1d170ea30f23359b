package sockconn

import "testing"

func TestParseMode(t *testing.T) {
	tests := []struct {
		value    string
		blocking bool
		err      string
	}{
		{"blocking", true, ""},
		{"poller", false, ""},
		{"Blocking", false, "Invalid value for --x-io-mode: 'Blocking'"}, // names are exact, like sysbench's
		{"", false, "Invalid value for --x-io-mode: ''"},
	}
	for _, tt := range tests {
		blocking, err := ParseMode("x-io-mode", tt.value)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if blocking != tt.blocking || got != tt.err {
			t.Errorf("ParseMode(%q) = %v, %q; want %v, %q", tt.value, blocking, got, tt.blocking, tt.err)
		}
	}
}
