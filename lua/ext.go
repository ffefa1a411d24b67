package lua

import lua "github.com/yuin/gopher-lua"

// extFuncs are the registrations beyond tools and commands: shortcuts and flags.
func extFuncs(v *vm) map[string]lua.LGFunction {
	return map[string]lua.LGFunction{}
}
