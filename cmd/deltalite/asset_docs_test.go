package main

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestDocsCommands runs docs/iohandler.md: its file blocks (```json
// file=NAME) are written, then its console blocks run in order in the same
// folder; a command's output, where the document shows one, must be it
// (an output "deltalite: ..." is the error of a command that must fail).
func TestDocsCommands(t *testing.T) {
	doc, err := os.ReadFile("../../docs/iohandler.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvStateDir, t.TempDir())
	t.Chdir(t.TempDir())
	commands := 0
	for _, b := range fencedBlocks(string(doc)) {
		if _, name, ok := strings.Cut(b.info, " file="); ok {
			if err := os.WriteFile(name, []byte(b.body), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if b.info != "console" {
			continue
		}
		for _, c := range consoleCommands(b.body) {
			args, err := shellWords(c.line)
			if err != nil || len(args) < 2 || args[0] != "deltalite" {
				t.Fatalf("docs/iohandler.md: %q is not a deltalite command: %v", c.line, err)
			}
			commands++
			out, err := run(t, args[1:]...)
			if refused := strings.HasPrefix(c.want, "deltalite: "); refused && err != nil {
				out += errorLine(err) + "\n" // what main prints on standard error
			} else if err != nil {
				t.Fatalf("docs/iohandler.md: $ %s\n%v\n%s", c.line, err, out)
			}
			if c.want != "" && out != c.want {
				t.Errorf("docs/iohandler.md: $ %s\nprints\n%s\nthe document shows\n%s", c.line, out, c.want)
			}
		}
	}
	if commands < 10 {
		t.Errorf("only %d commands in docs/iohandler.md", commands)
	}
}

type fenced struct{ info, body string }

// fencedBlocks are the ``` blocks of a Markdown text: info string, body.
func fencedBlocks(md string) []fenced {
	var out []fenced
	var cur *fenced
	for line := range strings.SplitSeq(md, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &fenced{info: strings.TrimPrefix(line, "```")}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += line + "\n"
		}
	}
	return out
}

type consoleCommand struct{ line, want string }

// consoleCommands splits a console block into "$ " commands, each with the
// output lines shown below it.
func consoleCommands(body string) []consoleCommand {
	var out []consoleCommand
	for line := range strings.SplitSeq(strings.TrimSuffix(body, "\n"), "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			out = append(out, consoleCommand{line: cmd})
		} else if len(out) > 0 {
			out[len(out)-1].want += line + "\n"
		}
	}
	return out
}

// shellWords splits a command line as a POSIX shell would for words,
// single quotes and double quotes (no expansions).
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errUnclosedQuote
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

var errUnclosedQuote = errors.New("unclosed quote")
