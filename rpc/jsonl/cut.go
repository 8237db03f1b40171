package jsonl

// CutMember returns obj, a compact JSON object as encoding/json writes it, without its top-level
// member named key (written without escapes, as encoding/json writes field names), and that
// member's value as it was written. Members of nested objects are never looked at. Anything else,
// or an object without the member, is returned unchanged with a nil value. The result never
// shares obj's memory past the cut, so obj itself is left as it was up to the member.
func CutMember(obj []byte, key string) (out, value []byte) {
	if len(obj) < 2 || obj[0] != '{' {
		return obj, nil
	}
	want := `"` + key + `"`
	for i := 1; i < len(obj) && obj[i] == '"'; {
		start := i
		k := SkipString(obj, i)
		if k >= len(obj) || obj[k] != ':' {
			return obj, nil
		}
		end := SkipValue(obj, k+1)
		if end >= len(obj) || obj[end] != ',' && obj[end] != '}' {
			return obj, nil // a member is followed by a comma or the closing brace
		}
		if string(obj[start:k]) == want {
			value = append([]byte(nil), obj[k+1:end]...)
			switch {
			case obj[end] == ',': // a member follows: drop "key":value,
				return append(obj[:start:start], obj[end+1:]...), value
			case start > 1: // the last member: drop ,"key":value
				return append(obj[:start-1:start-1], obj[end:]...), value
			default: // the only member
				return append(obj[:1:1], obj[end:]...), value
			}
		}
		if obj[end] != ',' {
			return obj, nil
		}
		i = end + 1
	}
	return obj, nil
}
