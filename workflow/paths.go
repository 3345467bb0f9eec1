package workflow

import (
	"path"
	"slices"
	"strings"
)

// Paths a phase may change and paths an artifact may live at are glob patterns over slash paths
// relative to the repository root: `*` and `?` stay inside one path segment, a `**` segment spans
// any number of directories, and a pattern without a `/` matches the file name in any directory
// (as in .gitignore), so `*.md` matches README.md and docs/a/b.md.

// DefaultArtifactPaths is where an artifact may live when the definition names no pattern for it.
var DefaultArtifactPaths = []string{"docs/**", "*.md"}

// PlanningPaths is what the built-in planning phases may change: their documents.
var PlanningPaths = DefaultArtifactPaths

// sourceExtensions are files that are code, never a document, whatever directory they sit in.
var sourceExtensions = []string{
	".go", ".py", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".rs", ".java", ".kt", ".kts", ".scala",
	".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".cs", ".rb", ".php", ".swift", ".m", ".mm", ".sh", ".bash",
	".zsh", ".ps1", ".pl", ".lua", ".sql", ".dart", ".ex", ".exs", ".erl", ".hs", ".clj", ".vue", ".svelte",
}

// IsSourcePath reports whether p names a source file (by extension).
func IsSourcePath(p string) bool {
	return slices.Contains(sourceExtensions, strings.ToLower(path.Ext(p)))
}

// MatchPath reports whether the slash path p matches the glob pattern.
func MatchPath(pattern, p string) bool {
	pattern, p = strings.TrimPrefix(pattern, "./"), strings.TrimPrefix(p, "./")
	if !strings.Contains(pattern, "/") {
		ok, _ := path.Match(pattern, path.Base(p))
		return ok
	}
	return matchSegments(strings.Split(pattern, "/"), strings.Split(p, "/"))
}

func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := len(segs); i >= 0; i-- {
				if matchSegments(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// MatchAny reports whether p matches one of the patterns.
func MatchAny(patterns []string, p string) bool {
	for _, pat := range patterns {
		if MatchPath(pat, p) {
			return true
		}
	}
	return false
}

// PathAllowed reports whether a phase allowing patterns may change p: p matches one of them, and a
// source file (IsSourcePath) only through a pattern that names its extension (`scripts/*.sh`), so
// `docs/**` lets a planning phase write documents, never docs/main.go.
func PathAllowed(patterns []string, p string) bool {
	ext := strings.ToLower(path.Ext(p))
	for _, pat := range patterns {
		if MatchPath(pat, p) && (!IsSourcePath(p) || strings.HasSuffix(strings.ToLower(pat), ext)) {
			return true
		}
	}
	return false
}

// ArtifactPatterns are the patterns an artifact's file must match: the definition's, else the
// defaults.
func (d *Definition) ArtifactPatterns(name string) []string {
	if ps, ok := d.ArtifactPaths[name]; ok && len(ps) > 0 {
		return ps
	}
	if ps, ok := d.ArtifactPaths["*"]; ok && len(ps) > 0 {
		return ps
	}
	return DefaultArtifactPaths
}

// InlineAllowed reports whether the artifact may be recorded as inline text (--inline).
func (d *Definition) InlineAllowed(name string) bool {
	return slices.Contains(d.InlineArtifacts, name) || slices.Contains(d.InlineArtifacts, "*")
}

// PastPlanning reports whether phase id lies past the definition's planning phases (those with
// AllowedPaths): a definition without any has none to be past; the cancelling phase is not past.
func (d *Definition) PastPlanning(id string) bool {
	planning := false
	for _, p := range d.Phases {
		planning = planning || len(p.AllowedPaths) > 0
	}
	return planning && len(d.AllowedPathsOf(id)) == 0 && id != d.CancellingPhase() && !d.IsFinal(id)
}

// AllowedPathsOf is what phase id may change, its own or its compound's; nil means anything.
func (d *Definition) AllowedPathsOf(id string) []string {
	for range 8 { // bounded: nested compounds are shallow
		p, ok := d.Phase(id)
		if !ok {
			return nil
		}
		if len(p.AllowedPaths) > 0 || p.Parent == "" {
			return p.AllowedPaths
		}
		id = p.Parent
	}
	return nil
}
