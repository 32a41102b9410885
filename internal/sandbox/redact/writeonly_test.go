package redact

import (
	"errors"
	"strings"
	"testing"
)

func TestSecretScannerAcrossWrites(t *testing.T) {
	vals := []WriteOnlyValue{{Attr: "sandbox_file.content_wo", Value: []byte("s3cret-value-77")}}
	s := NewSecretScanner("export", vals)
	s.Start("out/a.txt")
	for _, chunk := range []string{"head s3cr", "et-val", "ue-77 tail"} {
		if _, err := s.Write([]byte(chunk)); err != nil {
			var se *SecretFileError
			if !errors.As(err, &se) || se.Path != "out/a.txt" || se.Attr != "sandbox_file.content_wo" {
				t.Fatalf("error %v", err)
			}
			if strings.Contains(err.Error(), "s3cret-value-77") {
				t.Fatalf("the error holds the value: %v", err)
			}
			return
		}
	}
	t.Fatal("the value split across three writes was not found")
}

func TestSecretScannerNewFileForgetsTail(t *testing.T) {
	s := NewSecretScanner("snapshot", []WriteOnlyValue{{Attr: "a", Value: []byte("abcdefgh")}})
	s.Start("one")
	if _, err := s.Write([]byte("xxabcd")); err != nil {
		t.Fatal(err)
	}
	s.Start("two")
	if _, err := s.Write([]byte("efghyy")); err != nil {
		t.Fatalf("halves in two files are no secret: %v", err)
	}
}

func TestNoteWriteOnlyMinimumAndTrim(t *testing.T) {
	NoteWriteOnly("x.short_wo", "1234567")
	NoteWriteOnly("x.long_wo", "  trimmed-value\n")
	have := map[string]string{}
	for _, v := range WriteOnlyValues() {
		have[string(v.Value)] = v.Attr
	}
	if _, ok := have["1234567"]; ok {
		t.Fatal("a value shorter than MinWriteOnlyLen was remembered")
	}
	if have["trimmed-value"] != "x.long_wo" || have["  trimmed-value\n"] != "x.long_wo" {
		t.Fatalf("remembered %v", have)
	}
	if NewSecretScanner("export", nil) != nil {
		t.Fatal("a scanner without values")
	}
}
