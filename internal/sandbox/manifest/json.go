package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// newObject returns an empty ordered JSON object.
func newObject() *orderedObject { return &orderedObject{vals: map[string]any{}} }

// set appends k (or replaces its value in place, keeping its position).
func (o *orderedObject) set(k string, v any) *orderedObject {
	if _, seen := o.vals[k]; !seen {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

// encodeCompact writes v as compact JSON the way pydantic's
// model_dump_json does: no whitespace, object keys in their order, non-ASCII
// text written as is, and only '"', '\\' and control characters escaped
// (\b \f \n \r \t, others as \u00XX).
func encodeCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeJSON(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case int:
		buf.WriteString(strconv.Itoa(x))
	case int64:
		buf.WriteString(strconv.FormatInt(x, 10))
	case json.Number:
		buf.WriteString(x.String())
	case string:
		return writeJSONString(buf, x)
	case []string:
		buf.WriteByte('[')
		for i, s := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSONString(buf, s); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case *orderedObject:
		buf.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSONString(buf, k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := writeJSON(buf, x.vals[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("cannot encode %T as JSON", v)
	}
	return nil
}

// ErrNotUTF8 is returned when text to be dumped is not valid UTF-8: the
// Python SDK cannot dump such File content to JSON either
// (PydanticSerializationError, design/sdk-model.md §2.2).
var ErrNotUTF8 = fmt.Errorf("content is not valid UTF-8 and cannot be dumped to JSON (the Python SDK fails the same way)")

func writeJSONString(buf *bytes.Buffer, s string) error {
	if !utf8.ValidString(s) {
		return ErrNotUTF8
	}
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			if c < 0x20 {
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[c>>4])
				buf.WriteByte(hex[c&0xf])
			} else {
				buf.WriteByte(c)
			}
		}
	}
	buf.WriteByte('"')
	return nil
}

// CompactJSON re-encodes the JSON text data the way JSON() writes a
// manifest (compact, object keys in their order, non-ASCII text as is), so
// that a JSON text from elsewhere compares with it byte for byte.
func CompactJSON(data []byte) ([]byte, error) {
	v, err := decodeOrderedJSON(data)
	if err != nil {
		return nil, err
	}
	return encodeCompact(v)
}

// indentJSON re-indents compact JSON with two spaces per level, the layout
// of Python's json.dumps(indent=2) with ensure_ascii=False; key order and
// string escapes are kept.
func indentJSON(compact []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
