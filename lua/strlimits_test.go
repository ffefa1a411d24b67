package lua

import (
	"strings"
	"testing"
)

// string.gsub, find, match and gmatch are ours (strlimits.go): they must keep Lua 5.1's results.
func TestPatternFunctionsKeepLuaSemantics(t *testing.T) {
	tests := []struct{ name, call, want string }{
		{"plain", `("hello world"):gsub("o", "0")`, "hell0 w0rld 2"},
		{"capture", `("hello world"):gsub("(o)", "[%1]")`, "hell[o] w[o]rld 2"},
		{"whole match", `("abc"):gsub("%w", "%0%0")`, "aabbcc 3"},
		{"%1 without captures is the match", `("abc"):gsub("b", "<%1>")`, "a<b>c 1"},
		{"percent", `("a.b"):gsub("%.", "%%")`, "a%b 1"},
		{"empty pattern", `("hello"):gsub("", "-")`, "-h-e-l-l-o- 6"},
		{"empty matches between", `("abc"):gsub("x*", "-")`, "-a-b-c- 4"},
		{"greedy run", `("hello world"):gsub("l+", "L")`, "heLo worLd 2"},
		{"limit", `("hello world"):gsub("%w+", "%0 %0", 1)`, "hello hello world 1"},
		{"anchored", `("aaa"):gsub("^a", "x")`, "xaa 1"},
		{"no match", `("abc"):gsub("z", "x")`, "abc 0"},
		{"table", `("$name is $age"):gsub("%$(%w+)", {name = "bob", age = 3})`, "bob is 3 2"},
		{"table without the key keeps the match", `("$a $b"):gsub("%$(%w+)", {a = "1"})`, "1 $b 2"},
		{"function", `("abc"):gsub("%w", function(c) if c == "b" then return false end return c:upper() end)`, "AbC 3"},
		{"function with two captures", `("k=v, x=y"):gsub("(%w+)=(%w+)", function(k, v) return v .. "=" .. k end)`, "v=k, y=x 2"},
		{"position captures", `("abc"):gsub("()", "%1")`, "1a2b3c4 4"},
		{"a result over 64 MiB", `local ok, err = pcall(string.gsub, string.rep("a", 1048576), "a", string.rep("b", 100)) return err:match("string.gsub: .*")`,
			"string.gsub: a result of more than 64 MiB is over the limit for scripts"},
		{"find", `string.find("hello world", "o w")`, "5 7"},
		{"find a pattern with captures", `string.find("key = value", "(%w+) = (%w+)")`, "1 11 key value"},
		{"find from init", `string.find("abcabc", "b", 3)`, "5 5"},
		{"find from a negative init", `string.find("abcabc", "a", -3)`, "4 4"},
		{"find plain", `string.find("a.b", ".", 1, true)`, "2 2"},
		{"find nothing", `string.find("abc", "%d")`, "nil"},
		{"find the empty pattern", `string.find("abc", "")`, "1 0"},
		{"match", `string.match("2024-05-06", "(%d+)-(%d+)")`, "2024 05"},
		{"match without captures", `string.match("  trim  ", "%S+")`, "trim"},
		{"match anchored", `string.match("xab", "^a")`, "nil"},
		{"match a position", `string.match("hello", "()ll()")`, "3 5"},
		{"gmatch", `local t = {} for k, v in string.gmatch("a=1, b=2", "(%w+)=(%w+)") do t[#t+1] = k .. v end return table.concat(t, ",")`, "a1,b2"},
		{"gmatch of words", `local t = {} for w in ("one two  three"):gmatch("%a+") do t[#t+1] = w end return table.concat(t, "|")`, "one|two|three"},
		{"more matches than a batch", `local s, n = string.rep("ab", 10000):gsub("b", "") return #s .. " " .. n`, "10000 10000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := "local r = {" + tc.call + "} for i = 1, select('#', unpack(r)) do r[i] = tostring(r[i]) end " +
				"return #r == 0 and 'nil' or table.concat(r, ' ')"
			if strings.HasPrefix(tc.call, "local") {
				body = tc.call
			}
			res := runLua(t, newEnv(t), body)
			if got := text(res); res.IsError || got != tc.want {
				t.Errorf("%s = %q, want %q", tc.call, got, tc.want)
			}
		})
	}
}

func TestStringFormatRefusesHugeWidths(t *testing.T) {
	tests := []struct{ name, call, want string }{
		{"two digits are Lua's most", `string.format("%5s|%-10d|%05.2f|%x", "a", 7, 1.5, 255)`, "    a|7         |01.50|ff"},
		{"a width of eight digits", `select(2, pcall(string.format, "%99999999s", "x"))`, "width or precision too long"},
		{"a precision of three digits", `select(2, pcall(string.format, "%.100f", 1))`, "width or precision too long"},
		{"a width from the arguments", `select(2, pcall(string.format, "%*d", 100000000, 1))`, "not a Lua format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runLua(t, newEnv(t), "return "+tc.call)
			if got := text(res); res.IsError || !strings.Contains(got, tc.want) {
				t.Errorf("%s = %q, want it to contain %q", tc.call, got, tc.want)
			}
		})
	}
}
