package ghclient

import (
	"context"
	"strings"
)

// Access is what the token may do on the repository, as GitHub reports it.
type Access struct {
	Repo  string `json:"repo"`
	Pull  bool   `json:"pull"`
	Push  bool   `json:"push"`
	Admin bool   `json:"admin"`
	// Scopes are a classic token's OAuth scopes (X-OAuth-Scopes); fine-grained tokens have none.
	Scopes      []string `json:"scopes,omitempty"`
	TokenSource string   `json:"tokenSource"`
}

// Access asks GitHub for the repository with this token: whether it can read it, push to it,
// administer it, and the token's scopes.
func (c *Client) Access(ctx context.Context) (Access, error) {
	repo, resp, err := c.gh.Repositories.Get(ctx, c.repo.Owner, c.repo.Name)
	if err != nil {
		return Access{}, c.wrap("repository "+c.repo.FullName(), resp, err)
	}
	a := Access{Repo: c.repo.FullName(), TokenSource: c.token.Source}
	p := repo.GetPermissions()
	a.Pull, a.Push, a.Admin = p["pull"], p["push"], p["admin"]
	if resp != nil {
		for _, s := range strings.Split(resp.Header.Get("X-OAuth-Scopes"), ",") {
			if s = strings.TrimSpace(s); s != "" {
				a.Scopes = append(a.Scopes, s)
			}
		}
	}
	return a, nil
}
