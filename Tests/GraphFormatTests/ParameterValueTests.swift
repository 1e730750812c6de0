import GraphFormat
import Testing

@Suite("ParameterValue")
struct ParameterValueTests {
    @Test("reads numbers, percentages and decibels", arguments: [
        ("0.5", Float(0.5)), ("440", 440), ("-1", -1), (".25", 0.25), ("1e3", 1000),
        ("50%", 0.5), ("100 %", 1), ("0%", 0),
        ("0dB", 1), ("-6dB", 0.501187), ("+3 dB", 1.412538), ("-20 db", 0.1), ("  +6DB ", 1.995262),
    ])
    func reads(text: String, expected: Float) throws {
        let value = try #require(ParameterValue.parse(text))
        #expect(abs(value - expected) <= 1e-5 * max(1, abs(expected)))
    }

    @Test("refuses what is not a value", arguments: [
        "", "abc", "dB", "%", "inf", "nan", "-inf dB", "0x10", "1,5", "6 dB dB", "50%%", "1e40 dB",
    ])
    func refuses(text: String) {
        #expect(ParameterValue.parse(text) == nil)
    }
}
