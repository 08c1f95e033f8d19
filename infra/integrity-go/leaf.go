// The leaf of an export row (docs/integrity.md "Leaves", "Version 3"), written from the documentation alone: a
// third reading of the encoding, besides the TypeScript package and the Python reference.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

type field struct{ name, kind string }

// Fields 1 to 15, then version 2's 16 to 20, each with its kind.
var fields = []field{
	{"event_id", "text"}, {"timestamp", "millis"}, {"tenant_id", "text"}, {"action", "text"},
	{"user_id", "text"}, {"user_role", "text"}, {"resource_type", "text"}, {"resource_id", "text"},
	{"fields_accessed", "text"}, {"phi_involved", "flag"}, {"source_ip", "text"}, {"user_agent", "text"},
	{"justification", "text"}, {"success", "flag"}, {"details", "text"},
	{"patient_id", "text"}, {"purpose_of_use", "text"}, {"recipient", "text"}, {"disclosure", "flag"},
	{"accounting_exclusion", "text"},
}

const firstLater = 15 // fields[15:] are version 2's: absent from a row written before them, at their defaults

// Version 3's committed fields, in their order.
var committed = []string{
	"user_id", "resource_id", "source_ip", "user_agent", "justification", "details", "patient_id", "recipient",
}

var (
	apiTime   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(?:\+00:00|Z)$`)
	padded64  = regexp.MustCompile(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`)
	errNoLeaf = errors.New("not an event")
	jsonNull  = []byte("null")
)

// text reads a JSON string whose every \u escape is a whole character: Go's decoder would write a lone surrogate
// as U+FFFD, text the service never stored, which the other verifiers refuse.
func text(raw json.RawMessage) (string, error) {
	// A string, not null (which Go would read as an empty one).
	if len(raw) == 0 || raw[0] != '"' || !utf8.Valid(raw) {
		return "", errNoLeaf
	}
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++
			continue
		}
		unit, err := strconv.ParseUint(string(raw[i+2:min(i+6, len(raw))]), 16, 16)
		if err != nil {
			return "", errNoLeaf
		}
		if unit >= 0xdc00 && unit <= 0xdfff {
			return "", errNoLeaf
		}
		if unit >= 0xd800 && unit <= 0xdbff {
			if i+12 > len(raw) || raw[i+6] != '\\' || raw[i+7] != 'u' {
				return "", errNoLeaf
			}
			low, err := strconv.ParseUint(string(raw[i+8:i+12]), 16, 16)
			if err != nil || low < 0xdc00 || low > 0xdfff {
				return "", errNoLeaf
			}
			i += 6
		}
		i += 5
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", errNoLeaf
	}
	return s, nil
}

func flag(raw json.RawMessage) (bool, error) {
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errNoLeaf
}

// millis reads the API's timestamp exactly: a date or time that does not exist is refused, not rolled over.
func millis(raw json.RawMessage) (int64, error) {
	s, err := text(raw)
	if err != nil || !apiTime.MatchString(s) {
		return 0, errNoLeaf
	}
	t, err := time.Parse("2006-01-02T15:04:05.000Z07:00", s)
	if err != nil {
		return 0, errNoLeaf
	}
	return t.UnixMilli(), nil
}

func base64Of(raw json.RawMessage, size int) ([]byte, error) {
	s, err := text(raw)
	if err != nil || !padded64.MatchString(s) {
		return nil, errNoLeaf
	}
	// Strict: the one text of the bytes, no bits in the last character beyond them.
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != size {
		return nil, errNoLeaf
	}
	return b, nil
}

func appendText(out []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(out, uint32(len(s))), s...)
}

// leafHash is the row's leaf hash, SHA-256(0x00 || encoding), or errNoLeaf for a row that is no event.
func leafHash(row map[string]json.RawMessage) ([]byte, error) {
	salts, saltsGiven := row["leaf_salts"]
	erased := map[string][]byte{}
	if _, named := row["erased"]; named && !saltsGiven {
		return nil, errNoLeaf // erasures are of version 3 only
	}
	if saltsGiven {
		var err error
		if salts, err = base64Of(salts, 16*len(committed)); err != nil {
			return nil, err
		}
		if given, ok := row["erased"]; ok {
			var names map[string]json.RawMessage
			if !bytes.HasPrefix(given, []byte("{")) || json.Unmarshal(given, &names) != nil {
				return nil, errNoLeaf
			}
			for name, c := range names {
				commitment, err := base64Of(c, sha256.Size)
				value, present := row[name]
				slot := slices.Index(committed, name)
				if err != nil || slot < 0 || !present || !bytes.Equal(value, jsonNull) {
					return nil, errNoLeaf
				}
				// The salt goes with the value: an erased field's is zeros.
				if !bytes.Equal(salts[16*slot:16*slot+16], make([]byte, 16)) {
					return nil, errNoLeaf
				}
				erased[name] = commitment
			}
		}
	}
	// Each field's bytes as version 3 has them, and as versions 1 and 2 have them but for the committed fields.
	encoded := make([][]byte, len(fields))
	later := false
	for i, f := range fields {
		raw, present := row[f.name]
		if !present && i < firstLater {
			return nil, errNoLeaf
		}
		if commitment, isErased := erased[f.name]; isErased {
			encoded[i] = commitment
			continue
		}
		switch f.kind {
		case "millis":
			ms, err := millis(raw)
			if err != nil {
				return nil, err
			}
			encoded[i] = binary.BigEndian.AppendUint64(nil, uint64(ms))
		case "flag":
			b := false
			if present {
				var err error
				if b, err = flag(raw); err != nil {
					return nil, err
				}
			}
			later = later || (i >= firstLater && b)
			encoded[i] = []byte{0}
			if b {
				encoded[i][0] = 1
			}
		default:
			s := ""
			if present {
				var err error
				if s, err = text(raw); err != nil {
					return nil, err
				}
			}
			later = later || (i >= firstLater && s != "")
			if slot := slices.Index(committed, f.name); saltsGiven && slot >= 0 {
				h := sha256.New()
				h.Write([]byte{0x10, byte(i + 1)})
				h.Write(salts[16*slot : 16*slot+16])
				h.Write([]byte(s))
				encoded[i] = h.Sum(nil)
			} else {
				encoded[i] = appendText(nil, s)
			}
		}
	}
	version, count := byte(1), firstLater
	switch {
	case saltsGiven:
		version, count = 3, len(fields)
	case later:
		version, count = 2, len(fields)
	}
	out := append([]byte{0x00, version}, slices.Concat(encoded[:count]...)...)
	sum := sha256.Sum256(out)
	return sum[:], nil
}
