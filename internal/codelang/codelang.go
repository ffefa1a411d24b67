// Package codelang knows the lexical conventions of the languages pi colours in code blocks
// (comment openers, string quotes, keywords) for the terminal UI's highlighter and the HTML
// export's, so that both read code alike. It imports nothing of pi's and holds no state: a
// language's Spec is built when it is asked for.
package codelang

import "strings"

// Spec is the lexical conventions of a family of languages.
type Spec struct {
	Line       []string // line-comment openers
	BlockOpen  string
	BlockClose string
	Quotes     string // string delimiters
	Keywords   map[string]bool
}

// Lookup gives the spec for a fence name (any case), or nil. It builds only that one, when a
// fence opens: a table of every language built at package init would cost each start.
func Lookup(name string) *Spec {
	cLike := func(kw string) *Spec {
		return &Spec{Line: []string{"//"}, BlockOpen: "/*", BlockClose: "*/", Quotes: "\"'`", Keywords: words(kw)}
	}
	hashy := func(kw string) *Spec { return &Spec{Line: []string{"#"}, Quotes: "\"'", Keywords: words(kw)} }
	switch strings.ToLower(name) {
	case "go", "golang":
		return cLike("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false")
	case "js", "javascript", "ts", "typescript", "jsx", "tsx":
		return cLike("async await break case catch class const continue default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while yield null undefined true false interface type")
	case "rust", "rs":
		return cLike("as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while true false")
	case "c", "cpp", "c++", "h", "hpp", "java", "kotlin", "swift", "cs", "csharp", "zig":
		return cLike("auto break case char class const continue default do double else enum extern float for fn goto if int long new private protected public return short signed sizeof static struct switch this throw try typedef union unsigned void volatile while true false null nullptr import package val var let func")
	case "python", "py":
		return hashy("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield None True False")
	case "sh", "bash", "shell", "zsh", "console":
		return hashy("if then else elif fi for while do done case esac function in return export local echo cd")
	case "lua":
		return &Spec{Line: []string{"--"}, Quotes: "\"'", Keywords: words("and break do else elseif end false for function goto if in local nil not or repeat return then true until while")}
	case "json", "yaml", "yml", "toml":
		return hashy("true false null")
	}
	return nil
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
