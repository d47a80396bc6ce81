package fdyno

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocSnippets keeps the documentation honest: every ```go block of the
// README and the other Markdown guides must be a run of lines (ignoring
// indentation and blank lines) of one of the module's _test.go files,
// almost always an Example, so that each snippet is compiled, and run, by
// `go test` exactly as a reader sees it. To document a new snippet, write
// it in an Example first and copy its lines.
func TestDocSnippets(t *testing.T) {
	docs := []string{"README.md", "server/README.md", "fdblite/README.md"}
	more, _ := filepath.Glob("docs/*.md")
	docs = append(docs, more...)

	var sources []testSource
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "build" || d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, "_test.go") {
			src, err := readTestSource(path)
			if err != nil {
				return err
			}
			sources = append(sources, src)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, doc := range docs {
		blocks, err := goBlocks(doc)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			checked++
			if !snippetFound(b.lines, sources) {
				t.Errorf("%s:%d: this go snippet is not the lines of an Example or Test function:\n%s",
					doc, b.line, strings.Join(b.lines, "\n"))
			}
		}
	}
	if checked == 0 {
		t.Error("no go snippets found in the docs; is the test looking in the right place?")
	}
}

// testSource is one _test.go file: its non-blank lines, trimmed.
type testSource struct {
	lines []string
}

func readTestSource(path string) (testSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return testSource{}, err
	}
	defer f.Close()
	var src testSource
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			src.lines = append(src.lines, s)
		}
	}
	return src, sc.Err()
}

type goBlock struct {
	line  int
	lines []string
}

// goBlocks returns the ```go fenced blocks of a Markdown file, trimmed and
// without blank lines.
func goBlocks(path string) ([]goBlock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var blocks []goBlock
	var cur *goBlock
	for i, line := range strings.Split(string(data), "\n") {
		s := strings.TrimSpace(line)
		switch {
		case cur == nil && s == "```go":
			cur = &goBlock{line: i + 1}
		case cur != nil && s == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil && s != "":
			cur.lines = append(cur.lines, s)
		}
	}
	return blocks, nil
}

// snippetFound reports whether lines occur, in order and contiguously, in
// one source file.
func snippetFound(lines []string, sources []testSource) bool {
	if len(lines) == 0 {
		return true
	}
	for _, src := range sources {
	start:
		for i := 0; i+len(lines) <= len(src.lines); i++ {
			for j, l := range lines {
				if src.lines[i+j] != l {
					continue start
				}
			}
			return true
		}
	}
	return false
}
