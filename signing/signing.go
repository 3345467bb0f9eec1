// Package signing signs and verifies human decisions with the user's own git signing setup: SSH
// keys through the ssh-keygen binary (`-Y sign`, `-Y find-principals`, `-Y verify`, namespace
// git-exarchos), or OpenPGP through gpg when gpg.format=openpgp. It holds no keys and no policy:
// who may sign what is the allowed-signers file the caller passes in.
//
// It may import the standard library and the internal helpers only.
package signing

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Namespace is the SSH signature namespace of every decision, so a signature made for git commits
// or anything else can never pass as a decision (and the other way round).
const Namespace = "git-exarchos"

// Formats of a signature.
const (
	FormatSSH     = "ssh"
	FormatOpenPGP = "openpgp"
)

// Config is git's signing configuration as the user set it (gpg.format, user.signingKey,
// gpg.ssh.program, gpg.program).
type Config struct {
	Format     string // ssh | openpgp ("" means openpgp, as in git)
	SigningKey string // ssh: a key file (private, or public with the private half in ssh-agent) or "key::<public key>"
	SSHProgram string // default ssh-keygen
	GPGProgram string // default gpg
}

// ErrNoKey means git's signing configuration names no key.
var ErrNoKey = errors.New("no signing key configured")

// Sign signs payload and returns the armored signature.
func Sign(c Config, payload []byte) (format, sig string, err error) {
	switch c.format() {
	case FormatSSH:
		s, err := signSSH(c, payload)
		return FormatSSH, s, err
	case FormatOpenPGP:
		s, err := signGPG(c, payload)
		return FormatOpenPGP, s, err
	}
	return "", "", fmt.Errorf("gpg.format=%s is not supported for decisions: use ssh (git config gpg.format ssh) or openpgp", c.Format)
}

func (c Config) format() string {
	if c.Format == "" {
		return FormatOpenPGP
	}
	return c.Format
}

func signSSH(c Config, payload []byte) (string, error) {
	key := strings.TrimSpace(c.SigningKey)
	if key == "" {
		return "", fmt.Errorf("%w: set one with `git config user.signingKey ~/.ssh/id_ed25519.pub` (gpg.format=ssh)", ErrNoKey)
	}
	dir, err := os.MkdirTemp("", "exarchos-sign-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	// As git does: a literal key is written to a file, and ssh-keygen finds the private half in ssh-agent.
	if lit, ok := strings.CutPrefix(key, "key::"); ok {
		key = filepath.Join(dir, "key.pub")
		if err := os.WriteFile(key, []byte(lit+"\n"), 0o600); err != nil {
			return "", err
		}
	} else if strings.HasPrefix(key, "ssh-") || strings.HasPrefix(key, "sk-") || strings.HasPrefix(key, "ecdsa-") {
		key = filepath.Join(dir, "key.pub")
		if err := os.WriteFile(key, []byte(c.SigningKey+"\n"), 0o600); err != nil {
			return "", err
		}
	} else if strings.HasPrefix(key, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			key = filepath.Join(home, key[2:])
		}
	}
	data := filepath.Join(dir, "payload")
	if err := os.WriteFile(data, payload, 0o600); err != nil {
		return "", err
	}
	if out, err := run(c.sshProgram(), nil, "-Y", "sign", "-n", Namespace, "-f", key, data); err != nil {
		return "", fmt.Errorf("sign with %s (user.signingKey %s): %w: %s", c.sshProgram(), c.SigningKey, err, strings.TrimSpace(string(out)))
	}
	sig, err := os.ReadFile(data + ".sig")
	if err != nil {
		return "", fmt.Errorf("ssh-keygen wrote no signature: %w", err)
	}
	return string(sig), nil
}

func (c Config) sshProgram() string {
	if c.SSHProgram != "" {
		return c.SSHProgram
	}
	return "ssh-keygen"
}

func (c Config) gpgProgram() string {
	if c.GPGProgram != "" {
		return c.GPGProgram
	}
	return "gpg"
}

func signGPG(c Config, payload []byte) (string, error) {
	args := []string{"--batch", "--yes", "--armor", "--detach-sign"}
	if k := strings.TrimSpace(c.SigningKey); k != "" {
		args = append(args, "--local-user", k)
	}
	out, err := run(c.gpgProgram(), payload, args...)
	if err != nil {
		return "", fmt.Errorf("sign with %s: %w: %s", c.gpgProgram(), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

func run(prog string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.Command(prog, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return append(out, stderr.Bytes()...), err
	}
	return out, nil
}

// Verifier checks SSH signatures against one allowed-signers file (git's format, as for
// gpg.ssh.allowedSignersFile). It writes the file once to a private temporary directory.
type Verifier struct {
	Program string // default ssh-keygen
	// BlobID identifies the allowed-signers content (its git blob id, or a hash), for caches.
	BlobID string
	dir    string
	file   string
}

// NewVerifier prepares a verifier for the given allowed-signers content. Close removes its files.
func NewVerifier(allowedSigners []byte, program string) (*Verifier, error) {
	dir, err := os.MkdirTemp("", "exarchos-verify-")
	if err != nil {
		return nil, err
	}
	v := &Verifier{Program: program, dir: dir, file: filepath.Join(dir, "allowed_signers")}
	sum := sha256.Sum256(allowedSigners)
	v.BlobID = hex.EncodeToString(sum[:])
	if err := os.WriteFile(v.file, allowedSigners, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return v, nil
}

// Close removes the verifier's temporary files.
func (v *Verifier) Close() error { return os.RemoveAll(v.dir) }

func (v *Verifier) program() string {
	if v.Program != "" {
		return v.Program
	}
	return "ssh-keygen"
}

// ErrNotAllowed means the signature is by a key the allowed-signers file does not list (for the
// namespace), or it does not verify.
var ErrNotAllowed = errors.New("not signed by an allowed key")

// ErrUnknownKey is the ErrNotAllowed of a key the allowed-signers file does not list at all.
var ErrUnknownKey = fmt.Errorf("%w: the signing key is not in the allowed signers", ErrNotAllowed)

// Verify checks sig over payload and returns the principal the allowed-signers file names for
// the signing key. A signature by an unlisted key, over other data, or made for another namespace
// fails.
func (v *Verifier) Verify(payload []byte, sig string) (principal string, err error) {
	if !strings.Contains(sig, "BEGIN SSH SIGNATURE") {
		return "", fmt.Errorf("%w: not an SSH signature", ErrNotAllowed)
	}
	f, err := os.CreateTemp(v.dir, "sig-")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(sig); err != nil {
		f.Close()
		return "", err
	}
	f.Close()
	out, err := run(v.program(), nil, "-Y", "find-principals", "-s", f.Name(), "-f", v.file)
	if err != nil {
		return "", ErrUnknownKey
	}
	var last error
	for _, p := range strings.Fields(string(out)) {
		// One line can name several principals ("a,b"); -Y verify takes one.
		for _, name := range strings.Split(p, ",") {
			if name == "" {
				continue
			}
			vout, err := run(v.program(), payload, "-Y", "verify", "-f", v.file, "-I", name, "-n", Namespace, "-s", f.Name())
			if err == nil {
				return name, nil
			}
			last = fmt.Errorf("%w: %s", ErrNotAllowed, strings.TrimSpace(string(vout)))
		}
	}
	if last == nil {
		last = fmt.Errorf("%w: no principal for the signing key", ErrNotAllowed)
	}
	return "", last
}

// PublicKeyLine reads an SSH public key file and returns "<type> <base64>" (the comment dropped),
// checking it with ssh-keygen so that a private key or garbage is refused.
func PublicKeyLine(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if strings.Contains(string(b), "PRIVATE KEY") {
		return "", fmt.Errorf("%s is a private key: give the public one (%s.pub)", path, path)
	}
	if out, err := run("ssh-keygen", nil, "-l", "-f", path); err != nil {
		return "", fmt.Errorf("%s is not an SSH public key: %s", path, strings.TrimSpace(string(out)))
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return "", fmt.Errorf("%s is not an SSH public key", path)
	}
	return f[0] + " " + f[1], nil
}

// KeyProtection says, when it can tell, that the configured SSH signing key protects nothing: a
// private key file readable without a passphrase can be used by any process of this user, an
// agent included. A FIDO key (sk-…, needs a touch) or a key held only in ssh-agent (added with
// `ssh-add -c` to confirm each use) gets no warning. "" when nothing is wrong or it cannot tell.
func KeyProtection(c Config) string {
	w, _ := KeyProtectionState(c)
	return w
}

// KeyProtectionState is KeyProtection's warning with the state that causes it: a digest of the key
// file's path and content, so a warning shown once can be shown again only when the key
// changes ("" with no warning).
func KeyProtectionState(c Config) (warning, state string) {
	if c.format() != FormatSSH {
		return "", ""
	}
	key := strings.TrimSpace(c.SigningKey)
	if key == "" || strings.HasPrefix(key, "key::") || strings.HasPrefix(key, "ssh-") {
		return "", ""
	}
	if strings.HasPrefix(key, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			key = filepath.Join(home, key[2:])
		}
	}
	priv := strings.TrimSuffix(key, ".pub")
	b, err := os.ReadFile(priv)
	if err != nil || !strings.Contains(string(b), "PRIVATE KEY") {
		return "", "" // the private half is elsewhere (ssh-agent, a token)
	}
	if pub, err := os.ReadFile(priv + ".pub"); err == nil && strings.HasPrefix(string(pub), "sk-") {
		return "", "" // a FIDO key: the file is a handle, each signature needs a touch
	}
	if unencrypted(b) {
		sum := sha256.Sum256(append([]byte(priv+"\x00"), b...))
		return fmt.Sprintf("the signing key %s is a file without a passphrase: any process running as you (an agent too) can sign with it, so it protects nothing; use a FIDO key (ssh-keygen -t ed25519-sk) or a key in ssh-agent added with `ssh-add -c`", priv),
			hex.EncodeToString(sum[:])
	}
	return "", ""
}

// unencrypted reports whether a private key file is usable without a passphrase, from the file
// alone (status calls this, so no process): an OpenSSH key whose cipher is "none", or a PEM key
// without an ENCRYPTED header.
func unencrypted(key []byte) bool {
	text := string(key)
	if !strings.Contains(text, "BEGIN OPENSSH PRIVATE KEY") {
		return !strings.Contains(text, "ENCRYPTED")
	}
	var body strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "-----") {
			body.WriteString(l)
		}
	}
	raw, err := base64.StdEncoding.DecodeString(body.String())
	magic := "openssh-key-v1\x00"
	if err != nil || len(raw) < len(magic)+4 || string(raw[:len(magic)]) != magic {
		return false
	}
	rest := raw[len(magic):]
	n := int(binary.BigEndian.Uint32(rest[:4]))
	return len(rest) >= 4+n && string(rest[4:4+n]) == "none"
}
