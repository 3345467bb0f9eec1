package trust

import (
	"fmt"
	"os"
	"strings"
)

// SSHKeygenPaths is where the signature checker is looked for, in order (tests replace it): a fixed list, never
// PATH or git config (gpg.ssh.program), which a process in the repository can change for itself.
// docs/verify.md lists them.
var SSHKeygenPaths = []string{"/usr/bin/ssh-keygen", "/usr/local/bin/ssh-keygen", "/opt/homebrew/bin/ssh-keygen", "/bin/ssh-keygen"}

// checkerProgram is the ssh-keygen that checks signatures, and its identity (path, size, change
// time, inode): the verdict cache is keyed to it, so a replaced checker never reads old verdicts.
func checkerProgram() (path, identity string, err error) {
	for _, p := range SSHKeygenPaths {
		info, err := os.Stat(p)
		if err != nil || info.IsDir() {
			continue
		}
		return p, p + "\x00" + fileIdentity(info), nil
	}
	return "", "", fmt.Errorf("no ssh-keygen in %s: install OpenSSH's ssh-keygen there (the checker is never taken from PATH or git config)", strings.Join(SSHKeygenPaths, ", "))
}
