package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/internal/sibling"
	"github.com/exarchos/git-exarchos/project"
)

// MCPServerName is the server's key in .mcp.json; Claude Code names its tools mcp__exarchos__<tool>.
const MCPServerName = "exarchos"

// MCPConfigFile is Claude Code's project-scope MCP configuration, at the top of the worktree.
const MCPConfigFile = ".mcp.json"

// MCPInstallOptions are `git exarchos mcp --install|--uninstall`.
type MCPInstallOptions struct {
	Dir       string // where to find the repository; "" is the working directory
	Uninstall bool
	DryRun    bool // say whether it would change the file, write nothing
}

// MCPInstallResult is what `mcp --install|--uninstall` prints.
type MCPInstallResult struct {
	Path    string         `json:"path"`
	Server  map[string]any `json:"server,omitempty"` // the entry installed
	Changed bool           `json:"changed"`
}

// mcpServerEntry is the .mcp.json entry that starts the server: git-exarchos itself when it is on
// PATH, else through git.
func mcpServerEntry() map[string]any {
	if _, err := exec.LookPath("git-exarchos"); err == nil {
		return map[string]any{"type": "stdio", "command": "git-exarchos", "args": []any{"mcp"}}
	}
	return map[string]any{"type": "stdio", "command": "git", "args": []any{"exarchos", "mcp"}}
}

// MCPInstall merges (or removes) the exarchos server into .mcp.json, keeping every other server
// and key; running it twice changes nothing the second time.
func MCPInstall(o MCPInstallOptions) (*MCPInstallResult, error) {
	path, err := mcpConfigPath(o.Dir)
	if err != nil {
		return nil, err
	}
	doc, mode, err := readMCPConfig(path)
	if err != nil {
		return nil, err
	}
	servers, isObject := doc["mcpServers"].(map[string]any)
	if _, present := doc["mcpServers"]; present && !isObject {
		return nil, fmt.Errorf("%s: mcpServers is not an object: fix it, then run git exarchos mcp --install again", path)
	}
	if servers == nil {
		servers = map[string]any{}
	}
	res := &MCPInstallResult{Path: path}
	if o.Uninstall {
		if _, ok := servers[MCPServerName]; !ok {
			return res, nil
		}
		delete(servers, MCPServerName)
		if len(servers) == 0 && len(doc) == 1 && !o.DryRun {
			// Nothing but our entry was in it: give the file back to not existing.
			if err := os.Remove(path); err != nil {
				return nil, err
			}
			res.Changed = true
			return res, nil
		}
	} else {
		res.Server = mcpServerEntry()
		if reflect.DeepEqual(servers[MCPServerName], res.Server) {
			return res, hookrun.RecordInstalled(path)
		}
		servers[MCPServerName] = res.Server
	}
	if o.DryRun {
		res.Changed = true
		return res, nil
	}
	doc["mcpServers"] = servers
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(path, b.Bytes(), mode); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := hookrun.RecordInstalled(path); err != nil {
		return nil, err
	}
	res.Changed = true
	return res, nil
}

// mcpRegistered reports whether .mcp.json starts the exarchos server.
func mcpRegistered(dir string) (path string, ok bool, err error) {
	path, err = mcpConfigPath(dir)
	if err != nil {
		return "", false, err
	}
	doc, _, err := readMCPConfig(path)
	if err != nil {
		return path, false, err
	}
	servers, _ := doc["mcpServers"].(map[string]any)
	_, ok = servers[MCPServerName]
	return path, ok, nil
}

// mcpConfigPath is .mcp.json at the top of the worktree.
func mcpConfigPath(dir string) (string, error) {
	top, err := project.WorkTree(dir)
	if err != nil {
		return "", err
	}
	if top == "" {
		return "", project.Usagef("a bare repository has no working tree for %s: run this in a clone", MCPConfigFile)
	}
	return filepath.Join(top, MCPConfigFile), nil
}

func readMCPConfig(path string) (map[string]any, fs.FileMode, error) {
	doc := map[string]any{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, 0o644, nil
	}
	if err != nil {
		return nil, 0, err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return doc, mode, nil
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, 0, fmt.Errorf("%s is not a JSON object (%v): fix or remove it, then run git exarchos mcp --install again", path, err)
	}
	return doc, mode, nil
}

// MCPHelperName is the MCP server's binary. It is separate so that git-exarchos, which runs on
// every hook call, does not link the MCP SDK (0.3–0.45 ms of start-up on every run, BENCHMARKS.md).
const MCPHelperName = "git-exarchos-mcp"

// mcpHelperInstall is the command that installs the server (mcp's error, doctor's fix).
const mcpHelperInstall = "go install github.com/exarchos/git-exarchos/cmd/" + MCPHelperName + "@latest (in a checkout: go install ./cmd/...)"

// mcpCLIEnv tells the server which git-exarchos its tools run (mcpserver.CLIEnv).
const mcpCLIEnv = "EXARCHOS_CLI"

// mcpHelper is the server's binary: beside this git-exarchos, else on PATH.
func mcpHelper() (string, error) {
	p, err := sibling.Find(MCPHelperName)
	if err != nil {
		where := "git-exarchos"
		if self, err := os.Executable(); err == nil {
			where = self
		}
		return "", fmt.Errorf("the MCP server is the binary %s, found neither beside %s nor on PATH: install it with %s", MCPHelperName, where, mcpHelperInstall)
	}
	return p, nil
}

// ServeMCP becomes the MCP server (on Unix the process is replaced, so Claude Code's pipes and
// signals reach the server itself), telling it to run this binary's commands.
func ServeMCP() error {
	helper, err := mcpHelper()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start the MCP server: %w", err)
	}
	env := []string{mcpCLIEnv + "=" + self}
	for _, kv := range os.Environ() {
		// A name given twice keeps its first value, so an inherited one is left out.
		if !strings.HasPrefix(kv, mcpCLIEnv+"=") {
			env = append(env, kv)
		}
	}
	if err := execProcess(helper, env); err != nil {
		return fmt.Errorf("start the MCP server %s: %w", helper, err)
	}
	return nil
}
