/// The node sources `iaa plugin new` writes, in C and in Swift, and the test's level check.
extension PluginTemplate {
    var displayName: String { typeName.isEmpty ? name : typeName }

    var cSource: String {
        let ports = [
            takesAudio ? "    {\"in\", \"Input\", IAA_PORT_INPUT, IAA_PORT_AUDIO, NULL}," : nil,
            takesMIDI ? "    {\"midi_in\", \"MIDI In\", IAA_PORT_INPUT, IAA_PORT_MIDI, NULL}," : nil,
            "    {\"out\", \"Output\", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL},",
        ].compactMap { $0 }.joined(separator: "\n")
        let parameters: String
        let body: String
        switch type {
        case "generator":
            parameters = """
                    {"frequency", "Frequency", 20.0f, 20000.0f, 440.0f, IAA_UNIT_HERTZ, 0},
                    {"level", "Level", 0.0f, 1.0f, 0.5f, IAA_UNIT_LINEAR_GAIN, 0},
                """
            body = """
                    const iaa_ramp *frequency = &context->parameters[0], *level = &context->parameters[1];
                    for (uint32_t frame = 0; frame < context->frames; frame++) {
                        out[frame] = value(level, frame) * (float)sin(6.283185307179586 * self->phase);
                        self->phase += value(frequency, frame) / self->sample_rate;
                        if (self->phase >= 1.0) self->phase -= 1.0;
                    }
                """
        case "instrument":
            parameters = "        {\"level\", \"Level\", 0.0f, 1.0f, 0.5f, IAA_UNIT_LINEAR_GAIN, 0},\n"
            body = """
                    const iaa_ramp *level = &context->parameters[0];
                    uint32_t next = 0;
                    for (uint32_t frame = 0; frame < context->frames; frame++) {
                        /* MIDI is sample-accurate: apply each event at its frame. */
                        for (; next < context->midi_count && context->midi[next].frame <= frame; next++) {
                            const iaa_midi_event *event = &context->midi[next];
                            uint8_t kind = event->data[0] & 0xF0;
                            if (kind == 0x90 && event->data[2] > 0) {
                                self->note = event->data[1];
                                self->hertz = 440.0 * pow(2.0, (event->data[1] - 69) / 12.0);
                            } else if ((kind == 0x80 || kind == 0x90) && event->data[1] == self->note) {
                                self->note = -1;
                            }
                        }
                        out[frame] = self->note < 0 ? 0.0f : value(level, frame) * (float)sin(6.283185307179586 * self->phase);
                        self->phase += self->hertz / self->sample_rate;
                        if (self->phase >= 1.0) self->phase -= 1.0;
                    }
                """
        default:
            parameters = "        {\"gain\", \"Gain\", 0.0f, 2.0f, 1.0f, IAA_UNIT_LINEAR_GAIN, 0},\n"
            let midi = type == "musicEffect" ? """
                    /* MIDI volume (CC 7) scales the output from the next cycle on. */
                    for (uint32_t index = 0; index < context->midi_count; index++) {
                        const iaa_midi_event *event = &context->midi[index];
                        if ((event->data[0] & 0xF0) == 0xB0 && event->data[1] == 7) self->volume = event->data[2] / 127.0f;
                    }

                """ : ""
            body = midi + """
                    const float *in = context->inputs[0];
                    const iaa_ramp *gain = &context->parameters[0];
                    for (uint32_t frame = 0; frame < context->frames; frame++) {
                        out[frame] = in[frame] * value(gain, frame) * self->volume; /* in and out may share memory */
                    }
                """
        }
        return """
            /* \(displayName): an iaa \(type) plugin node (\(codes)). Build: ./build.sh  Test: ./test.sh */
            #include <math.h>
            #include <stdio.h>
            #include <stdlib.h>

            #include "iaa_plugin.h"

            typedef struct \(cName) {
                double sample_rate;
                double phase;  /* in cycles */
                double hertz;  /* the note playing (instrument) */
                int note;      /* -1: none */
                float volume;  /* MIDI volume (music effect) */
            } \(cName);

            /* Control side: allocate everything process needs here. */
            static void *\(cName)_create(const iaa_plugin_descriptor *descriptor, double sample_rate, uint32_t max_frames,
                                       char *error, size_t error_size) {
                (void)descriptor;
                (void)max_frames;
                \(cName) *self = calloc(1, sizeof *self);
                if (self == NULL) {
                    snprintf(error, error_size, "out of memory");
                    return NULL;
                }
                self->sample_rate = sample_rate;
                self->note = -1;
                self->volume = 1.0f;
                return self;
            }

            /* A parameter's smoothed value at `frame`. */
            static inline float value(const iaa_ramp *ramp, uint32_t frame) {
                return frame < ramp->ramp_frames ? ramp->start + ramp->step * (float)frame : ramp->end;
            }

            /* Audio thread: no malloc, no locks, no I/O. */
            static void \(cName)_process(void *instance, const iaa_process_context *context) {
                \(cName) *self = instance;
                float *out = context->outputs[0];
                (void)self;
            \(body)}

            static void \(cName)_reset(void *instance) {
                \(cName) *self = instance;
                self->phase = 0;
                self->note = -1;
                self->volume = 1.0f;
            }

            static void \(cName)_destroy(void *instance) { free(instance); }

            static const iaa_port ports[] = {
            \(ports)
            };

            static const iaa_parameter parameters[] = {
            \(parameters)};

            static const iaa_plugin_descriptor descriptor = {
                .id = "\(name)",
                .name = "\(displayName)",
                .summary = "A \(type) made with iaa plugin new.",
                .component = {"\(code)", "\(subtype)", "user", "User: \(displayName)", 0x00010000},
                .ports = ports,
                .port_count = sizeof ports / sizeof ports[0],
                .parameters = parameters,
                .parameter_count = sizeof parameters / sizeof parameters[0],
                .create = \(cName)_create,
                .process = \(cName)_process,
                .reset = \(cName)_reset,
                .destroy = \(cName)_destroy,
                /* To request entitlements (the graph must grant them to the app), point at a
                   static table: static const char *const entitlements[] = {"microphone"};
                   then .entitlements = entitlements, .entitlement_count = 1 */
                .entitlements = NULL,
                .entitlement_count = 0,
            };

            static const iaa_plugin_descriptor *const descriptors[] = {&descriptor};
            static const iaa_plugin_list list = {IAA_PLUGIN_ABI_VERSION, 1, descriptors};

            IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) { return &list; }

            """
    }

    var swiftSource: String {
        let inputs = takesAudio ? "[.input(\"in\", \"Input\")]" : "[]"
        let midi = takesMIDI ? ", midiInputs: [.input(\"midi_in\", \"MIDI In\")]" : ""
        let parameters: String
        let body: String
        switch type {
        case "generator":
            parameters = """
                            ParameterSpec(name: "frequency", displayName: "Frequency", range: 20...20_000, defaultValue: 440, unit: .hertz),
                            ParameterSpec(name: "level", displayName: "Level", range: 0...1, defaultValue: 0.5, unit: .linearGain),
                """
            body = """
                        let frequency = context.parameters[0], level = context.parameters[1]
                        for frame in 0..<context.frames {
                            output[frame] = level[frame] * Float(sin(2 * Double.pi * phase))
                            phase += Double(frequency[frame]) / sampleRate
                            if phase >= 1 { phase -= 1 }
                        }
                """
        case "instrument":
            parameters = """
                            ParameterSpec(name: "level", displayName: "Level", range: 0...1, defaultValue: 0.5, unit: .linearGain),
                """
            body = """
                        let level = context.parameters[0]
                        var next = 0
                        for frame in 0..<context.frames {
                            // MIDI is sample-accurate: apply each event at its frame.
                            while next < context.midi.count && Int(context.midi[next].frame) <= frame {
                                let event = context.midi[next]
                                if event.isNoteOn {
                                    note = Int(event.note)
                                    hertz = 440 * pow(2, (Double(event.note) - 69) / 12)
                                } else if event.isNoteOff && Int(event.note) == note {
                                    note = -1
                                }
                                next += 1
                            }
                            output[frame] = note < 0 ? 0 : level[frame] * Float(sin(2 * Double.pi * phase))
                            phase += hertz / sampleRate
                            if phase >= 1 { phase -= 1 }
                        }
                """
        default:
            parameters = """
                            ParameterSpec(name: "gain", displayName: "Gain", range: 0...2, defaultValue: 1, unit: .linearGain),
                """
            let midiBody = type == "musicEffect" ? """
                        // MIDI volume (CC 7) scales the output from this cycle on.
                        for index in 0..<context.midi.count {
                            let event = context.midi[index]
                            if event.status & 0xF0 == 0xB0 && event.data1 == 7 { volume = Float(event.data2) / 127 }
                        }

                """ : ""
            body = midiBody + """
                        let input = context.inputs[0]
                        let gain = context.parameters[0]
                        for frame in 0..<context.frames {
                            output[frame] = input[frame] * gain[frame] * volume  // input and output may share memory
                        }
                """
        }
        return """
            #if canImport(Glibc)
            import Glibc
            #endif
            import NodeKit

            /// \(displayName): an iaa \(type) plugin node (\(codes)).
            public final class \(typeName): AudioNode {
                /// What the plugin publishes: ports, parameters and component codes.
                public static let description = PluginNodeDescription(
                    id: "\(name)",
                    name: "\(displayName)",
                    summary: "A \(type) made with iaa plugin new.",
                    component: ComponentDescription(type: .\(type), subtype: "\(subtype)", manufacturer: "user",
                                                    name: "User: \(displayName)"),
                    layout: NodeLayout(inputs: \(inputs), outputs: [.output("out", "Output")]\(midi)),
                    parameters: [
            \(parameters)        ],
                    // Entitlements the node needs, e.g. ["microphone"]; the graph must grant them.
                    requestedEntitlements: [])

                private var sampleRate = 48_000.0
                private var phase = 0.0
                private var hertz = 440.0
                private var note = -1
                private var volume: Float = 1

                public init() {}

                /// Control side: allocate and compute here.
                public func prepare(sampleRate: Double, maximumFrames: Int) {
                    self.sampleRate = sampleRate
                }

                public func reset() {
                    phase = 0
                    note = -1
                    volume = 1
                }

                /// - Realtime: runs on the audio thread. No allocation, locks, String, closures or existentials.
                public func process(_ context: ProcessContext) {
                    let output = context.outputs[0]
            \(body)    }
            }

            """
    }

    /// Prints the RMS of channel 1 of a WAV file (float32 or 16-bit) after its first 50 ms and
    /// exits 1 unless it is within 5 % of the expected value.
    static let check = """
        /* check FILE.wav EXPECTED_RMS: exits 0 when the RMS of channel 1 (after 50 ms) is within 5 %. */
        #include <math.h>
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>

        static uint32_t u32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
        static uint16_t u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

        int main(int argc, char **argv) {
            if (argc != 3) { fprintf(stderr, "usage: check FILE.wav EXPECTED_RMS\\n"); return 2; }
            FILE *file = fopen(argv[1], "rb");
            if (!file) { perror(argv[1]); return 2; }
            static unsigned char data[1 << 24];
            size_t size = fread(data, 1, sizeof data, file);
            fclose(file);
            if (size < 12 || memcmp(data, "RIFF", 4) || memcmp(data + 8, "WAVE", 4)) { fprintf(stderr, "not a WAV file\\n"); return 2; }
            unsigned format = 0, channels = 0, rate = 0, bits = 0;
            for (size_t at = 12; at + 8 <= size;) {
                uint32_t length = u32(data + at + 4);
                const unsigned char *body = data + at + 8;
                if (!memcmp(data + at, "fmt ", 4)) {
                    format = u16(body); channels = u16(body + 2); rate = u32(body + 4); bits = u16(body + 14);
                    if (format == 0xFFFE) format = u16(body + 24);
                } else if (!memcmp(data + at, "data", 4)) {
                    if (length > size - (at + 8)) length = (uint32_t)(size - (at + 8));
                    size_t frames = length / (channels * bits / 8), skip = rate / 20;
                    double sum = 0;
                    for (size_t frame = skip; frame < frames; frame++) {
                        const unsigned char *sample = body + frame * channels * bits / 8;
                        double value;
                        if (format == 3 && bits == 32) { float f; memcpy(&f, sample, 4); value = f; }
                        else if (format == 1 && bits == 16) value = (int16_t)u16(sample) / 32768.0;
                        else { fprintf(stderr, "unsupported format %u/%u bits\\n", format, bits); return 2; }
                        sum += value * value;
                    }
                    double rms = frames > skip ? sqrt(sum / (double)(frames - skip)) : 0, expected = atof(argv[2]);
                    int ok = fabs(rms - expected) <= (expected > 0 ? 0.05 * expected : 1e-6);
                    printf("%s: RMS %.5f, expected %.5f: %s\\n", argv[1], rms, expected, ok ? "ok" : "FAILED");
                    return ok ? 0 : 1;
                }
                at += 8 + length + (length & 1);
            }
            fprintf(stderr, "no data chunk\\n");
            return 2;
        }

        """
}
