@testable import Engine
import Testing

/// The rules' memory: pairs removed by hand stay removed until their program reappears or the
/// graph is applied, a refusal is warned about once after two seconds, gone pairs are forgotten;
/// and the ledger that tells the engine's own connections from everyone else's.
@Suite("RuleBook and ConnectionLedger")
struct RuleBookTests {
    let pair = ["metro:out", "iaa:g.in"]
    let other = ["iaa:g.out", "system:playback_1"]

    @Test("a pair removed by hand is not made again until a port or client at its outside end appears, or everything is released")
    func heldUntilTheProgramReturns() {
        var book = RuleBook()
        book.hold(pair)
        #expect(!book.shouldMake(pair) && book.shouldMake(other))
        book.release(appeared: ["system:capture_1", "iaa:g.in"], ours: "iaa:")
        #expect(!book.shouldMake(pair), "our own port appearing does not bring the pair back")
        book.release(appeared: ["metro"], ours: "iaa:")
        #expect(book.shouldMake(pair), "the program's client appearing does")
        book.hold(pair)
        book.release(appeared: ["metro:out"], ours: "iaa:")
        #expect(book.shouldMake(pair), "and so does its port")
        book.hold(pair)
        book.releaseAll()
        #expect(book.shouldMake(pair))
    }

    @Test("a refusal is warned about once, after two seconds; made, it is forgotten")
    func refusalWarnedOnce() {
        var book = RuleBook()
        book.refused(pair, at: 10)
        book.refused(pair, at: 11)
        #expect(book.hasFailures)
        var warned = book.shouldWarn(pair, at: 11.9)
        #expect(!warned)
        warned = book.shouldWarn(pair, at: 12)
        #expect(warned)
        warned = book.shouldWarn(pair, at: 20)
        #expect(!warned)
        book.made(pair)
        #expect(!book.hasFailures)
    }

    @Test("pairs whose ports went away are neither failing nor held")
    func gonePairsForgotten() {
        var book = RuleBook()
        book.hold(pair)
        book.refused(other, at: 0)
        book.keep(only: [])
        #expect(book.shouldMake(pair) && !book.hasFailures)
    }

    @Test("the ledger tells the engine's connections from others', and hands over every live one once")
    func ledger() {
        var ledger = ConnectionLedger()
        ledger.asking(pair, connecting: true)
        var ours = ledger.notified(pair, connected: true)
        #expect(ours)
        ours = ledger.notified(other, connected: true)
        #expect(!ours)
        ledger.asking(other, connecting: false)
        ledger.refused(other, connecting: false)
        ours = ledger.notified(other, connected: false)
        #expect(!ours)
        #expect(ledger.live == [pair])
        let taken = ledger.takeLive()
        #expect(taken == [pair] && ledger.live.isEmpty)
    }

    @Test("made, removed and made again before the first notification: all three are the engine's, and a fourth is not")
    func ledgerCountsEachRequest() {
        var ledger = ConnectionLedger()
        ledger.asking(pair, connecting: true)
        ledger.asking(pair, connecting: false)
        ledger.asking(pair, connecting: true)
        let notifications = [true, false, true, false].map { ledger.notified(pair, connected: $0) }
        #expect(notifications == [true, true, true, false])
    }
}
