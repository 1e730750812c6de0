import AudioFiles
import ControlSocket
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// An Inter-App Audio node drives its host's transport: a C plugin asks to play and to
    /// toggle recording through `request_transport`; JACK's transport rolls, the engine's record
    /// state flips, and every node sees it in its transport.
    @Suite("Nodes drive the host transport", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct NodeTransportTests {
        /// `play` and `record` are buttons: each change of value sends one request. The output is
        /// 0.5 while the host records, 0.25 while it only plays, else 0.
        static let source = """
            #include <stdlib.h>
            #include "iaa_plugin.h"

            typedef struct remote { float play, record; } remote;

            static void *remote_create(const iaa_plugin_descriptor *d, double rate, uint32_t frames, char *error, size_t size) {
                (void)d; (void)rate; (void)frames; (void)error; (void)size;
                return calloc(1, sizeof(remote));
            }

            static void remote_process(void *instance, const iaa_process_context *c) {
                remote *self = instance;
                if (c->parameters[0].end != self->play) {
                    self->play = c->parameters[0].end;
                    c->request_transport(c->host, self->play > 0 ? IAA_TRANSPORT_PLAY : IAA_TRANSPORT_STOP);
                }
                if (c->parameters[1].end != self->record) {
                    self->record = c->parameters[1].end;
                    c->request_transport(c->host, IAA_TRANSPORT_TOGGLE_RECORD);
                }
                float level = c->transport->recording ? 0.5f : c->transport->playing ? 0.25f : 0.0f;
                for (uint32_t f = 0; f < c->frames; f++) c->outputs[0][f] = level;
            }

            static void remote_reset(void *instance) { (void)instance; }
            static void remote_destroy(void *instance) { free(instance); }

            static const iaa_port ports[] = { {"out", "Output", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL} };
            static const iaa_parameter parameters[] = {
                {"play", "Play", 0.0f, 1.0f, 0.0f, IAA_UNIT_BOOLEAN, 1},
                {"record", "Record", 0.0f, 1.0f, 0.0f, IAA_UNIT_BOOLEAN, 1},
            };
            static const iaa_plugin_descriptor remote_node = {
                "remote", "Remote", "Presses the host's transport buttons", {"aurg", "rmte", "test", NULL, 0x10000},
                ports, 1, parameters, 2, remote_create, remote_process, NULL, remote_reset, remote_destroy, NULL, NULL, 0
            };
            static const iaa_plugin_descriptor *const all[] = { &remote_node };
            static const iaa_plugin_list list = { IAA_PLUGIN_ABI_VERSION, 1, all };
            IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) { return &list; }
            """

        func level(of port: String, in directory: URL) throws -> Float {
            let take = directory.appendingPathComponent("take.wav").path
            #expect(try runCommand("jack_rec", ["-f", take, "-d", "1", port]).status == 0)
            let samples = Array(try SoundFileReader(path: take).readAll()[0].dropFirst(4_800))
            return samples.isEmpty ? -1 : samples.max() ?? -1
        }

        @Test("play and toggle-record requests from a C node reach JACK's transport and the host's record state")
        func remoteTransport() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            try CachedCBuild.plugin(Self.source, output: directory.appendingPathComponent("libremote.so").path)
            let graph = directory.appendingPathComponent("remote.json").path
            try #"{ "format": "iaa-graph/1", "name": "remote", "apps": [ { "id": "remote", "plugin": "libremote.so" } ] }"#
                .write(toFile: graph, atomically: true, encoding: .utf8)
            let socket = directory.appendingPathComponent("e.sock").path
            let engine = try EngineProcess(graph: graph, client: "t-remote", arguments: ["--socket", socket])
            defer {
                _ = try? runCommand("/bin/sh", ["-c", "printf 'stop\\nquit\\n' | jack_transport"])
                engine.stop()
            }
            let client = try ControlClient(path: socket)
            func transport() throws -> ControlJSON? { try client.call("status", params: [:]).get()["transport"] }
            #expect(try transport()?["recording"]?.boolValue == false)

            _ = try client.call("set", params: ["app": "remote", "param": "play", "value": 1]).get()
            #expect(try waitUntil { try transport()?["playing"]?.boolValue == true }, "JACK's transport did not start")
            // A take may begin before the node has seen the transport's new state: up to three.
            func settles(at expected: Float) throws -> Bool {
                var heard: [Float] = []
                for _ in 1...3 {
                    heard.append(try level(of: "t-remote:remote.out", in: directory))
                    if heard.last == expected { return true }
                }
                Issue.record("the node's output peaked at \(heard), not \(expected); transport \(String(describing: try? transport()))")
                return false
            }
            #expect(try settles(at: 0.25))

            _ = try client.call("set", params: ["app": "remote", "param": "record", "value": 1]).get()
            #expect(try waitUntil { try transport()?["recording"]?.boolValue == true }, "the host did not start recording")
            #expect(try settles(at: 0.5))

            _ = try client.call("set", params: ["app": "remote", "param": "record", "value": 0]).get()
            #expect(try waitUntil { try transport()?["recording"]?.boolValue == false }, "the second toggle did not stop recording")
            _ = try client.call("set", params: ["app": "remote", "param": "play", "value": 0]).get()
            #expect(try waitUntil { try transport()?["playing"]?.boolValue == false }, "JACK's transport did not stop")
        }

        @Test("status's transport bar, beat and tempo are JACK's timebase position, as another JACK client reads it")
        func statusBarAndBeat() throws {
            let running = try ControlPlaneTests.Running(graph: "graphs/studio.json", client: "t-bbt")
            defer {
                running.stop()
                _ = try? runCommand("/bin/sh", ["-c", "printf 'stop\\nquit\\n' | jack_transport"])
            }
            func transport() throws -> ControlJSON? { try running.result("status")["transport"] }
            // Live, JACK's transport decides whether it rolls (the graph's `playing` is offline's).
            _ = try runCommand("/bin/sh", ["-c", "printf 'play\\nquit\\n' | jack_transport"])
            #expect(try waitUntil(seconds: 5) { try transport()?["playing"]?.boolValue == true && (transport()?["bar"]?.intValue ?? 0) >= 2 })
            let ours = try #require(try transport())
            let peer = try runJackPython("""
                import jack
                c = jack.Client("t-bbt-peer", no_start_server=True)
                state, p = c.transport_query()
                print(p["bar"], p["beat"], p["beats_per_minute"])
                """).stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            try #require(peer.count == 3, "python's transport_query gave no BBT position")
            #expect(ours["tempo"]?.doubleValue == 120 && peer[2] == 120)
            #expect(ours["beatsPerBar"]?.doubleValue == 4)
            let beat = try #require(ours["beat"]?.intValue), bar = try #require(ours["bar"]?.intValue)
            #expect((1...4).contains(beat))
            // The peer reads a moment later: the same beat or one of the next few (0.5 s a beat).
            let ourBeats = (bar - 1) * 4 + beat, peerBeats = (Int(peer[0]) - 1) * 4 + Int(peer[1])
            #expect((0...3).contains(peerBeats - ourBeats), "status bar \(bar) beat \(beat); JACK's bar \(peer[0]) beat \(peer[1])")
        }
    }
}
