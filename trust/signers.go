package trust

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/signing"
	"github.com/exarchos/git-exarchos/workflow"
)

// SignersAddOptions adds a key to the allowed signers (`git exarchos signers add`).
type SignersAddOptions struct {
	Principal string
	KeyFile   string   // an SSH public key file
	Roles     []string // decision kinds only this principal (and others listed) may make; empty: none narrowed
}

// SignersAddResult says what was written and what to do next.
type SignersAddResult struct {
	File      string   `json:"file"`
	Principal string   `json:"principal"`
	Key       string   `json:"key"`
	Roles     []string `json:"roles,omitempty"`
	Base      string   `json:"base"`
	Next      string   `json:"next"`
}

// SignersAdd writes the principal's key into .exarchos/allowed_signers in the working tree
// (starting from the working tree's file, else the base branch's), for a commit to the base
// branch: protection starts when the base branch has it, not before.
func SignersAdd(r *Repo, o SignersAddOptions) (*SignersAddResult, error) {
	if err := RefuseInAgent(r.Environ, "signers add "+o.Principal+" "+o.KeyFile); err != nil {
		return nil, err // who may decide is the user's choice
	}
	if o.Principal == "" || strings.ContainsAny(o.Principal, " \t\n,\"") {
		return nil, project.Usagef("principal %q: give one name without spaces or commas, e.g. jane@example.com", o.Principal)
	}
	line, err := signing.PublicKeyLine(o.KeyFile)
	if err != nil {
		return nil, project.Usagef("%v", err)
	}
	kinds := workflow.DecisionKinds()
	for _, role := range o.Roles {
		if !slices.Contains(kinds, role) {
			return nil, project.Usagef("role %q: choose from %s", role, strings.Join(kinds, ", "))
		}
	}
	if r.WorkTree() == "" {
		return nil, project.Usagef("signers add writes %s in a working tree: run it in a checkout of the base branch", AllowedSignersPath)
	}
	root := r.WorkTree()
	if err := finishSignerChange(root); err != nil { // a change a kill interrupted comes first
		return nil, err
	}
	path := filepath.Join(root, filepath.FromSlash(AllowedSignersPath))
	current, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		current, _, err = r.BaseFile(AllowedSignersPath)
	}
	if err != nil {
		return nil, err
	}
	entry := fmt.Sprintf("%s namespaces=%q %s", o.Principal, "git-exarchos", line)
	for _, l := range strings.Split(string(current), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == o.Principal && strings.HasSuffix(strings.TrimSpace(l), line) {
			return nil, project.Usagef("%s already lists %s with this key", AllowedSignersPath, o.Principal)
		}
	}
	out := strings.TrimRight(string(current), "\n")
	if out == "" {
		out = "# Who may sign git exarchos decisions (git's allowed-signers format). Read from the base branch.\n"
	} else {
		out += "\n"
	}
	out += entry + "\n"
	files := AllowedSignersPath
	order := []string{AllowedSignersPath}
	content := map[string][]byte{AllowedSignersPath: []byte(out)}
	if len(o.Roles) > 0 {
		roles, err := addRoles(r, o.Principal, o.Roles)
		if err != nil {
			return nil, err
		}
		content[RolesPath] = roles
		order = []string{RolesPath, AllowedSignersPath} // roles first: see signers_write.go
		files += " " + RolesPath
	}
	if err := writeSignerFiles(root, order, content); err != nil {
		return nil, err
	}
	base := r.Base()
	name := strings.TrimPrefix(strings.TrimPrefix(base.Ref, "refs/heads/"), "refs/remotes/")
	return &SignersAddResult{File: AllowedSignersPath, Principal: o.Principal, Key: line, Roles: o.Roles, Base: base.Ref,
		Next: fmt.Sprintf("commit it to the base branch (%s): git add %s && git commit -m \"exarchos: allow %s to sign decisions\", then push; decisions are protected once %s has it", name, files, o.Principal, base.Ref)}, nil
}

// addRoles is .exarchos/roles with the principal appended to each role's line.
func addRoles(r *Repo, principal string, roles []string) ([]byte, error) {
	path := filepath.Join(r.WorkTree(), filepath.FromSlash(RolesPath))
	current, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		current, _, err = r.BaseFile(RolesPath)
	}
	if err != nil {
		return nil, err
	}
	if _, err := parseRoles(current); err != nil {
		return nil, project.Usagef("%s does not parse (%v): fix it first, then run signers add again", RolesPath, err)
	}
	lines := strings.Split(strings.TrimRight(string(current), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = []string{"# <decision> <principal>[,<principal>…]: only these may make that decision; a decision not listed is open to every allowed signer."}
	}
	for _, role := range roles {
		done := false
		for i, l := range lines {
			if f := strings.Fields(l); len(f) >= 1 && f[0] == role {
				if !slices.Contains(strings.Split(strings.Join(f[1:], ","), ","), principal) {
					lines[i] = strings.TrimSpace(l) + "," + principal
				}
				done = true
			}
		}
		if !done {
			lines = append(lines, role+" "+principal)
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}
