package results

import "strings"

// Masked stands in for every secret value.
const Masked = "***"

// IsSecret tells whether an option of this name holds a secret: any name
// that mentions a password, a secret, a token or a key file's passphrase
// (--mysql-password, --pgsql-password, a script's --api-token).
func IsSecret(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	for _, word := range []string{"password", "passwd", "secret", "token", "passphrase"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// MaskArgs returns the command line with the value of every secret option
// replaced by Masked. Options take their values as --name=value only (the
// grammar is sysbench's), so a following argument is never a value.
func MaskArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if !strings.HasPrefix(a, "--") {
			continue
		}
		if name, _, hasValue := strings.Cut(a[2:], "="); hasValue && IsSecret(name) {
			out[i] = "--" + name + "=" + Masked
		}
	}
	return out
}

// MaskOptions returns options with every secret value replaced by Masked
// (an empty value stays empty: it tells that none was given).
func MaskOptions(options map[string]string) map[string]string {
	out := make(map[string]string, len(options))
	for k, v := range options {
		if v != "" && IsSecret(k) {
			v = Masked
		}
		out[k] = v
	}
	return out
}
