// Package tartest crafts the hostile archives the snapshot and restore
// tests feed the provider: members archive/tar will not write itself.
package tartest

import (
	"archive/tar"
	"bytes"
	"fmt"
	"strconv"
)

// rawHeader is one 512-byte header block with any typeflag (tar.Writer
// refuses to write PAX extended headers or old GNU sparse members).
func rawHeader(name string, typeflag byte, size int64) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: size, Format: tar.FormatUSTAR}
	if typeflag == tar.TypeDir {
		hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
	}
	if err := tw.WriteHeader(hdr); err != nil {
		panic(err)
	}
	b := append([]byte(nil), buf.Bytes()[:512]...)
	b[156] = typeflag
	if typeflag == tar.TypeGNUSparse {
		copy(b[257:265], "ustar  \x00") // the GNU magic the old sparse type needs
	}
	copy(b[148:156], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

func pad(b []byte) []byte {
	if r := len(b) % 512; r != 0 {
		b = append(b, make([]byte, 512-r)...)
	}
	return b
}

// paxRecord is "<len> <key>=<value>\n", len counting itself.
func paxRecord(k, v string) string {
	body := " " + k + "=" + v + "\n"
	n := len(body) + 1
	for len(strconv.Itoa(n))+len(body) != n {
		n++
	}
	return strconv.Itoa(n) + body
}

// SparseBomb is an archive of the root directory and one PAX format 1.0
// sparse file ./big (GNU.sparse.* records, written by hand): about 3 KB,
// and realsize bytes (one "x" at the end, the rest a hole) once
// archive/tar, which reads it as a regular file, expands it.
func SparseBomb(realsize int64) []byte {
	recs := paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") +
		paxRecord("GNU.sparse.name", "./big") + paxRecord("GNU.sparse.realsize", strconv.FormatInt(realsize, 10))
	data := append(pad([]byte(fmt.Sprintf("1\n%d\n1\n", realsize-1))), 'x')
	var out []byte
	out = append(out, rawHeader("./", tar.TypeDir, 0)...)
	out = append(out, rawHeader("./PaxHeaders/big", tar.TypeXHeader, int64(len(recs)))...)
	out = append(out, pad([]byte(recs))...)
	out = append(out, rawHeader("./GNUSparseFile.0/big", tar.TypeReg, int64(len(data)))...)
	out = append(out, pad(data)...)
	return append(out, make([]byte, 1024)...)
}

// OldGNUSparse is an archive of one old GNU sparse ('S') member ./s.
func OldGNUSparse() []byte {
	out := append(rawHeader("./s", tar.TypeGNUSparse, 1), pad([]byte("x"))...)
	return append(out, make([]byte, 1024)...)
}
