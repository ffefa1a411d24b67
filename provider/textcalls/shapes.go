package textcalls

// Formats, as recorded in a recovered call's details and counted by pi eval.
const (
	FormatHermes    = "tool_call"    // <tool_call>{…}</tool_call>, several objects, Granite's list
	FormatQwenXML   = "qwen3_xml"    // <tool_call><function=NAME><parameter=K>V</parameter>…
	FormatGLM       = "glm"          // <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>
	FormatNamedTag  = "named_tag"    // <tool_call name="NAME">{…}</tool_call>
	FormatMiniCPM   = "function_tag" // <function name="NAME"><param name="K">V</param></function>
	FormatMiniMax   = "minimax"      // <minimax:tool_call><invoke name="NAME"><parameter name="K">…
	FormatMiniMaxB  = "minimax_bracket"
	FormatDeepSeek  = "deepseek"      // <｜tool▁call▁begin｜>… (V3, R1, V3.1)
	FormatDSML      = "deepseek_dsml" // <｜DSML｜invoke name="NAME">… (V3.2)
	FormatKimi      = "kimi"          // <|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}
	FormatHarmony   = "harmony"       // <|channel|>commentary to=functions.NAME<|message|>{…}<|call|>
	FormatGemma     = "gemma"         // <|tool_call>call:NAME{…}<tool_call|>
	FormatGranite   = "granite"       // <|tool_call|>[{…}]
	FormatPythonTag = "python_tag"    // <|python_tag|>{…}
	FormatMistral   = "TOOL_CALLS"    // [TOOL_CALLS][…]
	FormatFunctools = "functools"     // functools[{…}]
	FormatCommandR  = "command_r"     // Action: ```json [{"tool_name", "parameters"}] ```
	FormatFenced    = "fenced_json"   // ```json {…} ```
	FormatList      = "json_list"     // [{"name": …, "arguments": …}] on its own line (xLAM)
	FormatBare      = "bare_json"     // {"name": …, "parameters": …} on its own line
	FormatPythonic  = "pythonic"      // NAME(key=value) or [NAME(…), …] on its own line
)

const (
	openHermes  = "<tool_call>"
	closeHermes = "</tool_call>"
)

// shape is one way models write calls as text. It is spotted by one of its openers (or by
// spot), at a line start only when lineStart; read decides whether the markup is a call. Its
// samples are replies in that shape with the calls they hold, as JSON, and the text a user
// sees; notCalls are replies that mention the shape without being a call.
type shape struct {
	format    string
	openers   []string
	lineStart bool
	spot      func(*scan, int) spot
	read      func(*scan, int) result
	samples   []Sample
	notCalls  []string
}

// Sample is a reply written in one shape: the calls it holds as JSON ([{"name","arguments"}])
// for the tools of SampleTools, and the text left to show.
type Sample struct {
	Format, Reply, Calls, Text string
}

// shapes is the table of readers, tried in this order at a place where several openers match
// (the model's last format first). It is never written to.
var shapes = [...]shape{
	{format: FormatQwenXML, openers: []string{openHermes, "<function="}, read: qwenXML,
		samples: []Sample{
			{Reply: "I'll read it.\n<tool_call>\n<function=read>\n<parameter=path>\nREADME.md\n</parameter>\n<parameter=offset>\n10\n</parameter>\n</function>\n</tool_call>",
				Calls: `[{"name":"read","arguments":{"path":"README.md","offset":10}}]`, Text: "I'll read it.\n"},
			{Reply: "<function=bash>\n<parameter=command>\nprintf 'a\\nb'\nls -la\n</parameter>\n</function>\n</tool_call>",
				Calls: `[{"name":"bash","arguments":{"command":"printf 'a\\nb'\nls -la"}}]`},
			{Reply: "<think>Two files.</think>\n<tool_call><function=read><parameter=path>a.go</parameter></function></tool_call>\n<tool_call><function=read><parameter=path>b.go</parameter></function></tool_call>",
				Calls: `[{"name":"read","arguments":{"path":"a.go"}},{"name":"read","arguments":{"path":"b.go"}}]`, Text: "<think>Two files.</think>\n"},
			{Reply: "<function=bash><parameter=command>ls</parameter><parameter=timeout>2.5</parameter></function>",
				Calls: `[{"name":"bash","arguments":{"command":"ls","timeout":2.5}}]`},
		},
		notCalls: []string{"Qwen writes <function=NAME> tags, for example `<function=read>`.",
			"<tool_call><function=read><parameter=path>a</parameter><oops/></function></tool_call>"}},
	{format: FormatGLM, openers: []string{openHermes}, read: glm,
		samples: []Sample{
			{Reply: "Reading.<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>README.md</arg_value>\n<arg_key>offset</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
				Calls: `[{"name":"read","arguments":{"path":"README.md","offset":3}}]`, Text: "Reading."},
			{Reply: "<tool_call>bash<arg_key>command</arg_key><arg_value>go test ./...</arg_value></tool_call><tool_call>list</tool_call>",
				Calls: `[{"name":"bash","arguments":{"command":"go test ./..."}},{"name":"list","arguments":{}}]`},
		},
		notCalls: []string{"<tool_call>read the file first</tool_call>",
			"<tool_call>read<arg_key>path</arg_key>README.md</tool_call>"}},
	{format: FormatHermes, openers: []string{openHermes}, read: hermes,
		samples: []Sample{
			{Reply: "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>", Calls: `[{"name":"read","arguments":{"path":"README.md"}}]`},
			{Reply: "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}\n{\"name\": \"bash\", \"args\": {\"command\": \"ls\"}}\n</tool_call>",
				Calls: `[{"name":"read","arguments":{"path":"a"}},{"name":"bash","arguments":{"command":"ls"}}]`},
			{Reply: "Sure.\n<tool_call>{\"name\":\"bash\",\"parameters\":{\"command\":\"ls\"}}</tool_call>", Calls: `[{"name":"bash","arguments":{"command":"ls"}}]`, Text: "Sure.\n"},
			{Reply: `<tool_call>{"name":"read","arguments":"{\"path\":\"x\"}"}</tool_call>`, Calls: `[{"name":"read","arguments":{"path":"x"}}]`},
			{Reply: "<tool_call>[{\"name\":\"read\",\"arguments\":{\"path\":\"a\"}},{\"name\":\"read\",\"arguments\":{\"path\":\"b\"}}]</tool_call>",
				Calls: `[{"name":"read","arguments":{"path":"a"}},{"name":"read","arguments":{"path":"b"}}]`},
			{Reply: "<tool_call>{\"name\":\"read\",\"arguments\":{\"path\":\"README.md\"}}", Calls: `[{"name":"read","arguments":{"path":"README.md"}}]`},
		},
		notCalls: []string{`<tool_call>{"name":"read","argz":{"path":"a"}}</tool_call>`,
			`<tool_call>{"name":"read","arguments":{"path":"a"},"extra":{"path":"b"}}</tool_call>`}},
	{format: FormatNamedTag, openers: []string{"<tool_call "}, read: namedTag,
		samples: []Sample{
			{Reply: "Checking.\n<tool_call name=\"read\" id=\"call_1\">{\"path\": \"README.md\"}</tool_call>", Calls: `[{"name":"read","arguments":{"path":"README.md"}}]`, Text: "Checking.\n"},
		},
		notCalls: []string{"<tool_call name=\"read\">not json</tool_call>"}},
	{format: FormatMiniCPM, openers: []string{"<function name="}, read: functionTag,
		samples: []Sample{
			{Reply: "<function name=\"read\">\n<param name=\"path\">src/main.go</param>\n<param name=\"offset\">5</param>\n</function>", Calls: `[{"name":"read","arguments":{"path":"src/main.go","offset":5}}]`},
		},
		notCalls: []string{"<function name=\"read\"><p>hello</p></function>"}},
	{format: FormatMiniMax, openers: []string{"<minimax:tool_call>", "<invoke name="}, read: minimaxInvokes,
		samples: []Sample{
			{Reply: "<think>Look first.</think>\n<minimax:tool_call>\n<invoke name=\"read\">\n<parameter name=\"path\">README.md</parameter>\n</invoke>\n<invoke name=\"bash\">\n<parameter name=\"command\">ls</parameter>\n</invoke>\n</minimax:tool_call>",
				Calls: `[{"name":"read","arguments":{"path":"README.md"}},{"name":"bash","arguments":{"command":"ls"}}]`, Text: "<think>Look first.</think>\n"},
			{Reply: "<invoke name=\"read\"><parameter name=\"path\">go.mod</parameter></invoke>", Calls: `[{"name":"read","arguments":{"path":"go.mod"}}]`},
		},
		notCalls: []string{"<minimax:tool_call>\n<invoke name=\"read\"><arg>x</arg></invoke>\n</minimax:tool_call>"}},
	{format: FormatMiniMaxB, openers: []string{"[TOOL_CALL]"}, read: minimaxBracket,
		samples: []Sample{
			{Reply: "[TOOL_CALL]\n{tool => \"bash\", args => {\n  --command \"ls -la\"\n}}\n[/TOOL_CALL]", Calls: `[{"name":"bash","arguments":{"command":"ls -la"}}]`},
			{Reply: "[TOOL_CALL]{tool => \"read\", args => {\"path\": \"a.txt\"}}[/TOOL_CALL]", Calls: `[{"name":"read","arguments":{"path":"a.txt"}}]`},
		},
		notCalls: []string{"[TOOL_CALL]{tool => \"bash\", args => {rm everything}}[/TOOL_CALL]"}},
	{format: FormatDSML, openers: []string{"<｜DSML｜function_calls>", "<｜DSML｜invoke "}, read: dsmlInvokes,
		samples: []Sample{
			{Reply: "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read\">\n<｜DSML｜parameter name=\"path\" string=\"true\">README.md</｜DSML｜parameter>\n<｜DSML｜parameter name=\"offset\" string=\"false\">2</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
				Calls: `[{"name":"read","arguments":{"path":"README.md","offset":2}}]`},
		},
		notCalls: []string{"<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read\">oops</｜DSML｜invoke>\n</｜DSML｜function_calls>"}},
	{format: FormatDeepSeek, openers: []string{"<｜tool▁calls▁begin｜>", "<|tool_calls_begin|>", "<|tool▁calls▁begin|>", "<｜tool▁call▁begin｜>", "<|tool_call_begin|>", "<|tool▁call▁begin|>"}, read: deepSeek,
		samples: []Sample{
			{Reply: "Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read\n```json\n{\"path\": \"README.md\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
				Calls: `[{"name":"read","arguments":{"path":"README.md"}}]`, Text: "Let me check."},
			{Reply: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read<｜tool▁sep｜>{\"path\": \"a\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>bash<｜tool▁sep｜>{\"command\": \"ls\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
				Calls: `[{"name":"read","arguments":{"path":"a"}},{"name":"bash","arguments":{"command":"ls"}}]`},
			{Reply: "<|tool_call_begin|>bash<|tool_sep|>{\"command\": \"pwd\"}<|tool_call_end|>", Calls: `[{"name":"bash","arguments":{"command":"pwd"}}]`},
		},
		notCalls: []string{"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read<｜tool▁sep｜>path=a<｜tool▁call▁end｜><｜tool▁calls▁end｜>"}},
	{format: FormatKimi, openers: []string{kimiSectionBegin, kimiCallBegin}, read: kimi,
		samples: []Sample{
			{Reply: "I'll list it.<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{\"command\": \"ls\"}<|tool_call_end|><|tool_call_begin|>functions.read:1<|tool_call_argument_begin|>{\"path\": \"a\"}<|tool_call_end|><|tool_calls_section_end|>",
				Calls: `[{"name":"bash","arguments":{"command":"ls"}},{"name":"read","arguments":{"path":"a"}}]`, Text: "I'll list it."},
		},
		notCalls: []string{"<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>ls<|tool_call_end|><|tool_calls_section_end|>"}},
	{format: FormatHarmony, openers: []string{harmonyStart, harmonyChannel}, read: harmonyCalls,
		samples: []Sample{
			{Reply: "<|channel|>analysis<|message|>Need the file.<|end|><|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{\"path\":\"README.md\"}<|call|>",
				Calls: `[{"name":"read","arguments":{"path":"README.md"}}]`},
			{Reply: "<|start|>assistant<|channel|>commentary to=functions.bash json<|message|>{\"command\":\"ls\"}<|call|>", Calls: `[{"name":"bash","arguments":{"command":"ls"}}]`},
			{Reply: "<|channel|>commentary to=functions.read<|message|>{\"path\":\"a\"}<|call|>", Calls: `[{"name":"read","arguments":{"path":"a"}}]`},
		},
		notCalls: []string{"<|channel|>final<|message|>Harmony puts calls after <|channel|>commentary.<|end|>",
			"<|channel|>commentary to=functions.read<|message|>README please<|call|>"}},
	{format: FormatGemma, openers: []string{"<|tool_call>"}, read: gemma4,
		samples: []Sample{
			{Reply: "Reading now.\n<|tool_call>call:read{path:<|\"|>docs/a, b.md<|\"|>,offset:4}<tool_call|>", Calls: `[{"name":"read","arguments":{"path":"docs/a, b.md","offset":4}}]`, Text: "Reading now.\n"},
			{Reply: "<|tool_call>call:bash{command:<|\"|>ls<|\"|>}<tool_call|><|tool_call>call:read{path:<|\"|>x<|\"|>}<tool_call|>", Calls: `[{"name":"bash","arguments":{"command":"ls"}},{"name":"read","arguments":{"path":"x"}}]`},
		},
		notCalls: []string{"<|tool_call>call:read(path)<tool_call|>"}},
	{format: FormatGemma, openers: []string{"<start_function_call>"}, read: functionGemma,
		samples: []Sample{
			{Reply: "<start_function_call>call:read{path:<escape>main.go<escape>}<end_function_call>", Calls: `[{"name":"read","arguments":{"path":"main.go"}}]`},
		}},
	{format: FormatGranite, openers: []string{"<|tool_call|>"}, read: granite,
		samples: []Sample{
			{Reply: "<|tool_call|>[{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}, {\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}]",
				Calls: `[{"name":"read","arguments":{"path":"a"}},{"name":"bash","arguments":{"command":"ls"}}]`},
		},
		notCalls: []string{"Granite starts calls with <|tool_call|> and a list."}},
	{format: FormatPythonTag, openers: []string{"<|python_tag|>"}, read: pythonTag,
		samples: []Sample{
			{Reply: `<|python_tag|>{"name": "read", "parameters": {"path": "README.md"}}`, Calls: `[{"name":"read","arguments":{"path":"README.md"}}]`},
			{Reply: `<|python_tag|>{"name": "read", "parameters": {"path": "a"}}; {"name": "bash", "parameters": {"command": "ls"}}`,
				Calls: `[{"name":"read","arguments":{"path":"a"}},{"name":"bash","arguments":{"command":"ls"}}]`},
		},
		notCalls: []string{"<|python_tag|>import os"}},
	{format: FormatMistral, openers: []string{"[TOOL_CALLS]"}, read: mistral,
		samples: []Sample{
			{Reply: `[TOOL_CALLS][{"name": "read", "arguments": {"path": "README.md"}}]`, Calls: `[{"name":"read","arguments":{"path":"README.md"}}]`},
			{Reply: `[TOOL_CALLS]read[ARGS]{"path": "a"}[TOOL_CALLS]bash[ARGS]{"command": "ls"}`, Calls: `[{"name":"read","arguments":{"path":"a"}},{"name":"bash","arguments":{"command":"ls"}}]`},
		},
		notCalls: []string{"[TOOL_CALLS] is how Mistral marks calls."}},
	{format: FormatFunctools, openers: []string{"functools["}, lineStart: true, read: functools,
		samples: []Sample{
			{Reply: "functools[{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}, {\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}]",
				Calls: `[{"name":"read","arguments":{"path":"a"}},{"name":"bash","arguments":{"command":"ls"}}]`},
		},
		notCalls: []string{"functools[0] is not a call."}},
	{format: FormatCommandR, openers: []string{"Action:"}, lineStart: true, read: commandR,
		samples: []Sample{
			{Reply: "I will list the files.\nAction: ```json\n[\n    {\n        \"tool_name\": \"bash\",\n        \"parameters\": {\"command\": \"ls\"}\n    }\n]\n```",
				Calls: `[{"name":"bash","arguments":{"command":"ls"}}]`, Text: "I will list the files.\n"},
		},
		notCalls: []string{"Action: I will run bash: ls"}},
	{format: FormatFenced, openers: []string{"```", "~~~"}, lineStart: true, read: fenced,
		samples: []Sample{
			{Reply: "```json\n{\"name\": \"read\", \"arguments\": {\"path\": \"README.md\"}}\n```", Calls: `[{"name":"read","arguments":{"path":"README.md"}}]`},
			{Reply: "```\n{\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":{\"path\":\"a\"}}}\n```\nDone.", Calls: `[{"name":"read","arguments":{"path":"a"}}]`, Text: "\nDone."},
		},
		notCalls: []string{"```go\n{\"name\": \"read\", \"arguments\": {\"path\": \"x\"}}\n```",
			"```xml\n<tool_call>\n<function=read>\n<parameter=path>x</parameter>\n</function>\n</tool_call>\n```"}},
	{format: FormatList, openers: []string{"["}, lineStart: true, read: bareJSON,
		samples: []Sample{
			{Reply: "Here are the calls:\n[{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}, {\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}]",
				Calls: `[{"name":"read","arguments":{"path":"a"}},{"name":"bash","arguments":{"command":"ls"}}]`, Text: "Here are the calls:\n"},
		},
		notCalls: []string{"[{\"name\": \"read\"}, {\"name\": \"bash\"}]", "[1, 2, 3]"}},
	{format: FormatBare, openers: []string{"{"}, lineStart: true, read: bareJSON,
		samples: []Sample{
			{Reply: `{"name": "read", "parameters": {"path": "README.md"}}`, Calls: `[{"name":"read","arguments":{"path":"README.md"}}]`},
			{Reply: "I will read it.\n{\"type\": \"function\", \"name\": \"read\", \"parameters\": {\"path\": \"a\"}}", Calls: `[{"name":"read","arguments":{"path":"a"}}]`, Text: "I will read it.\n"},
		},
		notCalls: []string{"Here:\n{\"name\": \"Bob\", \"age\": 3}", `{"name": "read", "args": {"path": "a"}, "why": "x"}`}},
	{format: FormatPythonic, lineStart: true, spot: pythonicSpot, read: pythonic,
		samples: []Sample{
			{Reply: "Let me look.\n[read(path=\"README.md\", offset=2), bash(command='ls -la')]", Calls: `[{"name":"read","arguments":{"path":"README.md","offset":2}},{"name":"bash","arguments":{"command":"ls -la"}}]`, Text: "Let me look.\n"},
			{Reply: "bash(command=\"go test ./...\", timeout=30)", Calls: `[{"name":"bash","arguments":{"command":"go test ./...","timeout":30}}]`},
		},
		notCalls: []string{"read(path) reads a file.", "I will run bash: ls", "bash(command=x)"}},
}

// The readers of the table that share their code with another shape.
func hermes(sc *scan, i int) result    { return jsonTagged(sc, i, openHermes, closeHermes) }
func granite(sc *scan, i int) result   { return jsonTagged(sc, i, "<|tool_call|>", "") }
func pythonTag(sc *scan, i int) result { return jsonTagged(sc, i, "<|python_tag|>", "") }
func namedTag(sc *scan, i int) result  { return attrTag(sc, i, closeHermes, "<param", "</param>") }
func functionTag(sc *scan, i int) result {
	return attrTag(sc, i, "</function>", "<param", "</param>")
}
func minimaxInvokes(sc *scan, i int) result {
	return invokes(sc, i, &minimaxTags)
}
func dsmlInvokes(sc *scan, i int) result {
	return invokes(sc, i, &dsmlTags)
}
func gemma4(sc *scan, i int) result { return gemma(sc, i, "<|tool_call>", "<tool_call|>", `<|"|>`) }
func functionGemma(sc *scan, i int) result {
	return gemma(sc, i, "<start_function_call>", "<end_function_call>", "<escape>")
}

// functools reads Phi-4's functools[{…}, …].
func functools(sc *scan, i int) result {
	return jsonRun(sc, i+len("functools"), i+1)
}

// SampleTools is the JSON Schema of the tools the samples call.
var SampleTools = [...][2]string{
	{"read", `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"}},"required":["path"]}`},
	{"bash", `{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}`},
	{"list", `{"type":"object","properties":{}}`},
}

// Samples returns every shape's samples, each with its format filled in, and the replies that
// mention a shape without being a call: for adapters' tests.
func Samples() (calls []Sample, notCalls []string) {
	for _, s := range shapes {
		for _, smp := range s.samples {
			smp.Format = s.format
			calls = append(calls, smp)
		}
		notCalls = append(notCalls, s.notCalls...)
	}
	return calls, notCalls
}

// AllFormats lists the format of each shape, in the order they are tried.
func AllFormats() []string {
	var out []string
	for _, s := range shapes {
		if len(out) == 0 || out[len(out)-1] != s.format {
			out = append(out, s.format)
		}
	}
	return out
}
