package schema

// Config configures one fsbox server: where the root is, which tools exist and what they may touch.
// Every field is optional. Fields set in initialize override those from --config and flags, or,
// when the host fixed the policy (fsbox serve with --root, --config or another policy flag), may
// only narrow them; see docs/protocol.md §3. Limits must be positive integers; a bad value is
// refused at initialize with -32602.
type Config struct {
	// Absolute path of the directory every tool is confined to (a relative path is taken from the
	// server's working directory, or from the host's root when the host fixed the policy, which
	// then only accepts a directory inside its root). Symlinks in it are resolved once, at
	// initialize. In the host's --config file (and --root) "~", "~user" and $VAR expand; sent in
	// initialize it is taken literally.
	RootDir string `json:"root_dir,omitempty"`
	// Base directory for relative paths, relative to the root. Default ".". Must stay inside the root.
	Cwd string `json:"cwd,omitempty"`
	// If non-empty, only paths matching one of these patterns are accessible. An entry starting
	// with "!" is an exception: a path it matches does not count as matched by the list.
	AllowedPatterns []string `json:"allowed_patterns,omitempty"`
	// Paths matching any of these patterns (or below a matching directory) are never accessible:
	// not read, written, listed or searched. Omitted: the defaults, which bite at any depth:
	// .env and .env.* (except .env.example, .env.sample, .env.template, .env.dist), private keys
	// (id_rsa, id_dsa, id_ecdsa, id_ecdsa_sk, id_ed25519, id_ed25519_sk, *.key, *.pem, *.p12, *.pfx,
	// *.jks, *.keystore) and credential stores (.ssh, .aws, .gnupg, .kube, .docker/config.json,
	// .netrc, .git-credentials, .npmrc, .pypirc, .git/config). A list replaces the defaults; an
	// empty list denies nothing. An entry starting with "!" is an exception: a path it matches
	// does not count as matched by the list (a directory matched by the list still denies
	// everything below it).
	DeniedPatterns *[]string `json:"denied_patterns,omitempty"`
	// Paths matching any of these patterns (or below a matching directory) are readable but never
	// writable. Omitted: the defaults, which bite at any depth: what a developer's tools run from
	// the tree without being asked (direnv's .envrc and .direnv, git hook managers' .husky,
	// .githooks, .pre-commit-config.yaml and lefthook files, an included .gitconfig, VS Code's
	// .vscode/settings.json and .vscode/tasks.json and *.code-workspace, package managers'
	// .yarnrc, .yarnrc.yml and .pnpmfile.cjs) and **/secrets*. A list replaces the defaults; an
	// empty list disables them. Exceptions ("!…") as in denied_patterns. .git entries and git
	// directories are protected apart from this list (allow_git_dirs).
	ProtectedPatterns *[]string `json:"protected_patterns,omitempty"`
	// Let the model write .git entries (a .git directory, or a .git file pointing elsewhere) at
	// any depth and create or change directories shaped like a git directory (HEAD with objects,
	// refs or commondir). Default false: git runs commands a repository's config names
	// (core.fsmonitor on every git status, hooks on commit), so a model that could plant one
	// could run code on the user's next git command. Under a fixed host policy a client may set
	// it only where the host set it.
	AllowGitDirs *bool `json:"allow_git_dirs,omitempty"`
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
	// Skip what version control ignores in every walker (list_directory, directory_tree,
	// find_files, search_files, list_files, grep): ".git", and the entries the .gitignore files
	// (nested, with negation), .ignore and .rgignore files, the root's .git/info/exclude and the
	// host's global excludes file exclude, as rg --files does. Default true. Paths stay readable by
	// name; a walk rooted at an ignored directory shows what is in it. Walkers count what the rules
	// hid (hidden.ignored).
	IgnoreVCS *bool `json:"ignore_vcs,omitempty"`
	// Show entries whose names start with "." in every walker (list_directory, directory_tree,
	// find_files, search_files, list_files, grep), as deepagents' backends and ls -a do. Default
	// false: they are skipped and counted (hidden.dot). Shown entries still pass every deny rule,
	// the credential defaults of denied_patterns and the ignore rules (".git" stays skipped while
	// ignore_vcs is on), so it reveals names, never a denied file. A client may only narrow it:
	// when the host fixed the policy, a client may turn it off but not on.
	ShowDotEntries *bool `json:"show_dot_entries,omitempty"`
	// Names of the enabled tools. Default: the eight default tools.
	Tools []string `json:"tools,omitempty"`
	// Ordered permission rules; the first rule whose operation and path match decides, and no match
	// allows.
	Permissions []PermissionRule `json:"permissions,omitempty"`
	// Commands run after write_file or edit_file changed a file whose path matches (a formatter,
	// say): every matching hook once, in order, in the root directory, with a timeout. A failure
	// (non-zero exit, timeout, command not found) becomes a warning in the tool's result, never a
	// rollback; the result and event carry the content after the hooks. Host configuration only
	// (the --config file): a client setting it in initialize is refused with -32602, and no tool
	// argument reaches a command except the file's own path as one whole argument.
	PostEdit []PostEditHook `json:"post_edit,omitempty"`
	// Default timeout of one post_edit hook, in seconds. Default 30. Host configuration only.
	PostEditTimeout *int `json:"post_edit_timeout,omitempty"`
	// Extra host directories shown at fixed paths inside the root ("memories" → /host/notes),
	// each opened as its own confined root: every tool reaches them, walkers cross into them,
	// and the policy (patterns, rules) applies to their root-relative paths. Host configuration
	// only (the --config file): a client setting it in initialize is refused with -32602.
	Mounts []Mount `json:"mounts,omitempty"`
	// The journal of before-images behind checkpoint/* and undo_last_change; omitted, no
	// journal is kept.
	Journal *JournalConfig `json:"journal,omitempty"`
}

// Mount is one extra host directory shown inside the root. It protects against leaving the
// mounted directory (its own os.Root, entered one component at a time without following
// symlinks, like the root) and against the mount point being removed, moved or replaced; it does
// not hide the mounted directory's files from anything the policy allows.
type Mount struct {
	// Where the directory appears: a root-relative path without "." or ".." components
	// ("memories", "ref/docs"). Its parent must be a directory in the root; an existing
	// directory at the path itself is shadowed. Mounts may not nest.
	Path string `json:"path"`
	// The host directory. "~", "~user" and $VAR expand (in the --config file); symlinks in it are
	// resolved once, at startup.
	Dir string `json:"dir"`
	// Refuse every change inside the mount (read_only_filesystem), whatever the policy allows.
	ReadOnly bool `json:"read_only,omitempty"`
}

// PostEditHook is one post_edit command. It protects against shell injection through a file
// name (there is no shell: cmd is an argument vector, and ${file} is replaced inside arguments,
// never split). On Linux the command runs under a Landlock ruleset of its own: it may change
// files only beneath the root and writable mounts and read only those and what it needs to run;
// where no confinement is available hooks are refused unless the host opts in.
type PostEditHook struct {
	// Which files the hook runs for: a doublestar glob relative to the root ("cmd/**/*.go"); a
	// pattern without "/" matches the base name at any depth ("*.go"). Case-sensitive.
	Path string `json:"path"`
	// The command as an argument vector, run without a shell; "${file}" in any argument is
	// replaced by the changed file's root-relative path prefixed with "./" (so a name such as
	// "-rf.go" cannot be taken as an option). Example: ["gofmt", "-w", "${file}"].
	Cmd []string `json:"cmd"`
	// Timeout in seconds; default post_edit_timeout. On timeout the command's process group is
	// killed.
	Timeout *int `json:"timeout,omitempty"`
}

// PostEditRun reports one post_edit hook that ran after a change.
type PostEditRun struct {
	// The hook's path pattern.
	Path string `json:"path"`
	// The command as run, ${file} replaced.
	Cmd []string `json:"cmd"`
	// True when the command exited with status 0.
	OK bool `json:"ok"`
	// Exit status; -1 when the command did not exit on its own (not started, timed out, cancelled).
	ExitCode int `json:"exit_code"`
	// True when the command was killed at its timeout.
	TimedOut bool `json:"timed_out,omitempty"`
	// Why the command did not run or finish ("executable file not found", "cancelled").
	Error string `json:"error,omitempty"`
	// Combined stdout and stderr, at most the first 4096 bytes (invalid UTF-8 replaced).
	Output string `json:"output,omitempty"`
	// True when output was cut at 4096 bytes.
	OutputTruncated bool `json:"output_truncated,omitempty"`
}

// DefaultPostEditTimeout is the default of Config.PostEditTimeout, in seconds.
const DefaultPostEditTimeout = 30

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

// Limit is one limit of [Config]: its JSON name, its default, and the field holding it.
type Limit struct {
	Name    string
	Default int
	Field   func(*Config) **int
}

// Limits lists every limit of [Config]. Merging and the host's narrowing rules (hostpolicy.Merge,
// hostpolicy.Narrow) work from this table, so a new limit is one line here besides its field.
var Limits = []Limit{
	{"max_read_lines", DefaultMaxReadLines, func(c *Config) **int { return &c.MaxReadLines }},
	{"max_read_chars", DefaultMaxReadChars, func(c *Config) **int { return &c.MaxReadChars }},
	{"max_list_results", DefaultMaxListResults, func(c *Config) **int { return &c.MaxListResults }},
	{"max_search_results", DefaultMaxSearchResults, func(c *Config) **int { return &c.MaxSearchResults }},
	{"max_find_results", DefaultMaxFindResults, func(c *Config) **int { return &c.MaxFindResults }},
	{"max_output_chars", DefaultMaxOutputChars, func(c *Config) **int { return &c.MaxOutputChars }},
}

// DefaultDeniedPatterns is the denied list used when Config.DeniedPatterns is omitted: the
// well-known files that hold credentials, so that a model can neither read nor search them unless
// the host says so. They bite at any depth. Public keys (id_rsa.pub) and certificates with other
// extensions (.crt, .cer) stay readable; *.pem is denied because private keys are as often stored
// as .pem as certificates are.
var DefaultDeniedPatterns = []string{
	".env", ".env.*", "!.env.example", "!.env.sample", "!.env.template", "!.env.dist",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk",
	"*.key", "*.pem", "*.p12", "*.pfx", "*.jks", "*.keystore",
	".ssh", ".aws", ".gnupg", ".kube", ".docker/config.json",
	".netrc", ".git-credentials", ".npmrc", ".pypirc", ".git/config",
}

// DefaultProtectedPatterns is the protected list used when Config.ProtectedPatterns is omitted:
// what a developer's tools run from the tree without the user asking for that file to run, and
// the historical **/secrets*. They bite at any depth. .git entries and git directories are not
// here: the engine protects them apart (Config.AllowGitDirs), so a host's own list cannot drop
// them by accident. docs/protocol.md §6 gives the reason for each and what is not covered.
var DefaultProtectedPatterns = []string{
	// direnv: .envrc runs on cd; .direnv holds its layouts, whose bin directories go on PATH.
	".envrc", ".direnv",
	// git hook managers: the hooks they install run what these name on commit.
	".husky", ".githooks", ".pre-commit-config.yaml",
	"lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", "lefthook-local.yaml",
	// a project .gitconfig is included by path from the user's git config, core.fsmonitor and all.
	".gitconfig",
	// VS Code: folderOpen tasks and settings that name executables run when the folder opens.
	".vscode/settings.json", ".vscode/tasks.json", "*.code-workspace",
	// package managers: yarnPath/yarn-path replace yarn itself; .pnpmfile.cjs runs on every install.
	".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs",
	"**/secrets*",
}
