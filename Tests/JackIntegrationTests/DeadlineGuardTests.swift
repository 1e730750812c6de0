import AudioFiles
import ControlSocket
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// jack2 never evicts a slow client, so the engine must: a node that keeps overrunning its
    /// share of the period is bypassed within 10 cycles, and the engine causes no further xrun.
    /// The node runs in process (`"isolation": "none"`): an isolated one is IsolationTests'.
    @Suite("The deadline guard bypasses a node that keeps overrunning", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct DeadlineGuardTests {
        /// A C effect that halves its input and, while its `load` parameter is above 0, spins for
        /// `load` periods and appends one line per slow call to $IAA_SLOW_LOG: a count the engine
        /// cannot fake. (Spinning and writing on the audio thread is the misbehaviour under test.)
        static let source = """
            #define _POSIX_C_SOURCE 200809L
            #include <fcntl.h>
            #include <stdlib.h>
            #include <time.h>
            #include <unistd.h>
            #include "iaa_plugin.h"

            typedef struct slow { int log; } slow;

            static void *slow_create(const iaa_plugin_descriptor *d, double rate, uint32_t frames, char *error, size_t size) {
                (void)d; (void)rate; (void)frames; (void)error; (void)size;
                slow *self = calloc(1, sizeof(slow));
                const char *path = getenv("IAA_SLOW_LOG");
                self->log = path ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0600) : -1;
                return self;
            }

            static double now(void) {
                struct timespec t;
                clock_gettime(CLOCK_MONOTONIC, &t);
                return t.tv_sec + t.tv_nsec * 1e-9;
            }

            static void slow_process(void *instance, const iaa_process_context *c) {
                slow *self = instance;
                for (uint32_t f = 0; f < c->frames; f++) c->outputs[0][f] = c->inputs[0][f] * 0.5f;
                float load = c->parameters[0].end;
                if (load <= 0) return;
                double until = now() + load * c->frames / c->sample_rate;
                while (now() < until) {}
                if (self->log >= 0) (void)!write(self->log, "slow\\n", 5);
            }

            static void slow_reset(void *instance) { (void)instance; }
            static void slow_destroy(void *instance) {
                slow *self = instance;
                if (self->log >= 0) close(self->log);
                free(self);
            }

            static const iaa_port ports[] = {
                {"in", "Input", IAA_PORT_INPUT, IAA_PORT_AUDIO, NULL},
                {"out", "Output", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL},
            };
            static const iaa_parameter parameters[] = {
                {"load", "Load (periods)", 0.0f, 4.0f, 0.0f, IAA_UNIT_GENERIC, 1},
            };
            static const iaa_plugin_descriptor slow_node = {
                "slow", "Slow", "Spins for a share of the period", {"aurx", "slow", "test", NULL, 0x10000},
                ports, 2, parameters, 1, slow_create, slow_process, NULL, slow_reset, slow_destroy, NULL
            };
            static const iaa_plugin_descriptor *const all[] = { &slow_node };
            static const iaa_plugin_list list = { IAA_PLUGIN_ABI_VERSION, 1, all };
            IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) { return &list; }
            """

        static let graph = """
            { "format": "iaa-graph/1", "name": "deadline",
              "apps": [
                { "id": "tone", "plugin": "builtin:oscillator", "params": { "frequency": 500, "amplitude": 0.5 } },
                { "id": "slow", "plugin": "libslow.so", "isolation": "none" }
              ],
              "connections": [ { "from": "tone:out", "to": "slow:in" } ] }
            """

        /// Builds the plugin and its graph into a fresh folder; returns the graph's path.
        static func prepare(in directory: URL) throws -> String {
            try CachedCBuild.plugin(source, output: directory.appendingPathComponent("libslow.so").path)
            let graphFile = directory.appendingPathComponent("deadline.json").path
            try graph.write(toFile: graphFile, atomically: true, encoding: .utf8)
            return graphFile
        }

        func slowCalls(_ log: String) -> Int {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count
        }

        /// The slow plugin's graph in a private folder, and an engine running it.
        struct Running {
            let directory: URL
            let log: String
            let socket: String
            let engine: EngineProcess
            let client: ControlClient

            init(client name: String, arguments: [String] = []) throws {
                directory = try JackHarness.temporaryDirectory()
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
                let graphFile = try DeadlineGuardTests.prepare(in: directory)
                log = directory.appendingPathComponent("slow.log").path
                socket = directory.appendingPathComponent("\(name).sock").path
                engine = try EngineProcess(graph: graphFile, client: name, environment: ["IAA_SLOW_LOG": log],
                                           arguments: ["--socket", socket] + arguments)
                client = try ControlClient(path: socket)
            }

            func stop() {
                engine.stop()
                try? FileManager.default.removeItem(at: directory)
            }
        }

        @Test("a node that overruns the whole period is bypassed within 10 cycles, then causes no xrun; enable brings it back")
        func bypassesSlowNode() throws {
            let running = try Running(client: "t-deadline")
            defer { running.stop() }
            let (engine, client, log) = (running.engine, running.client, running.log)
            let before = try client.call("status", params: [:]).get()
            #expect(before.slowApp?["fault"] == .null)
            let xrunsBefore = before["jack"]?["ourXruns"]?.doubleValue ?? -1
            // The event stream, to see the overruns announced as iaa's.
            let lines = followEvents(socket: running.socket, limit: 200, timeout: .seconds(10))

            // 1.2 periods per call: every cycle with it is an xrun of ours until it is bypassed.
            _ = try client.call("set", params: ["app": "slow", "param": "load", "value": 1.2]).get()
            let bypassed = try waitUntil(seconds: 5) {
                try client.call("status", params: [:]).get().slowApp?["fault"]?["action"]?.stringValue == "bypassed"
            }
            #expect(bypassed, "the slow node was never bypassed:\n\(engine.stderr)")
            let calls = slowCalls(log)
            print("deadline guard: the slow node ran \(calls) times before it was bypassed") // the figure, in the CI log
            #expect(calls >= 3 && calls <= 10, "the slow process ran \(calls) times before the guard stopped it")

            let tripped = try client.call("status", params: [:]).get()
            #expect(tripped.slowApp?["fault"]?["kind"]?.stringValue == "deadline")
            #expect(tripped.slowApp?["fault"]?["reason"]?.stringValue?.contains("50 % of the period in 3 consecutive cycles") == true)
            #expect(tripped["jack"]?["deadlineFaults"]?.doubleValue == 1)
            let xrunsAtBypass = tripped["jack"]?["ourXruns"]?.doubleValue ?? -1
            #expect(xrunsAtBypass - xrunsBefore <= 10)
            let cyclesAtBypass = tripped["jack"]?["cycles"]?.doubleValue ?? 0

            // Bypassed, not muted: the tone passes through at full level (the node would halve it).
            let directoryForTake = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directoryForTake) }
            let take = directoryForTake.appendingPathComponent("take.wav").path
            #expect(try runCommand("jack_rec", ["-f", take, "-d", "1", "t-deadline:slow.out"]).status == 0)
            let samples = Array(try SoundFileReader(path: take).readAll()[0].dropFirst(4_800))
            #expect(abs(SignalAnalysis.peak(samples) - 0.5) < 0.01, "peak \(SignalAnalysis.peak(samples))")

            let later = try client.call("status", params: [:]).get()
            #expect((later["jack"]?["cycles"]?.doubleValue ?? 0) > cyclesAtBypass + 100, "the engine stopped cycling")
            #expect(later["jack"]?["ourXruns"]?.doubleValue == xrunsAtBypass, "the engine caused xruns after the bypass")
            #expect(slowCalls(log) == calls, "the bypassed node was still called")
            #expect(engine.stderr.contains("app \"slow\" is bypassed: its process took more than 50 % of the period"))
            #expect(lines.all.contains { $0.contains("\"xrun\"") && $0.contains("\"ours\":true") },
                    "no xrun of ours on the event stream: \(lines.all.suffix(5))")

            // Re-enabling is explicit, and the node runs again (halving the tone).
            _ = try client.call("set", params: ["app": "slow", "param": "load", "value": 0]).get()
            let enabled = try client.call("enable", params: ["app": "slow"]).get()
            #expect(enabled["enabled"]?.boolValue == true)
            #expect(try client.call("status", params: [:]).get().slowApp?["fault"] == .null)
            #expect(try runCommand("jack_rec", ["-f", take, "-d", "1", "t-deadline:slow.out"]).status == 0)
            let halved = Array(try SoundFileReader(path: take).readAll()[0].dropFirst(4_800))
            #expect(abs(SignalAnalysis.peak(halved) - 0.25) < 0.01, "peak \(SignalAnalysis.peak(halved))")
        }

        @Test("--deadline 0 turns the guard off: the slow node keeps running")
        func guardCanBeTurnedOff() throws {
            let running = try Running(client: "t-deadline-off", arguments: ["--deadline", "0"])
            defer { running.stop() }
            let (client, log) = (running.client, running.log)
            _ = try client.call("set", params: ["app": "slow", "param": "load", "value": 0.7]).get()
            #expect(waitUntil(seconds: 5) { slowCalls(log) >= 30 }, "the slow node stopped running with the guard off")
            #expect(try client.call("status", params: [:]).get().slowApp?["fault"] == .null)
        }
    }
}

extension ControlJSON {
    /// The `slow` app's entry in a `status` result.
    fileprivate var slowApp: ControlJSON? {
        self["apps"]?.arrayValue?.first { $0["id"]?.stringValue == "slow" }
    }
}
