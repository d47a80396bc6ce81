// Package layers is the sample of TestFileReferences.
package layers

import "strings"

type lower struct{ h *upper }

func base(s string) string { return strings.TrimSpace(s) }

func (l lower) describe() string {
	if len(l.h.name) > limit {
		return ""
	}
	return l.h.Greeting()
}
