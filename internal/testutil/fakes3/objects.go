package fakes3

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"testing"
)

// Object returns the bytes of the object at key and whether it exists,
// read over the server's HTTP API.
func (s *Server) Object(t testing.TB, key string) ([]byte, bool) {
	t.Helper()
	resp := s.do(t, http.MethodGet, "/"+key, nil)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("fakes3: read %s: %v", key, err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return body, true
	case http.StatusNotFound:
		return nil, false
	}
	t.Fatalf("fakes3: GET %s: %s: %s", key, resp.Status, body)
	return nil, false
}

// PutObject writes content at key, as another client of the bucket would.
func (s *Server) PutObject(t testing.TB, key string, content []byte) {
	t.Helper()
	resp := s.do(t, http.MethodPut, "/"+key, content)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fakes3: PUT %s: %s", key, resp.Status)
	}
}

// DeleteObject removes the object at key.
func (s *Server) DeleteObject(t testing.TB, key string) {
	t.Helper()
	resp := s.do(t, http.MethodDelete, "/"+key, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		t.Fatalf("fakes3: DELETE %s: %s", key, resp.Status)
	}
}

// Keys lists every key in the bucket.
func (s *Server) Keys(t testing.TB) []string {
	t.Helper()
	resp := s.do(t, http.MethodGet, "", nil)
	defer resp.Body.Close()
	var out struct {
		Contents []struct{ Key string }
	}
	if err := xml.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("fakes3: list %s: %v", s.Bucket, err)
	}
	keys := make([]string, 0, len(out.Contents))
	for _, c := range out.Contents {
		keys = append(keys, c.Key)
	}
	return keys
}

// do sends one request for the bucket, naming the server's key (the server
// checks the key id, not the signature).
func (s *Server) do(t testing.TB, method, keyPath string, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.Endpoint+"/"+s.Bucket+keyPath, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("fakes3: %s %s: %v", method, keyPath, err)
	}
	req.Header.Set("Authorization", "AWS "+s.AccessKeyID+":unsigned")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("fakes3: %s %s: %v", method, keyPath, err)
	}
	return resp
}
