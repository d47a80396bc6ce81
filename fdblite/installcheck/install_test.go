package installcheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fdbliteDir is the fdblite source directory (the test runs in its package
// directory).
const fdbliteDir = ".."

// builtLib is the library `make install` copies.
var builtLib = filepath.Join(fdbliteDir, "build", "lib", "libfdb_c.so")

// runMake runs fdblite's Makefile target with the given variables, never
// rebuilding the library (-o), outside any calling make's job server.
// It returns the combined output and whether make succeeded.
func runMake(t *testing.T, target string, vars ...string) (string, bool) {
	t.Helper()
	if _, err := os.Stat(builtLib); err != nil {
		t.Skipf("fdblite is not built (%v): run make fdblite first", err)
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	args := append([]string{"-s", "-C", fdbliteDir, "-o", "build/lib/libfdb_c.so", target}, vars...)
	cmd := exec.Command("make", args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MAKEFLAGS=") && !strings.HasPrefix(kv, "MFLAGS=") && !strings.HasPrefix(kv, "MAKELEVEL=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("make %s: %v", target, err)
		}
	}
	return string(out), err == nil
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// The layout: everything under PREFIX/lib/fdblite/ plus the pkg-config
// file; nothing in PREFIX/lib or PREFIX/include, where the loader and the
// compiler would find it before (or instead of) FoundationDB's client.
func TestInstallLayout(t *testing.T) {
	dest := t.TempDir()
	const prefix = "/opt/fdblite-installcheck"
	out, ok := runMake(t, "install", "DESTDIR="+dest, "PREFIX="+prefix)
	if !ok {
		t.Fatalf("make install failed:\n%s", out)
	}
	root := filepath.Join(dest, prefix)
	for _, f := range []struct {
		path string
		mode os.FileMode
	}{
		{"lib/fdblite/libfdb_c.so", 0o755},
		{"lib/fdblite/include/foundationdb/fdb_c.h", 0o644},
		{"lib/fdblite/include/foundationdb/fdb_c_options.g.h", 0o644},
		{"lib/pkgconfig/fdblite.pc", 0o644},
	} {
		fi, err := os.Stat(filepath.Join(root, f.path))
		if err != nil {
			t.Errorf("%s not installed: %v", f.path, err)
			continue
		}
		if fi.Mode().Perm() != f.mode {
			t.Errorf("%s: mode %v, want %v", f.path, fi.Mode().Perm(), f.mode)
		}
	}
	if !bytes.Equal(readFile(t, filepath.Join(root, "lib/fdblite/libfdb_c.so")), readFile(t, builtLib)) {
		t.Errorf("the installed libfdb_c.so is not the built one")
	}
	for _, shadow := range []string{"lib/libfdb_c.so", "include/foundationdb", "lib/libfdb_c.so.1"} {
		if exists(filepath.Join(root, shadow)) {
			t.Errorf("%s installed: it would take the place of FoundationDB's client", shadow)
		}
	}
	pc := string(readFile(t, filepath.Join(root, "lib/pkgconfig/fdblite.pc")))
	for _, line := range []string{
		"prefix=" + prefix, // PREFIX, not DESTDIR: where the files will live
		"libdir=${prefix}/lib/fdblite",
		"includedir=${libdir}/include",
		"Name: fdblite",
		"Cflags: -I${includedir}",
		"Libs: -L${libdir} -Wl,-rpath,${libdir} -lfdb_c",
	} {
		if !strings.Contains("\n"+pc+"\n", "\n"+line+"\n") {
			t.Errorf("fdblite.pc lacks the line %q:\n%s", line, pc)
		}
	}
	lib := prefix + "/lib/fdblite"
	want := `CGO_CFLAGS="-I` + lib + `/include" CGO_LDFLAGS="-L` + lib + ` -Wl,-rpath,` + lib + `"`
	if !strings.Contains(out, want) {
		t.Errorf("make install does not print the cgo flags %s:\n%s", want, out)
	}
	if strings.Contains(out, "ldconfig") {
		t.Errorf("make install mentions ldconfig:\n%s", out)
	}
	// Installing again over fdblite's own library is fine.
	if out, ok := runMake(t, "install", "DESTDIR="+dest, "PREFIX="+prefix); !ok {
		t.Errorf("make install over fdblite's own library failed:\n%s", out)
	}
}

// An existing libfdb_c in PREFIX/lib/fdblite/ that is not fdblite's is left
// as it is, and nothing at all is installed.
func TestInstallRefusesForeignLibrary(t *testing.T) {
	self, err := os.Executable() // an ELF file without fdblite's mark
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		place func(t *testing.T, path string) error
	}{
		{"text file", func(t *testing.T, p string) error { return os.WriteFile(p, []byte("not a library\n"), 0o644) }},
		{"another ELF file", func(t *testing.T, p string) error { return os.WriteFile(p, readFile(t, self), 0o755) }},
		{"symlink to another ELF file", func(t *testing.T, p string) error { return os.Symlink(self, p) }},
		{"dangling symlink", func(t *testing.T, p string) error {
			return os.Symlink(filepath.Join(t.TempDir(), "gone.so"), p)
		}},
		{"a client like FoundationDB's", func(t *testing.T, p string) error {
			buildClientLibrary(t, p, "7.3.43,3b6ea7d0,fdb00b073000000")
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := t.TempDir()
			target := filepath.Join(prefix, "lib/fdblite/libfdb_c.so")
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.place(t, target); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Readlink(target)
			beforeBytes, _ := os.ReadFile(target)
			out, ok := runMake(t, "install", "PREFIX="+prefix)
			if ok {
				t.Fatalf("make install over a foreign libfdb_c succeeded:\n%s", out)
			}
			if !strings.Contains(out, "refusing to overwrite "+target) {
				t.Errorf("make install's refusal does not name the file:\n%s", out)
			}
			after, _ := os.Readlink(target)
			afterBytes, _ := os.ReadFile(target)
			if before != after || !bytes.Equal(beforeBytes, afterBytes) {
				t.Errorf("the foreign library changed")
			}
			for _, p := range []string{"lib/fdblite/include", "lib/pkgconfig/fdblite.pc"} {
				if exists(filepath.Join(prefix, p)) {
					t.Errorf("%s installed although the install was refused", p)
				}
			}
			if out, ok := runMake(t, "uninstall", "PREFIX="+prefix); ok || !exists(target) {
				t.Errorf("make uninstall removed a foreign library (ok=%v):\n%s", ok, out)
			}
		})
	}
}

// buildClientLibrary compiles, at path, a shared library exporting only
// fdb_get_client_version, which answers version: a stand-in for a client
// library (FoundationDB's answers "7.3.x,<source hash>,<protocol>").
func buildClientLibrary(t *testing.T, path, version string) {
	t.Helper()
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("cc is not installed")
	}
	src := filepath.Join(t.TempDir(), "client.c")
	program := `const char* fdb_get_client_version(void) { return "` + version + `"; }` + "\n"
	if err := os.WriteFile(src, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cc", "-shared", "-fPIC", "-o", path, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
}

// An older fdblite install put libfdb_c.so in PREFIX/lib itself: install
// warns about it and uninstall removes it, but never a foreign one there.
func TestUninstall(t *testing.T) {
	prefix := t.TempDir()
	legacy := filepath.Join(prefix, "lib/libfdb_c.so")
	if err := os.MkdirAll(filepath.Dir(legacy), 0o755); err != nil {
		t.Fatal(err)
	}
	// What an older fdblite left: its library, known only by the client
	// version its fdb_get_client_version returns, and its headers.
	buildClientLibrary(t, legacy, "7.3.0,fdblite,fdb00b073000000")
	headers := filepath.Join(prefix, "include/foundationdb")
	if err := os.MkdirAll(headers, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"fdb_c.h", "fdb_c_options.g.h"} {
		if err := os.WriteFile(filepath.Join(headers, h), readFile(t, filepath.Join(fdbliteDir, "include/foundationdb", h)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, ok := runMake(t, "install", "PREFIX="+prefix)
	if !ok {
		t.Fatalf("make install failed:\n%s", out)
	}
	if !strings.Contains(out, "warning: "+legacy) {
		t.Errorf("make install does not warn about the older install at %s:\n%s", legacy, out)
	}
	if out, ok := runMake(t, "uninstall", "PREFIX="+prefix); !ok {
		t.Fatalf("make uninstall failed:\n%s", out)
	}
	for _, p := range []string{"lib/fdblite", "lib/pkgconfig/fdblite.pc", "lib/libfdb_c.so",
		"include/foundationdb/fdb_c.h", "include/foundationdb/fdb_c_options.g.h"} {
		if exists(filepath.Join(prefix, p)) {
			t.Errorf("%s left after make uninstall", p)
		}
	}
	// A foreign library in PREFIX/lib is not fdblite's to remove.
	if err := os.WriteFile(legacy, []byte("someone else's libfdb_c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, ok := runMake(t, "uninstall", "PREFIX="+prefix); !ok {
		t.Fatalf("make uninstall failed:\n%s", out)
	}
	if !exists(legacy) {
		t.Errorf("make uninstall removed a foreign %s", legacy)
	}
}

// A C program built with the pkg-config flags finds the installed library
// through its rpath alone, and it is fdblite's.
func TestPkgConfigBuildsAgainstTheInstall(t *testing.T) {
	for _, tool := range []string{"cc", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "prefix")
	if out, ok := runMake(t, "install", "PREFIX="+prefix); !ok {
		t.Fatalf("make install failed:\n%s", out)
	}
	pc := exec.Command("pkg-config", "--cflags", "--libs", "fdblite")
	pc.Env = append(os.Environ(), "PKG_CONFIG_PATH="+filepath.Join(prefix, "lib/pkgconfig"))
	flags, err := pc.Output()
	if err != nil {
		t.Fatalf("pkg-config --cflags --libs fdblite: %v", err)
	}
	src := filepath.Join(dir, "probe.c")
	const program = `#define FDB_API_VERSION 730
#include <foundationdb/fdb_c.h>
#include <stdio.h>
const char* fdblite_version(void);
int main(void) {
  printf("%d %s\n", fdb_get_max_api_version(), fdblite_version());
  return 0;
}
`
	if err := os.WriteFile(src, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probe")
	args := append([]string{src, "-o", bin}, strings.Fields(string(flags))...)
	if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	run := exec.Command(bin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LD_LIBRARY_PATH=") {
			run.Env = append(run.Env, kv)
		}
	}
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, out)
	}
	if got := string(out); !strings.HasPrefix(got, "730 fdblite:") {
		t.Errorf("probe printed %q, want the API version 730 and fdblite's mark", got)
	}
}
