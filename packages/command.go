package packages

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
)

// IsCommand says whether word is one of the package commands.
func IsCommand(word string) bool {
	return slices.Contains([]string{"install", "remove", "uninstall", "update", "list"}, word)
}

// Main runs `pi install|remove|update|list [-l] …` and returns the exit code. piHome and
// project locate the user's and the project's packages.
func Main(ctx context.Context, args []string, piHome, project string, stdout, stderr io.Writer) int {
	cmd, rest := args[0], args[1:]
	local := false
	var words []string
	for _, a := range rest {
		if a == "-l" || a == "--local" {
			local = true
		} else {
			words = append(words, a)
		}
	}
	root := Root(piHome, project, local)
	err := run(ctx, cmd, words, root, piHome, project, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		if _, usage := err.(usageError); usage {
			return 2
		}
		return 1
	}
	return 0
}

type usageError string

func (u usageError) Error() string { return string(u) }

func run(ctx context.Context, cmd string, words []string, root, piHome, project string, stdout io.Writer) error {
	switch cmd {
	case "install":
		if len(words) != 1 {
			return usageError("usage: pi install [-l] <git URL | folder>[@ref]")
		}
		p, err := Install(ctx, root, words[0])
		if err == nil {
			fmt.Fprintf(stdout, "installed %s %s in %s\n", p.Name, p.Version, p.Dir)
		}
		return err
	case "remove", "uninstall":
		if len(words) != 1 {
			return usageError("usage: pi remove [-l] <name>")
		}
		if err := Remove(root, words[0]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed %s\n", words[0])
		return nil
	case "update":
		lines, err := Update(ctx, root, words)
		for _, l := range lines {
			fmt.Fprintln(stdout, l)
		}
		if err == nil && len(lines) == 0 {
			err = nothingToUpdate(root, words, stdout)
		}
		return err
	}
	return list(piHome, project, stdout)
}

// nothingToUpdate says why update did nothing: none of the packages named is installed (an
// error), or there are no packages at all (a note).
func nothingToUpdate(root string, names []string, stdout io.Writer) error {
	if len(names) > 0 {
		return fmt.Errorf("update %s: no such package in %s (pi list shows them)", strings.Join(names, " "), root)
	}
	fmt.Fprintf(stdout, "no packages installed in %s; nothing to update\n", root)
	return nil
}

// list prints the user's and the project's packages, one a line, or says there are none and
// how to add one: an empty answer looks like a command that did not run.
func list(piHome, project string, stdout io.Writer) error {
	n := 0
	for _, scope := range []struct{ label, root string }{{"user", Root(piHome, project, false)}, {"project", Root(piHome, project, true)}} {
		pkgs, err := List(scope.root)
		if err != nil {
			return err
		}
		for _, p := range pkgs {
			fmt.Fprintf(stdout, "%-8s %-24s %-10s %s\n", scope.label, p.Name, p.Version, describe(p))
			n++
		}
	}
	if n == 0 {
		fmt.Fprintf(stdout, "no packages installed (user: %s, project: %s); pi install <git URL | folder> adds one\n",
			Root(piHome, project, false), Root(piHome, project, true))
	}
	return nil
}

func describe(p Package) string {
	s := p.Description
	if p.Source != "" {
		s += " (" + p.Source
		if p.Ref != "" {
			s += "@" + p.Ref
		}
		s += ")"
	}
	return s
}
