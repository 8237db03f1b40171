package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// fileVar is the placeholder of a post_edit command that the changed file's path replaces.
const fileVar = "${file}"

// splitCommand splits a post_edit command written as one string ("gofmt -w ${file}") into its
// argument vector, the form fsbox runs without a shell. It protects against a host's command
// line meaning something else than the host meant: words are split on spaces and tabs, 'single'
// and "double" quotes group words, and a backslash outside single quotes takes the next character
// literally, as a shell does; everything a shell would give another meaning is refused, with
// the argument vector to write instead:
//
//   - pipes, lists, redirections, subshells and background jobs: | ; & < > ( ) and newlines;
//   - expansions: $ (other than ${file}), ` and, outside quotes, the globs * ? [ ], braces, a
//     leading ~ and a leading # (a comment).
//
// ${file} stays one whole argument-part (the engine substitutes it, never splitting it), so a
// file name can never become two arguments or an option. splitCommand does not find the
// executable or judge what it does: the host chose the command.
func splitCommand(cmd string) ([]string, error) {
	var argv []string
	var word strings.Builder
	inWord := false
	quote := byte(0) // '\'' or '"' while inside quotes
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				word.WriteByte(c)
			}
			continue
		case c == '\\' && quote == '"':
			// In double quotes a backslash escapes only what a shell lets it escape.
			if i+1 < len(cmd) && strings.IndexByte("\"\\$`", cmd[i+1]) >= 0 {
				i++
				c = cmd[i]
				if c == '$' || c == '`' {
					word.WriteByte(c) // escaped: literal, as in a shell
					continue
				}
			}
			word.WriteByte(c)
			continue
		case c == '\\':
			if i+1 >= len(cmd) {
				return nil, needsArgv(cmd, words(argv, &word), "a trailing \\")
			}
			i++
			word.WriteByte(cmd[i])
			inWord = true
			continue
		case c == '"':
			if quote == '"' {
				quote = 0
			} else {
				quote, inWord = '"', true
			}
			continue
		case c == '\'' && quote == 0:
			quote, inWord = '\'', true
			continue
		case c == '$':
			if strings.HasPrefix(cmd[i:], fileVar) {
				word.WriteString(fileVar)
				i += len(fileVar) - 1
				inWord = true
				continue
			}
			return nil, needsArgv(cmd, words(argv, &word), "$ (only "+fileVar+" is replaced)")
		case c == '`':
			return nil, needsArgv(cmd, words(argv, &word), "`")
		case quote == '"':
			word.WriteByte(c)
			continue
		case c == ' ' || c == '\t':
			if inWord {
				argv = append(argv, word.String())
				word.Reset()
				inWord = false
			}
			continue
		case strings.IndexByte("|;&<>()\n\r", c) >= 0:
			return nil, needsArgv(cmd, words(argv, &word), strconv.QuoteRune(rune(c)))
		case strings.IndexByte("*?[]{}", c) >= 0:
			return nil, needsArgv(cmd, words(argv, &word), strconv.QuoteRune(rune(c))+" (a shell would expand it)")
		case (c == '~' || c == '#') && !inWord:
			return nil, needsArgv(cmd, words(argv, &word), "a leading "+string(c))
		}
		word.WriteByte(c)
		inWord = true
	}
	if quote != 0 {
		return nil, needsArgv(cmd, words(argv, &word), "an unclosed "+string(quote))
	}
	if inWord {
		argv = append(argv, word.String())
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("the command is empty; write it as an argument vector, e.g. %s", argvJSON([]string{"gofmt", "-w", fileVar}))
	}
	return argv, nil
}

// words returns the words split so far, the one being read included.
func words(argv []string, word *strings.Builder) []string {
	out := append([]string(nil), argv...)
	if word.Len() > 0 {
		out = append(out, word.String())
	}
	return out
}

// needsArgv is the refusal of a command string that only a shell would understand: it says what
// was found and shows the argument vector of the words before it, and the explicit shell form
// of the whole command for a host that does want a shell (the file then passed as an argument,
// "$1", never pasted into the script).
func needsArgv(cmd string, before []string, what string) error {
	if len(before) == 0 {
		before = []string{"gofmt", "-w", fileVar}
	}
	script := strings.ReplaceAll(cmd, fileVar, `"$1"`)
	return fmt.Errorf("%q contains %s, which needs a shell; fsbox runs hooks without one. "+
		"Write cmd as an argument vector, one word per item: %s; or, to run it in a shell, name the "+
		"shell and pass the file as an argument: %s", cmd, what, argvJSON(before), argvJSON([]string{"sh", "-c", script, "sh", fileVar}))
}

// argvJSON writes argv as the JSON array a config file holds (YAML takes it as is).
func argvJSON(argv []string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(argv)
	return strings.ReplaceAll(strings.TrimSpace(b.String()), `","`, `", "`)
}
