// Package gitexarchos holds the files this repository ships that the program also writes, embedded
// from the one copy in the repository, so that what ships and what `git exarchos setup` writes
// cannot differ. (go:embed reaches only files under the embedding package's directory, hence a
// package at the module's root.)
//
// It may import the standard library only.
package gitexarchos

import "embed"

// VerifyWorkflowPath is where the CI verify workflow lives, in this repository and in a user's.
const VerifyWorkflowPath = ".github/workflows/exarchos-verify.yml"

// VerifyWorkflow is the GitHub Actions workflow that runs `git exarchos verify` on pull requests.
//
//go:embed .github/workflows/exarchos-verify.yml
var VerifyWorkflow []byte

// ManPage is git-exarchos(1), generated from the command tree by urfave/cli-docs in a test
// (cmd/git-exarchos's TestGeneratedManPage, which keeps this copy current) and embedded, so that
// `git exarchos man` prints it without the binary linking the generator, whose markdown renderer
// costs every start of the binary, every hook call's included (BENCHMARKS.md, "Issue 31: what each
// fast path buys").
//
//go:embed docs/git-exarchos.1
var ManPage string

// Plugin is the Claude Code plugin's guidance: its workflow commands (claude-plugin/commands),
// per-phase skills (claude-plugin/skills) and agents (claude-plugin/agents), the one source from
// which package guidance renders every other client's form of them.
//
//go:embed claude-plugin/commands claude-plugin/skills claude-plugin/agents
var Plugin embed.FS
