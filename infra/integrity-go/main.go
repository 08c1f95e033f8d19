// Checks the service's integrity formats with the Go team's own implementations (docs/integrity.md):
// golang.org/x/mod/sumdb/note for signed checkpoints and golang.org/x/mod/sumdb/tlog for RFC 6962 proofs, as the
// Go checksum database uses them, and export rows' leaves by the documented encoding (leaf.go). Reads cases as JSON
// on stdin, writes one answer per case as JSON on stdout.
package main

import (
	"encoding/hex"
	"encoding/json"
	"os"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type cases struct {
	Checkpoints []struct {
		Note string   `json:"note"`
		Keys []string `json:"keys"`
	} `json:"checkpoints"`
	Inclusion []struct {
		Leaf, Root  string
		Index, Size int64
		Proof       []string
	} `json:"inclusion"`
	Consistency []struct {
		First, Second         int64
		FirstRoot, SecondRoot string
		Proof                 []string
	} `json:"consistency"`
	// Export rows, as the API gives them.
	Leaves []json.RawMessage `json:"leaves"`
}

func hash(text string) tlog.Hash {
	var h tlog.Hash
	b, err := hex.DecodeString(text)
	if err != nil || len(b) != len(h) {
		panic("not a hash: " + text)
	}
	copy(h[:], b)
	return h
}

func hashes(texts []string) []tlog.Hash {
	out := make([]tlog.Hash, len(texts))
	for i, t := range texts {
		out[i] = hash(t)
	}
	return out
}

func main() {
	var in cases
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		panic(err)
	}
	var out struct {
		Checkpoints []string `json:"checkpoints"`
		Inclusion   []bool   `json:"inclusion"`
		Consistency []bool   `json:"consistency"`
		// Each row's leaf hash in hex, or "" for a row that is no event.
		Leaves []string `json:"leaves"`
	}
	for _, c := range in.Checkpoints {
		var verifiers []note.Verifier
		for _, k := range c.Keys {
			v, err := note.NewVerifier(k)
			if err != nil {
				panic(err)
			}
			verifiers = append(verifiers, v)
		}
		n, err := note.Open([]byte(c.Note), note.VerifierList(verifiers...))
		if err != nil {
			out.Checkpoints = append(out.Checkpoints, "")
		} else {
			out.Checkpoints = append(out.Checkpoints, n.Text)
		}
	}
	for _, c := range in.Inclusion {
		err := tlog.CheckRecord(hashes(c.Proof), c.Size, hash(c.Root), c.Index, hash(c.Leaf))
		out.Inclusion = append(out.Inclusion, err == nil)
	}
	for _, c := range in.Consistency {
		err := tlog.CheckTree(hashes(c.Proof), c.Second, hash(c.SecondRoot), c.First, hash(c.FirstRoot))
		out.Consistency = append(out.Consistency, err == nil)
	}
	for _, raw := range in.Leaves {
		var row map[string]json.RawMessage
		hash, err := []byte(nil), json.Unmarshal(raw, &row)
		if err == nil && row != nil {
			hash, err = leafHash(row)
		}
		if err != nil || row == nil {
			out.Leaves = append(out.Leaves, "")
		} else {
			out.Leaves = append(out.Leaves, hex.EncodeToString(hash))
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
