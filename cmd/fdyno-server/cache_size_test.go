package main

import (
	"io"
	"math"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fdyno/fdyno/server"
)

func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"65536", 65536, true},
		{"512B", 512, true},
		{"64k", 64 << 10, true},
		{"64KiB", 64 << 10, true},
		{"64KB", 64 << 10, true},
		{"256M", 256 << 20, true},
		{"256MiB", 256 << 20, true},
		{"256mb", 256 << 20, true},
		{"2G", 2 << 30, true},
		{"2GiB", 2 << 30, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"8589934591G", 8589934591 << 30, true}, // the largest count of GiB that fits
		{"8589934592G", 0, false},
		{"9223372036854775808", 0, false},
		{"", 0, false},
		{"MiB", 0, false},
		{"-1", 0, false},
		{"+5", 0, false},
		{"1.5G", 0, false},
		{"5 MiB", 0, false},
		{"5T", 0, false},
		{"5iB", 0, false},
		{"0x10", 0, false},
	} {
		got, err := parseByteSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// byteSizeSyntax is parseByteSize's grammar, for the fuzz target's oracle.
var byteSizeSyntax = regexp.MustCompile(`^([0-9]+)((?i)b|k|kb|kib|m|mb|mib|g|gb|gib)?$`)

// FuzzParseByteSize checks parseByteSize against an arbitrary-precision
// computation: it accepts exactly the sizes of its grammar that fit in an
// int64, with their value.
func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"64MiB", "1", "8589934592G", "1.5G", "kib"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseByteSize(s)
		m := byteSizeSyntax.FindStringSubmatch(s)
		if m == nil {
			if err == nil {
				t.Fatalf("parseByteSize(%q) = %d, want an error", s, got)
			}
			return
		}
		want, _ := new(big.Int).SetString(m[1], 10)
		shift := map[byte]uint{'k': 10, 'm': 20, 'g': 30}[strings.ToLower(m[2] + " ")[0]]
		want.Lsh(want, shift)
		if !want.IsInt64() {
			if err == nil {
				t.Fatalf("parseByteSize(%q) = %d, want too large", s, got)
			}
			return
		}
		if err != nil || got != want.Int64() {
			t.Fatalf("parseByteSize(%q) = %d, %v; want %s", s, got, err, want)
		}
	})
}

func TestApplyCacheSize(t *testing.T) {
	t.Setenv(cacheBytesEnv, "")
	if err := applyCacheSize("", server.Storage{Mode: "memory"}); err != nil || os.Getenv(cacheBytesEnv) != "" {
		t.Errorf("no --cache-size: %v, %s=%q", err, cacheBytesEnv, os.Getenv(cacheBytesEnv))
	}
	if err := applyCacheSize("3MiB", server.Storage{Mode: "durable", Dir: "/x"}); err != nil || os.Getenv(cacheBytesEnv) != "3145728" {
		t.Errorf("--cache-size 3MiB: %v, %s=%q", err, cacheBytesEnv, os.Getenv(cacheBytesEnv))
	}
	for _, mode := range []string{"memory", "cluster"} {
		if err := applyCacheSize("3MiB", server.Storage{Mode: mode}); err == nil || !strings.Contains(err.Error(), "--data-dir") {
			t.Errorf("--cache-size with %s storage: %v", mode, err)
		}
	}
	if err := applyCacheSize("lots", server.Storage{Mode: "durable"}); err == nil || !strings.Contains(err.Error(), "256MiB") {
		t.Errorf("--cache-size lots: %v", err)
	}
}

// --cache-size reaches the embedded durable database: /metrics reports
// it as the cache budget, next to the process's resident memory. It is
// refused with --in-memory and when malformed.
func TestCacheSizeFlag(t *testing.T) {
	_, addr, _ := startServer(t, "--data-dir", filepath.Join(t.TempDir(), "data"), "--cache-size", "3MiB")
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	gauge := func(name string) float64 {
		m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("GET /metrics lacks %s:\n%s", name, body)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	if got := gauge("fdyno_storage_cache_budget_bytes"); got != 3<<20 {
		t.Errorf("fdyno_storage_cache_budget_bytes = %v, want 3 MiB", got)
	}
	if got := gauge("process_resident_memory_bytes"); got <= 0 {
		t.Errorf("process_resident_memory_bytes = %v", got)
	}
	for _, args := range [][]string{
		{"--in-memory", "--cache-size", "3MiB"},
		{"--data-dir", t.TempDir(), "--cache-size", "lots"},
	} {
		cmd := exec.Command(os.Args[0], append([]string{"--listen", "127.0.0.1:0"}, args...)...)
		cmd.Env = append(os.Environ(), "FDYNO_SERVER_MAIN=1")
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "--cache-size") {
			t.Errorf("fdyno-server %v: %v %s", args, err, out)
		}
	}
}
