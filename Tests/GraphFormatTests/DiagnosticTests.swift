import LocatedJSON
import GraphFormat
import Testing
import Suggestions

@Suite("Diagnostic")
struct DiagnosticTests {
    @Test("formats in GCC's form with the hint on a second line")
    func gccForm() {
        let diagnostic = Diagnostic(code: .unknownPort, file: "graphs/studio.json", line: 31, column: 20,
                                    pointer: "/connections/0/to",
                                    message: #"app "daw" has no input "in_9" (inputs: in_1, in_2, in_3, in_4)"#,
                                    hint: "raise the mixer's \"inputs\"")
        #expect(diagnostic.formatted == """
            graphs/studio.json:31:20: error[unknownPort]: /connections/0/to: app "daw" has no input "in_9" (inputs: in_1, in_2, in_3, in_4)
              hint: raise the mixer's "inputs"
            """)
    }

    @Test("leaves out what it does not know: location, pointer, hint")
    func partialForms() {
        #expect(Diagnostic(code: .io, file: "x.json", message: "no such file").formatted == "x.json: error[io]: no such file")
        #expect(Diagnostic(severity: .warning, code: .invalidValue, file: "x.json", line: 3, message: "m").formatted
            == "x.json:3: warning[invalidValue]: m")
    }

    @Test("renders JSON with every key, nulls for unknowns, and escaped strings")
    func json() {
        let diagnostic = Diagnostic(code: .syntax, file: "a \"b\"\\c.json", line: 1, column: 2, pointer: "/a~1b",
                                    message: "tab\there\nnew line \u{01} ♪ \u{2028}")
        #expect(diagnostic.json == #"{"file":"a \"b\"\\c.json","line":1,"column":2,"pointer":"/a~1b","code":"syntax","severity":"error","message":"tab\there\nnew line \u0001 ♪ \u2028","hint":null}"#)
        let bare = Diagnostic(code: .io, file: "f", message: "m", hint: "h")
        #expect(Diagnostic.json([bare, bare]) == #"[{"file":"f","line":null,"column":null,"pointer":"","code":"io","severity":"error","message":"m","hint":"h"},{"file":"f","line":null,"column":null,"pointer":"","code":"io","severity":"error","message":"m","hint":"h"}]"#)
    }

    @Test("escapes control characters as \\u00XX")
    func controlCharacters() {
        #expect(JSONText.quoted("\u{00}\u{1F}\u{08}\u{0C}\r") == #""\u0000\u001f\b\f\r""#)
    }
}

@Suite("Suggestion")
struct SuggestionTests {
    @Test("suggests the closest candidate for a typo")
    func typo() {
        #expect(Suggestion.closest(to: "conections", in: ["apps", "connections", "jack"]) == "connections")
        #expect(Suggestion.closest(to: "builtin:oscilator", in: ["builtin:noise", "builtin:oscillator"]) == "builtin:oscillator")
        #expect(Suggestion.closest(to: "HOST", in: ["host", "node", "app"]) == "host")
        #expect(Suggestion.closest(to: "fqr", in: ["frequency", "amplitude"]) == nil)
    }

    @Test("does not suggest another number for a numbered name")
    func numbers() {
        #expect(Suggestion.closest(to: "in_9", in: ["in_1", "in_2"]) == nil)
    }

    @Test("counts an adjacent swap as one edit")
    func swap() {
        #expect(Suggestion.editDistance("gian", "gain") == 1)
        #expect(Suggestion.editDistance("", "abc") == 3)
    }
}
