import ControlSocket
import Testing

/// The change verbs: the method and params the engine receives, and what is printed back.
@Suite("iaa change verbs", .serialized)
struct ChangeVerbTests {
    @Test("each verb sends its method with the protocol's params", arguments: [
        (["set", "tone", "gain", "-6dB"], "set", #"{"app":"tone","param":"gain","value":"-6dB"}"#),
        (["set", "tone", "frequency", "50%"], "set", #"{"app":"tone","param":"frequency","value":"50%"}"#),
        (["connect", "synth:out_*", "system:playback_*", "--gain", "0.5"], "connect",
         #"{"from":"synth:out_*","to":"system:playback_*","gain":0.5}"#),
        // The spellings `iaa set` and graph files take.
        (["connect", "tone:out", "mix:in_2", "--gain", "50%"], "connect", #"{"from":"tone:out","to":"mix:in_2","gain":0.5}"#),
        (["connect", "tone:out", "mix:in_2", "--gain", "0dB"], "connect", #"{"from":"tone:out","to":"mix:in_2","gain":1}"#),
        (["disconnect", "synth:out_1", "daw:in_1"], "disconnect", #"{"from":"synth:out_1","to":"daw:in_1"}"#),
        (["session", "nav", "set", "--category", "playback", "--mode", "voicePrompt", "--options", "duckOthers, mixWithOthers"],
         "session.setCategory", #"{"app":"nav","category":"playback","mode":"voicePrompt","options":["duckOthers","mixWithOthers"]}"#),
        (["session", "nav", "activate"], "session.activate", #"{"app":"nav"}"#),
        (["session", "nav", "deactivate", "--notify-others"], "session.deactivate", #"{"app":"nav","notifyOthers":true}"#),
        (["session", "nav", "deactivate"], "session.deactivate", #"{"app":"nav"}"#),
        (["app", "music", "background"], "app.background", #"{"app":"music"}"#),
        (["app", "music", "foreground"], "app.foreground", #"{"app":"music"}"#),
        (["app", "music", "task", "begin"], "app.task", #"{"app":"music","action":"begin"}"#),
        (["device", "silent", "on"], "device", #"{"silent":true}"#),
        (["device", "locked", "off"], "device", #"{"locked":false}"#),
        (["interrupt", "begin", "--reason", "call"], "interrupt", #"{"type":"begin","reason":"default"}"#),
        (["interrupt", "end"], "interrupt", #"{"type":"end"}"#),
        (["remote", "togglePlayPause"], "remote", #"{"command":"togglePlayPause"}"#),
        (["reload", "synth"], "reload", #"{"app":"synth"}"#),
    ] as [([String], String, String)])
    func methodAndParams(arguments: [String], method: String, params: String) throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(arguments)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(engine.requests == [.init(method: method, params: params)])
    }

    @Test("connect --gain in decibels is sent as the linear gain it means; a gain that is no spelling is a usage error and sends nothing")
    func connectGainSpellings() throws {
        let engine = try CannedEngine()
        #expect(try engine.iaa(["connect", "tone:out", "mix:in_2", "--gain", "-6dB"]).status == 0)
        let sent = try #require(try engine.requests.first.flatMap { try ControlJSONParser.parse($0.params)["gain"]?.doubleValue })
        #expect(abs(sent - 0.501187) < 1e-5, "\(sent)")
        let refused = try engine.iaa(["connect", "tone:out", "mix:in_2", "--gain", "loud"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--gain takes") && refused.stderr.contains("-6dB"), "\(refused.stderr)")
        #expect(engine.requests.count == 1)
    }

    @Test("reload says whether the app got the rebuilt library, and a refusal exits 1 with its code")
    func reloadPrints() throws {
        let engine = try CannedEngine()
        #expect(try engine.iaa(["reload", "synth"]).stdoutLines == ["reloaded synth from ./libsynth.so"])
        #expect(try engine.iaa(["reload", "nav"]).stdoutLines == ["unchanged: ./libsynth.so has not changed since it was loaded"])
        let refused = try engine.iaa(["reload", "tone"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("error[notReloadable]"), "\(refused.stderr)")
    }

    @Test("set prints the value the engine parsed")
    func setPrintsValue() throws {
        let engine = try CannedEngine()
        #expect(try engine.iaa(["set", "tone", "gain", "-6dB"]).stdoutLines == ["tone gain = 0.501187"])
    }

    @Test("connect prints each connection made, marking existing and JACK ones")
    func connectPrints() throws {
        let engine = try CannedEngine()
        #expect(try engine.iaa(["connect", "synth:out_1", "daw:in_1"]).stdoutLines == [
            "connected synth:out_1 -> daw:in_1", "already connected synth:out_2 -> system:playback_2 (JACK)"])
        #expect(try engine.iaa(["disconnect", "synth:out_1", "daw:in_1"]).stdoutLines == ["disconnected synth:out_1 -> daw:in_1"])
    }

    @Test("session set --preferred-buffer asks for the buffer size after the category")
    func preferredBuffer() throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(["session", "daw", "set", "--category", "playAndRecord", "--preferred-buffer", "128"])
        #expect(result.stdoutLines == ["buffer size: 128 frames"])
        #expect(engine.requests.map(\.method) == ["session.setCategory", "session.preferredBuffer"])
        #expect(engine.requests.last?.params == #"{"app":"daw","frames":128}"#)
    }

    @Test("an Outcome's events print one per line on stdout, its warnings on stderr")
    func outcomePrinting() throws {
        let engine = try CannedEngine()
        let interrupt = try engine.iaa(["interrupt", "begin", "--reason", "call"])
        #expect(interrupt.stdoutLines == ["event: music interruption began reason=default"])
        let activate = try engine.iaa(["session", "nav", "activate"])
        #expect(activate.stdoutLines == ["event: music silenceSecondaryAudioHint begin"])
        let device = try engine.iaa(["device", "silent", "on"])
        #expect(device.stdout.isEmpty)
        #expect(device.stderr == "iaa: warning: nav does not obey the Ring/Silent switch\n")
        #expect(try engine.iaa(["remote", "next"]).stdoutLines == ["next → music"])
        #expect(try engine.iaa(["enable", "synth"]).stdoutLines == ["enabled synth"])
        #expect(try engine.iaa(["enable", "daw"]).stdoutLines == ["daw was not stopped: nothing to enable"])
    }

    @Test("apply --dry-run sends the file's text and prints the diff, then says nothing changed")
    func applyDryRun() throws {
        let engine = try CannedEngine()
        let file = engine.directory + "/new.json"
        try #"{"format": "iaa-graph/1"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try engine.iaa(["apply", file, "--dry-run"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines == [
            "+ app echo", "- app nav", "~ app music",
            "+ connection echo:out -> daw:in_2 (gain 0.5)", "- connection nav:out -> daw:in_1",
            "- jack connection nav:out -> @playback",
            "dry run: nothing changed",
        ])
        #expect(engine.requests == [.init(method: "apply",
                                          params: #"{"text":"{\"format\": \"iaa-graph/1\"}","file":"\#(file)","dryRun":true}"#)])
        #expect(try engine.iaa(["apply", file]).stdoutLines.last == "applied")
    }

    @Test("apply of an invalid graph prints the engine's diagnostics on stderr and exits 1")
    func applyInvalid() throws {
        let engine = try CannedEngine()
        let file = engine.directory + "/bad.json"
        try #"{"connections": [{"from": "tone:out", "to": "daw:in_9"}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try engine.iaa(["apply", file])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            \(file):3:12: error[unknownPort]: /connections/0/to: app "daw" has no input "in_9" (inputs: in_1, in_2)
              hint: did you mean "in_1"?

            """)
    }

    @Test("apply of a file that cannot be read exits 1 without asking the engine")
    func applyMissingFile() throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(["apply", engine.directory + "/missing.json"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("iaa: cannot read "))
        #expect(engine.requests.isEmpty)
    }
}
