package gitrepo

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// BenchmarkFastPath times each hand-written reader and writer of this package against what it
// stands in front of, in the same run: the git binary doing the same job as the hook or an append
// would have it do (one process a call, as nothing keeps a git process between hook calls). Each
// pair's difference is what the piece buys a hook call or an append (BENCHMARKS.md, "Issue 31:
// what each fast path buys"):
//
//	go test ./gitrepo -run '^$' -bench BenchmarkFastPath -benchtime 200x
func BenchmarkFastPath(b *testing.B) {
	dir := gittest.NewRepo(b, "sha1")
	common := filepath.Join(dir, ".git")
	head := mustHash(gittest.Git(b, dir, "", "rev-parse", "HEAD"))
	for i := range 50 {
		gittest.Git(b, dir, "", "update-ref", fmt.Sprintf("refs/exarchos/w%03d", i), head.String())
	}
	blob := bytes.Repeat([]byte("{\"event\":\"x\"}\n"), 200)
	r := openRepo(b, dir)
	loose, err := r.WriteObject(plumbing.BlobObject, blob)
	if err != nil {
		b.Fatal(err)
	}
	run := func(name string, f func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				f(b)
			}
		})
	}
	must := func(b *testing.B, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}

	// Discovery: every call, the hook's included.
	run("discover/fast", func(b *testing.B) { _, err := Discover(dir); must(b, err) })
	run("discover/git", func(b *testing.B) {
		_, err := runGit(dir, "", nil, nil, "rev-parse", "--git-dir", "--git-common-dir", "--show-toplevel")
		must(b, err)
	})
	// Repository format: every open.
	run("repofmt/fast", func(b *testing.B) { _, err := readRepoFeatures(common); must(b, err) })
	run("repofmt/git", func(b *testing.B) {
		_, err := runGit(dir, common, nil, nil, "config", "--get-regexp", `^(core\.repositoryformatversion|extensions\.)`)
		if ExitCode(err) != 1 {
			must(b, err)
		}
	})
	// One ref read: the hook (its workflow) and every append (the head before the swap).
	run("ref-read/fast", func(b *testing.B) { _, _, err := ReadRef(common, "refs/exarchos/w007"); must(b, err) })
	run("ref-read/git", func(b *testing.B) { _, _, err := gitReadRef(common, "refs/exarchos/w007"); must(b, err) })
	// A scan of the workflow refs: the hook's branch index when a ref moved, list.
	run("ref-scan/fast", func(b *testing.B) { _, _, _, err := ScanRefs(common, "refs/exarchos/", nil); must(b, err) })
	run("ref-scan/git", func(b *testing.B) { _, _, _, err := gitScanRefs(common, "refs/exarchos/", nil); must(b, err) })
	// The compare-and-swap of an append.
	cur := head
	run("ref-cas/fast", func(b *testing.B) { must(b, CasRef(common, "refs/exarchos/w001", head, cur)) })
	run("ref-cas/git", func(b *testing.B) { must(b, gitCasRef(common, "refs/exarchos/w001", head, cur)) })
	// Reading an object: an append reads the head commit, trees and state.json.
	run("object-read-loose/fast", func(b *testing.B) { _, _, err := r.st.rawFast(loose); must(b, err) })
	run("object-read-loose/git", func(b *testing.B) {
		c := &catFile{gitDir: common}
		_, _, err := c.read(loose)
		c.close()
		must(b, err)
	})
	// Writing an object: an append writes about five.
	run("object-write/fast", func(b *testing.B) { _, err := r.WriteObject(plumbing.BlobObject, blob); must(b, err) })
	run("object-write/git", func(b *testing.B) {
		_, err := runGit(dir, common, nil, bytes.NewReader(blob), "hash-object", "-w", "--stdin")
		must(b, err)
	})
	// Config: an append's identity and the rules' settings.
	run("config/fast", func(b *testing.B) {
		s := &Repo{Loc: r.Loc}
		if _, ok := s.readConfigFiles(); !ok {
			b.Fatal("the fast path declined")
		}
	})
	run("config/git", func(b *testing.B) { s := &Repo{Loc: r.Loc}; s.configFromGit() })

	// After gc: the objects are in a pack.
	gittest.Git(b, dir, "", "gc", "-q")
	r.Close()
	r = openRepo(b, dir)
	commit := mustHash(strings.TrimSpace(gittest.Git(b, dir, "", "rev-parse", "HEAD")))
	run("object-read-packed/fast", func(b *testing.B) { _, _, err := r.st.rawFast(commit); must(b, err) })
	run("object-read-packed/git", func(b *testing.B) {
		c := &catFile{gitDir: common}
		_, _, err := c.read(commit)
		c.close()
		must(b, err)
	})
}
