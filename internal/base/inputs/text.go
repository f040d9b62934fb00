package inputs

import "bytes"

// LooksLikeText reports whether src, after white space and a byte order
// mark, starts as no JSON value does: with a letter other than those of
// true, false and null, or with a '#'. It is how a program written in a
// Language's text syntax is told from malformed JSON, by validate given
// it for a Language that reads JSON and by lint.
func LooksLikeText(src []byte) bool {
	src = bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(src, " \t\r\n"), []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(src) == 0 {
		return false
	}
	switch c := src[0]; {
	case c == '#':
		return true
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(src, []byte(lit)) && (len(src) == len(lit) || !isWordByte(src[len(lit)])) {
				return false
			}
		}
		return true
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
