package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestAccessCaseFold: denied and protected patterns and deny/interrupt rules refuse every casing
// of what they name (accessPolicy, "Case"); allowed patterns and allow rules stay exact.
// Linux filesystems are case-sensitive, so the differently cased names are real files here;
// on APFS or NTFS they would be the lowercase ones.
func TestAccessCaseFold(t *testing.T) {
	fx := makeFixture(t,
		".ENV: x\n", "apps/.Env.Local: x\n", ".ENV.EXAMPLE: x\n", "Secrets/x: x\n", "home/ID_RSA: x\n",
		"certs/SERVER.PEM: x\n", ".SSH/config: x\n", "Private/a: x\n", "private/a: x\n", "src/A.PY: x\n", "src/a.py: x\n",
		"Config/Secret.TXT: x\n", "OPEN/b: x\n", ".\u017fsh/config: x\n", "a.\u212aey: x\n",
	)
	d := fx.engine(schema.Config{})
	custom := fx.engine(schema.Config{DeniedPatterns: &[]string{"config/secret.txt"}, ProtectedPatterns: &[]string{"*.LOCK"}})
	rules := fx.engine(schema.Config{Permissions: []schema.PermissionRule{
		{Operations: []string{"read", "write"}, Paths: []string{"/Private/**"}, Mode: "deny"},
		{Operations: []string{"write"}, Paths: []string{"/open/**"}, Mode: "allow"},
		{Operations: []string{"write"}, Paths: []string{"/**"}, Mode: "deny"},
	}})
	allowed := fx.engine(schema.Config{AllowedPatterns: []string{"src/*.py"}})
	cases := []struct {
		e           *Engine
		path        string
		read, write schema.ErrorKind // "" = allowed
		why         string
	}{
		{d, ".ENV", "denied", "denied", "default .env, upper case"},
		{d, "apps/.Env.Local", "denied", "denied", "default .env.*, mixed case, at depth"},
		{d, ".ENV.EXAMPLE", "", "", "an exception folds too"},
		{d, "Secrets/x", "", "protected", "default **/secrets*"},
		{d, "home/ID_RSA", "denied", "denied", "default id_rsa"},
		{d, "certs/SERVER.PEM", "denied", "denied", "default *.pem"},
		{d, ".SSH/config", "denied", "denied", "default .ssh, ancestor"},
		{d, ".\u017fsh/config", "denied", "denied", "the long s is s to APFS and NTFS: .ſsh is .ssh"},
		{d, "a.\u212aey", "denied", "denied", "the Kelvin sign is k: *.key"},
		{custom, "Config/Secret.TXT", "denied", "denied", "configured literal"},
		{custom, "x.lock", "", "protected", "configured pattern in upper case"},
		{rules, "private/a", "permission_denied", "permission_denied", "deny rule /Private/**"},
		{rules, "Private/a", "permission_denied", "permission_denied", "deny rule, same case"},
		{rules, "OPEN/b", "", "permission_denied", "allow rule /open/** is exact: falls to deny /**"},
		{allowed, "src/a.py", "", "", "allowed pattern"},
		{allowed, "src/A.PY", "not_allowed", "not_allowed", "allowed patterns match case exactly"},
	}
	for _, c := range cases {
		for _, a := range []struct {
			acc  access
			want schema.ErrorKind
		}{{accessRead, c.read}, {accessWrite, c.write}} {
			_, _, err := c.e.resolveFor("test", c.path, a.acc)
			switch {
			case a.want == "" && err != nil:
				t.Errorf("%s access %d = %s (%s); want allowed (%s)", c.path, a.acc, err.Kind, err.Msg, c.why)
			case a.want != "" && (err == nil || err.Kind != a.want):
				t.Errorf("%s access %d = %v; want %s (%s)", c.path, a.acc, err, a.want, c.why)
			}
		}
	}
	// Walkers hide a differently cased denied entry like the lowercase one.
	if txt := resultText(mustCall(t, d, "find_files", map[string]any{"pattern": "**/*"}, Hooks{})); strings.Contains(txt, "ID_RSA") || strings.Contains(txt, "SERVER.PEM") {
		t.Errorf("find_files shows a denied entry in another case:\n%s", txt)
	}
}
