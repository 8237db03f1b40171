package posthook

import "strings"

func ReplacePathPrefix(s, host, rel string) string {
	if !strings.Contains(s, host) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, host)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(host)
		if i > 0 && isNameByte(s[i-1]) || end < len(s) && isNameByte(s[end]) {
			b.WriteString(s[:end])
			s = s[end:]
			continue
		}
		b.WriteString(s[:i])
		switch {
		case end < len(s) && s[end] == '/' && rel == ".":
			end++ // "<root>/sub" → "sub"
		default:
			b.WriteString(rel)
		}
		s = s[end:]
	}
}

// isNameByte reports a byte that can continue a path component.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c >= 0x80
}
