package signing

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newKey makes a real ed25519 key with ssh-keygen and returns the private key path and the
// public key line.
func newKey(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", p).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	line, err := PublicKeyLine(p + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return p, line
}

func TestSignVerifyRealKeys(t *testing.T) {
	dir := t.TempDir()
	alice, aliceLine := newKey(t, dir, "alice")
	mallory, _ := newKey(t, dir, "mallory")
	v, err := NewVerifier([]byte("alice@example.com "+aliceLine+"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	payload := []byte(`{"feature":"f","type":"plan.approved"}`)

	// The public key file alone signs too when the private half is at hand (ssh-keygen finds it).
	for _, key := range []string{alice, alice + ".pub"} {
		format, sig, err := Sign(Config{Format: "ssh", SigningKey: key}, payload)
		if err != nil || format != FormatSSH {
			t.Fatalf("sign with %s: %v", key, err)
		}
		who, err := v.Verify(payload, sig)
		if err != nil || who != "alice@example.com" {
			t.Fatalf("verify: %q %v", who, err)
		}
		if _, err := v.Verify([]byte(`{"feature":"f","type":"plan.rejected"}`), sig); !errors.Is(err, ErrNotAllowed) {
			t.Fatalf("tampered payload verified: %v", err)
		}
	}
	_, sig, err := Sign(Config{Format: "ssh", SigningKey: mallory}, payload)
	if err != nil {
		t.Fatal(err)
	}
	if who, err := v.Verify(payload, sig); !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("unknown key verified as %q: %v", who, err)
	}
	if _, err := v.Verify(payload, "not a signature"); !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("garbage verified: %v", err)
	}
	// A signature made for another namespace (e.g. a git commit signature) is not a decision.
	data := filepath.Join(dir, "data")
	os.WriteFile(data, payload, 0o600)
	if out, err := exec.Command("ssh-keygen", "-Y", "sign", "-n", "git", "-f", alice, data).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	gitSig, _ := os.ReadFile(data + ".sig")
	if _, err := v.Verify(payload, string(gitSig)); !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("a git-namespace signature verified as a decision: %v", err)
	}
}

func TestSignWithoutKey(t *testing.T) {
	if _, _, err := Sign(Config{Format: "ssh"}, []byte("x")); !errors.Is(err, ErrNoKey) {
		t.Fatalf("want ErrNoKey, got %v", err)
	}
	if _, _, err := Sign(Config{Format: "x509"}, []byte("x")); err == nil {
		t.Fatal("x509 accepted")
	}
}

func TestPublicKeyLineRefusesPrivateKey(t *testing.T) {
	dir := t.TempDir()
	p, _ := newKey(t, dir, "k")
	if _, err := PublicKeyLine(p); err == nil {
		t.Fatal("private key accepted as public")
	}
}

// KeyProtection names an unencrypted key file, and stays quiet for one with a passphrase.
func TestKeyProtection(t *testing.T) {
	dir := t.TempDir()
	plain, _ := newKey(t, dir, "plain")
	if w := KeyProtection(Config{Format: "ssh", SigningKey: plain + ".pub"}); !strings.Contains(w, "protects nothing") {
		t.Fatalf("plain key: %q", w)
	}
	locked := filepath.Join(dir, "locked")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "s3cret-passphrase", "-f", locked).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if w := KeyProtection(Config{Format: "ssh", SigningKey: locked}); w != "" {
		t.Fatalf("passphrase-protected key warned: %q", w)
	}
	if w := KeyProtection(Config{Format: "ssh", SigningKey: "key::ssh-ed25519 AAAA"}); w != "" {
		t.Fatalf("agent key warned: %q", w)
	}
}
