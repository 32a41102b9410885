package manifest

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// pydantic's messages for the lax-mode int and bool validations the Python
// SDK's models apply to manifest input (pydantic-core's int_type,
// int_parsing, int_from_float, finite_number, int_parsing_size, bool_type
// and bool_parsing errors).
const (
	MsgIntType       = "Input should be a valid integer"
	MsgIntParsing    = "Input should be a valid integer, unable to parse string as an integer"
	MsgIntFromFloat  = "Input should be a valid integer, got a number with a fractional part"
	MsgFiniteNumber  = "Input should be a finite number"
	MsgIntParsingMax = "Unable to parse input string as an integer, exceeded maximum size"
	MsgBoolType      = "Input should be a valid boolean"
	MsgBoolParsing   = "Input should be a valid boolean, unable to interpret input"
)

// laxInt is pydantic's lax int validation of a JSON value: an integer; a
// bool (true is 1, false 0); a number with no fractional part (7.0 is 7);
// a string holding an integer, with surrounding whitespace, a "+" or "-"
// sign, an all-zero fraction ("7.00") or single underscores between digits
// ("1_000"). It returns the value, or "" and pydantic's message.
func laxInt(v any) (int64, string) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, ""
		}
		return 0, ""
	case json.Number:
		if n, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return n, ""
		}
		f, err := strconv.ParseFloat(x.String(), 64)
		switch {
		case math.IsInf(f, 0) || math.IsNaN(f):
			return 0, MsgFiniteNumber
		case err != nil:
			return 0, MsgIntType
		case f != math.Trunc(f):
			return 0, MsgIntFromFloat
		case f <= math.MinInt64 || f >= math.MaxInt64:
			return 0, MsgIntParsingMax
		}
		return int64(f), ""
	case string:
		return strInt(x)
	}
	return 0, MsgIntType
}

// strInt is pydantic-core's str_as_int: the text as an integer, else with
// an all-zero fraction stripped, else with single inner underscores
// removed.
func strInt(s string) (int64, string) {
	if len(s) > 4300 {
		return 0, MsgIntParsingMax
	}
	s = strings.TrimSpace(s)
	parse := func(t string) (int64, bool) {
		if t == "" || strings.ContainsAny(t, "_ ") {
			return 0, false
		}
		n, err := strconv.ParseInt(t, 10, 64)
		return n, err == nil
	}
	if n, ok := parse(s); ok {
		return n, ""
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		if strings.Trim(s[i+1:], "0") == "" {
			if n, ok := parse(s[:i]); ok {
				return n, ""
			}
		}
		return 0, MsgIntParsing
	}
	if strings.Contains(s, "_") && !strings.HasPrefix(s, "_") && !strings.HasSuffix(s, "_") && !strings.Contains(s, "__") {
		if n, ok := parse(strings.ReplaceAll(s, "_", "")); ok {
			return n, ""
		}
	}
	return 0, MsgIntParsing
}

// laxBool is pydantic's lax bool validation of a JSON value: a bool; the
// numbers 0 and 1; the strings "0", "off", "f", "false", "n", "no" and
// "1", "on", "t", "true", "y", "yes" in any letter case. Other numbers and
// strings give bool_parsing, other JSON values bool_type.
func laxBool(v any) (bool, string) {
	switch x := v.(type) {
	case bool:
		return x, ""
	case json.Number:
		switch f, err := strconv.ParseFloat(x.String(), 64); {
		case err != nil:
		case f == 0:
			return false, ""
		case f == 1:
			return true, ""
		}
		return false, MsgBoolParsing
	case string:
		switch {
		case x == "0" || anyFold(x, "off", "f", "false", "n", "no"):
			return false, ""
		case x == "1" || anyFold(x, "on", "t", "true", "y", "yes"):
			return true, ""
		}
		return false, MsgBoolParsing
	}
	return false, MsgBoolType
}

// anyFold reports whether s equals one of words, ignoring ASCII case only.
func anyFold(s string, words ...string) bool {
	for _, w := range words {
		if len(s) == len(w) && strings.EqualFold(s, w) {
			return true
		}
	}
	return false
}
