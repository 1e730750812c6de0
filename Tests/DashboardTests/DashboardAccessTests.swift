@testable import Dashboard
import Testing

@Suite("Dashboard access")
struct DashboardAccessTests {
    let access = DashboardAccess(token: "0123456789abcdef0123456789abcdef", listenHost: "127.0.0.1", port: 8737)

    func decide(_ target: String, host: String? = "127.0.0.1:8737", origin: String? = nil, cookies: [String] = [],
                webSocket: Bool = false) -> DashboardAccess.Decision {
        access.decide(target: target, host: host, origin: origin, cookies: cookies, webSocket: webSocket)
    }

    func status(_ decision: DashboardAccess.Decision) -> Int {
        if case .refused(let status, _) = decision { return status }
        return 200
    }

    @Test("the token opens the page, in the address or in the page's cookie; anything else is 401")
    func token() {
        #expect(decide("/?token=0123456789abcdef0123456789abcdef") == .allowed)
        #expect(decide("/dashboard.js", cookies: ["other=1; iaa-dashboard-8737=0123456789abcdef0123456789abcdef"]) == .allowed)
        #expect(status(decide("/")) == 401)
        #expect(status(decide("/?token=0123456789abcdef0123456789abcdee")) == 401)
        #expect(status(decide("/?token=0123456789abcdef")) == 401)
        // Another port's dashboard cookie is not this one's.
        #expect(status(decide("/", cookies: ["iaa-dashboard-9000=0123456789abcdef0123456789abcdef"])) == 401)
        if case .refused(_, let reason) = decide("/") { #expect(reason.contains("token")) }
    }

    @Test("a Host this server is not (DNS rebinding) is refused before the token is looked at")
    func host() {
        let refused = decide("/?token=0123456789abcdef0123456789abcdef", host: "attacker.example:8737")
        #expect(status(refused) == 403)
        if case .refused(_, let reason) = refused { #expect(reason.contains("attacker.example")) }
        #expect(status(decide("/?token=0123456789abcdef0123456789abcdef", host: nil)) == 403)
        #expect(decide("/?token=0123456789abcdef0123456789abcdef", host: "localhost:8737") == .allowed)
        #expect(decide("/?token=0123456789abcdef0123456789abcdef", host: "[::1]:8737") == .allowed)
        #expect(status(decide("/?token=0123456789abcdef0123456789abcdef", host: "127.0.0.1:8738")) == 403)
    }

    @Test("the WebSocket opens only from the dashboard's own page")
    func origin() {
        let cookie = ["iaa-dashboard-8737=0123456789abcdef0123456789abcdef"]
        #expect(decide("/ws", origin: "http://127.0.0.1:8737", cookies: cookie, webSocket: true) == .allowed)
        #expect(status(decide("/ws", origin: "http://evil.example", cookies: cookie, webSocket: true)) == 403)
        #expect(status(decide("/ws", origin: nil, cookies: cookie, webSocket: true)) == 403)
        #expect(status(decide("/ws", origin: "http://127.0.0.1:8737", webSocket: true)) == 401)
    }

    @Test("tokens are 128 random bits in hex, compared whole")
    func tokens() {
        let first = DashboardAccess.newToken(), second = DashboardAccess.newToken()
        #expect(first.count == 32 && first.allSatisfy(\.isHexDigit))
        #expect(first != second)
        #expect(DashboardAccess.equalInConstantTime(first, first))
        #expect(!DashboardAccess.equalInConstantTime(first, second))
        #expect(!DashboardAccess.equalInConstantTime(first, String(first.dropLast())))
    }

    @Test("paths and query values are read from the request target")
    func target() {
        #expect(DashboardAccess.path(of: "/ws?token=x#y") == "/ws")
        #expect(DashboardAccess.queryValue("token", in: "/?a=1&token=abc#frag") == "abc")
        #expect(DashboardAccess.queryValue("token", in: "/") == nil)
    }
}
