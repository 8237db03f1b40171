package schema

// Config configures one fsbox server: where the root is, which tools exist and what they may touch.
// Every field is optional; fields set in initialize override those from --config and flags.
// Limits must be positive integers; a bad value is refused at initialize with -32602.
type Config struct {
	// Absolute path of the directory every tool is confined to (a relative path is taken from the
	// server's working directory). Symlinks in it are resolved once, at initialize.
	RootDir string `json:"root_dir,omitempty"`
	// Base directory for relative paths, relative to the root. Default ".". Must stay inside the root.
	Cwd string `json:"cwd,omitempty"`
	// If non-empty, only paths matching one of these patterns are accessible.
	AllowedPatterns []string `json:"allowed_patterns,omitempty"`
	// Paths matching any of these patterns (or below a matching directory) are never accessible.
	DeniedPatterns []string `json:"denied_patterns,omitempty"`
	// Paths matching any of these patterns (or below a matching directory) are readable but never
	// writable. Omitted: the defaults (.git/*, .env, .env.*, *.pem, *.key, **/secrets*), which bite at
	// any depth. An empty list disables protection.
	ProtectedPatterns *[]string `json:"protected_patterns,omitempty"`
	// Default limit of read_file, in lines. Default 2000.
	MaxReadLines *int `json:"max_read_lines,omitempty"`
	// Upper bound on the characters of one read_file result, header and notices included; the window
	// ends on a complete line. Default 50000.
	MaxReadChars *int `json:"max_read_chars,omitempty"`
	// Cap on list_directory and directory_tree entries. Default 1000.
	MaxListResults *int `json:"max_list_results,omitempty"`
	// Cap on search_files and grep matches. Default 1000.
	MaxSearchResults *int `json:"max_search_results,omitempty"`
	// Cap on find_files and list_files results. Default 1000.
	MaxFindResults *int `json:"max_find_results,omitempty"`
	// Upper bound on the characters of the text of one search_files, find_files, list_directory,
	// directory_tree or read_multiple_files result, before its closing notice (under 300
	// characters); past it the result is truncated and says how to narrow. The typed fields carry
	// the same entries. Default 50000.
	MaxOutputChars *int `json:"max_output_chars,omitempty"`
	// Expose only the reading tools, whatever tools says.
	ReadOnly bool `json:"read_only,omitempty"`
	// Show content hashes to the model and accept expected_hash. Default true. When false the
	// expected_hash argument disappears from the tool schemas; events still carry hashes.
	ContentHashes *bool `json:"content_hashes,omitempty"`
	// Names of the enabled tools. Default: the eight default tools.
	Tools []string `json:"tools,omitempty"`
	// Ordered permission rules; the first rule whose operation and path match decides, and no match
	// allows.
	Permissions []PermissionRule `json:"permissions,omitempty"`
}

// PermissionRule decides one kind of access to a set of paths.
type PermissionRule struct {
	// Operations the rule applies to: "read", "write".
	Operations []string `json:"operations"`
	// Globs anchored at the root as "/…", doublestar semantics, dotfiles matched, "/x/**" covering "/x".
	Paths []string `json:"paths"`
	// What happens on a match: "allow", "deny", or "interrupt" (ask the client through change_request).
	Mode string `json:"mode"`
}

// Defaults of the limits in [Config].
const (
	DefaultMaxReadLines     = 2000
	DefaultMaxReadChars     = 50000
	DefaultMaxListResults   = 1000
	DefaultMaxSearchResults = 1000
	DefaultMaxFindResults   = 1000
	DefaultMaxOutputChars   = 50000
)

// DefaultProtectedPatterns is the protected list used when Config.ProtectedPatterns is omitted.
var DefaultProtectedPatterns = []string{".git/*", ".env", ".env.*", "*.pem", "*.key", "**/secrets*"}
