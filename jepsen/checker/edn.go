package main

// A reader for the part of EDN that history.edn uses: maps, vectors, lists, sets, keywords,
// strings, integers, floats, nil and booleans. Keywords are returned as Keyword, integers as int64.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

type Keyword string

type ednReader struct {
	s   string
	pos int
}

func parseEDN(s string) (interface{}, error) {
	r := &ednReader{s: s}
	v, err := r.read()
	if err != nil {
		return nil, err
	}
	r.skip()
	if r.pos != len(r.s) {
		return nil, r.errorf("trailing text")
	}
	return v, nil
}

func (r *ednReader) errorf(format string, args ...interface{}) error {
	return fmt.Errorf("EDN at character %d: %s", r.pos, fmt.Sprintf(format, args...))
}

func (r *ednReader) skip() {
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		if c == ';' {
			for r.pos < len(r.s) && r.s[r.pos] != '\n' {
				r.pos++
			}
		} else if c == ',' || unicode.IsSpace(rune(c)) {
			r.pos++
		} else {
			return
		}
	}
}

func (r *ednReader) read() (interface{}, error) {
	r.skip()
	if r.pos >= len(r.s) {
		return nil, r.errorf("unexpected end")
	}
	switch c := r.s[r.pos]; {
	case c == '{':
		r.pos++
		items, err := r.readUntil('}')
		if err != nil {
			return nil, err
		}
		if len(items)%2 != 0 {
			return nil, r.errorf("map with an odd number of forms")
		}
		m := make(map[interface{}]interface{}, len(items)/2)
		for i := 0; i < len(items); i += 2 {
			m[items[i]] = items[i+1]
		}
		return m, nil
	case c == '[':
		r.pos++
		return r.readUntil(']')
	case c == '(':
		r.pos++
		return r.readUntil(')')
	case c == '#' && r.pos+1 < len(r.s) && r.s[r.pos+1] == '{':
		r.pos += 2
		return r.readUntil('}')
	case c == '"':
		return r.readString()
	case c == ':':
		r.pos++
		return Keyword(r.token()), nil
	default:
		tok := r.token()
		switch tok {
		case "":
			return nil, r.errorf("unexpected %q", c)
		case "nil":
			return nil, nil
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		if i, err := strconv.ParseInt(strings.TrimSuffix(tok, "N"), 10, 64); err == nil {
			return i, nil
		}
		if f, err := strconv.ParseFloat(strings.TrimSuffix(tok, "M"), 64); err == nil {
			return f, nil
		}
		return tok, nil // a symbol
	}
}

func (r *ednReader) readUntil(end byte) ([]interface{}, error) {
	items := []interface{}{}
	for {
		r.skip()
		if r.pos >= len(r.s) {
			return nil, r.errorf("missing %q", end)
		}
		if r.s[r.pos] == end {
			r.pos++
			return items, nil
		}
		v, err := r.read()
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
}

func (r *ednReader) token() string {
	start := r.pos
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		if c == ',' || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '"' || unicode.IsSpace(rune(c)) {
			break
		}
		r.pos++
	}
	return r.s[start:r.pos]
}

func (r *ednReader) readString() (interface{}, error) {
	r.pos++
	var b strings.Builder
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		switch c {
		case '"':
			r.pos++
			return b.String(), nil
		case '\\':
			r.pos++
			if r.pos >= len(r.s) {
				return nil, r.errorf("unterminated string")
			}
			switch e := r.s[r.pos]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
		r.pos++
	}
	return nil, r.errorf("unterminated string")
}
